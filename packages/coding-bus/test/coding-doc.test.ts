// docs/coding.md's examples are real: every config.yaml example loads and means what the page
// says, and the prompt-file example gives its agent coding.
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';
import { loadConfig, parsePromptFile, resolvePaths } from '@junction/config-templates';
import { codingSettings } from '../src/index.js';

const doc = readFileSync(
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs/coding.md'),
  'utf8',
);
const blocks = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
const home = mkdtempSync(path.join(os.tmpdir(), 'junction-coding-doc-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

function load(yaml: string) {
  const env = { XDG_CONFIG_HOME: home, HOME: home };
  const paths = resolvePaths(env);
  mkdirSync(paths.configHome, { recursive: true });
  writeFileSync(paths.configFile, yaml);
  return { config: loadConfig({ env, paths }), env };
}

describe('docs/coding.md', () => {
  const configs = blocks.filter((b) => b.startsWith('coding:'));
  const prompts = blocks.filter((b) => b.startsWith('---'));

  it('has the config examples the page walks through', () => {
    expect(configs).toHaveLength(3);
    expect(prompts).toHaveLength(1);
  });

  it('every config example loads and turns coding on', () => {
    for (const yaml of configs) {
      const { config, env } = load(yaml);
      expect(config.coding.enabled).toBe(true);
      expect(codingSettings(config, env).enabled).toBe(true);
    }
  });

  it('the examples mean what the page says', () => {
    const [first, plugin, direct] = configs.map((y) =>
      codingSettings(load(y!).config, { GITHUB_TOKEN: 'ghp_fromTheEnvironment123' }),
    );
    expect(first).toMatchObject({
      backend: 'opencode-nats',
      taskTimeoutMs: 600_000,
      maxAttempts: 3,
      git: { token: 'ghp_fromTheEnvironment123' },
    });
    expect(plugin?.nats.subjects).toEqual({
      task: 'station.coding.task',
      stream: 'svc.coding.stream',
      result: 'svc.coding.result',
    });
    expect(direct).toMatchObject({
      backend: 'opencode',
      opencodeUrl: 'http://127.0.0.1:4096',
      workspaceBasePath: '/srv/junction/coding',
    });
  });

  it('the prompt-file example gives its agent coding', async () => {
    const file = path.join(home, 'fixer.prompt');
    writeFileSync(file, prompts[0]!);
    const def = await parsePromptFile(file);
    expect(def.coding?.enabled).toBe(true);
  });

  it('fractions of a minute are a time limit; a token written in config.yaml is warned about', () => {
    const { config } = load(
      'coding:\n  task_timeout_min: 0.5\n  git:\n    token: ghp_inTheFileItself999\n',
    );
    const settings = codingSettings(config, {});
    expect(settings.taskTimeoutMs).toBe(30_000);
    expect(settings.git.token).toBe('ghp_inTheFileItself999');
    expect(settings.warnings.join(' ')).toContain('coding.git.token is written in config.yaml');
    expect(settings.warnings.join(' ')).not.toContain('ghp_inTheFileItself999');
    expect(() => load('coding:\n  task_timeout_min: 0\n')).toThrow(/task_timeout_min/);
  });
});
