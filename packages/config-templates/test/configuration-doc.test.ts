// docs/configuration.md is the reference for config.yaml: it must name every key and variable
// the code knows, and every YAML example in it must load.
import { readFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';
import {
  ENV_OVERRIDES,
  createConfigSchema,
  listConfigKeys,
  loadConfig,
  resolvePaths,
} from '../src/index.js';
import { DERIVED_CONFIG_KEYS } from '../src/config-schema.js';
import { cleanup, tempPaths } from './helpers.js';

afterAll(cleanup);

const docFile = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../docs/configuration.md',
);

describe('docs/configuration.md', () => {
  it('documents every leaf key of the schema', async () => {
    const doc = await readFile(docFile, 'utf8');
    const keys = listConfigKeys(createConfigSchema(resolvePaths({ HOME: '/home/user' }))).map(
      (k) => k.key,
    );
    expect(keys.length).toBeGreaterThan(50);
    const undocumented = keys.filter((key) => !doc.includes(`\`${key}\``));
    expect(undocumented).toEqual([]);
  });

  it('documents every environment variable and every derived default', async () => {
    const doc = await readFile(docFile, 'utf8');
    expect(
      ENV_OVERRIDES.map((o) => o.variable).filter((variable) => !doc.includes(`\`${variable}\``)),
    ).toEqual([]);
    expect(DERIVED_CONFIG_KEYS.filter((key) => !doc.includes(`\`${key}\``))).toEqual([]);
  });

  it('has YAML examples that load', async () => {
    const doc = await readFile(docFile, 'utf8');
    const examples = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] as string);
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) {
      const paths = await tempPaths();
      await mkdir(paths.configHome, { recursive: true });
      await writeFile(paths.configFile, example);
      expect(() => loadConfig({ paths, env: {} })).not.toThrow();
    }
  });
});
