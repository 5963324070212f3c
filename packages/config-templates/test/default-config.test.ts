import { mkdir, writeFile } from 'node:fs/promises';
import { afterAll, describe, expect, it } from '@jest/globals';
import { createConfigSchema, listConfigKeys, loadConfig } from '../src/index.js';
import { defaultConfigYaml } from '../src/default-config.js';
import { cleanup, tempPaths } from './helpers.js';

afterAll(cleanup);

// What a user does with the file: remove the leading "# " of setting lines (descriptions stay comments).
function uncommentAll(yaml: string): string {
  return yaml
    .split('\n')
    .map((line) => line.replace(/^# (\s*[a-z_]+:(?: .*)?)$/, '$1'))
    .join('\n');
}

describe('defaultConfigYaml', () => {
  it('loads to the defaults as written (everything commented out)', async () => {
    const paths = await tempPaths();
    const expected = loadConfig({ paths, env: {} });
    await mkdir(paths.configHome, { recursive: true });
    await writeFile(paths.configFile, defaultConfigYaml(paths));
    expect(loadConfig({ paths, env: {} })).toEqual(expected);
  });

  it('loads to the same defaults with every setting uncommented', async () => {
    const paths = await tempPaths();
    const defaults = loadConfig({ paths, env: {} });
    await mkdir(paths.configHome, { recursive: true });
    await writeFile(paths.configFile, uncommentAll(defaultConfigYaml(paths)));
    // Writing a coding section is what turns coding tools on (spec §7), so that one key differs.
    expect(loadConfig({ paths, env: {} })).toEqual({
      ...defaults,
      coding: { ...defaults.coding, enabled: true },
    });
  });

  it('shows every key with its description and env override', async () => {
    const paths = await tempPaths();
    const yaml = defaultConfigYaml(paths);
    for (const { key, description } of listConfigKeys(createConfigSchema(paths))) {
      const leaf = key.split('.').pop() as string;
      expect(yaml).toMatch(new RegExp(`^#\\s+${leaf}:`, 'm'));
      expect(description).not.toBe('');
      expect(yaml).toContain(description);
    }
    expect(yaml).toContain('Env: JUNCTION_WEBHOOK_ENABLED.');
    expect(yaml).toContain('Env: OTEL_TRACES_SAMPLER_ARG.');
  });
});
