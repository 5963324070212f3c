// `junction config show`: each effective setting with its source (file, env, default), on a real
// workspace; secrets from the file or the environment never reach the output.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { runCliAsync, tempConfigHome } from './run-cli.js';

const REST_KEY = 'sk-secret-value-123456789';
const MODEL_KEY = 'sk-model-from-env-abcdef123456';
const FILE_WEBHOOK_KEY = 'wh-file-secret-0987654321';
const FILE_GIT_TOKEN = 'ghp_filetoken1234567890';
const DB_PASSWORD = 'db-password-13579';

interface Setting {
  key: string;
  value: unknown;
  source: 'file' | 'env' | 'default';
}

let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  const home = tempConfigHome();
  env = {
    XDG_CONFIG_HOME: home,
    JUNCTION_LOG_LEVEL: 'debug',
    JUNCTION_MCP_PORT: '9702',
    JUNCTION_API_KEY: REST_KEY,
    OPENAI_API_KEY: MODEL_KEY,
    JUNCTION_DATABASE_URL: `libsql://junction:${DB_PASSWORD}@db.example.com`,
  };
  expect((await runCliAsync(['init'], { XDG_CONFIG_HOME: home })).status).toBe(0);
  writeFileSync(
    path.join(home, 'junction', 'config.yaml'),
    [
      'api:',
      '  port: 9701',
      'mcp:',
      '  port: 9700',
      'webhook:',
      `  api_key: ${FILE_WEBHOOK_KEY}`,
      'coding:',
      '  git:',
      `    token: ${FILE_GIT_TOKEN}`,
      'workers:',
      '  concurrency:',
      '',
    ].join('\n'),
  );
}, 180_000);

describe('junction config show', () => {
  it('--json: file, env and default sources; secrets only [set] or [not set]', async () => {
    const result = await runCliAsync(['config', 'show', '--json'], env);
    expect(result.status).toBe(0);
    const { settings } = JSON.parse(result.stdout) as { settings: Setting[] };
    for (const s of settings) expect(Object.keys(s).sort()).toEqual(['key', 'source', 'value']);
    const byKey = new Map(settings.map((s) => [s.key, s]));
    expect(byKey.get('api.port')).toEqual({ key: 'api.port', value: 9701, source: 'file' });
    expect(byKey.get('log_level')).toEqual({ key: 'log_level', value: 'debug', source: 'env' });
    // The variable wins over the file.
    expect(byKey.get('mcp.port')).toEqual({ key: 'mcp.port', value: 9702, source: 'env' });
    // `concurrency:` with nothing after it is "not set".
    expect(byKey.get('workers.concurrency')).toEqual({
      key: 'workers.concurrency',
      value: 4,
      source: 'default',
    });
    expect(byKey.get('webhook.port')).toMatchObject({ value: 8587, source: 'default' });
    expect(byKey.get('ai_base_url')).toMatchObject({ value: null, source: 'default' });
    // Secrets.
    expect(byKey.get('webhook.api_key')).toMatchObject({ value: '[set]', source: 'file' });
    expect(byKey.get('coding.git.token')).toMatchObject({ value: '[set]', source: 'file' });
    expect(byKey.get('ai_api_key')).toMatchObject({ value: '[not set]', source: 'default' });
    expect(byKey.get('api.keys')).toMatchObject({ value: '[not set]', source: 'default' });
    expect(byKey.get('JUNCTION_API_KEY')).toMatchObject({ value: '[set]', source: 'env' });
    expect(byKey.get('OPENAI_API_KEY')).toMatchObject({ value: '[set]', source: 'env' });
    expect(byKey.get('ANTHROPIC_API_KEY')).toMatchObject({ value: '[not set]', source: 'default' });
    // Names of where a secret is are not secrets.
    expect(byKey.get('coding.git.token_env_var')).toMatchObject({ value: 'GITHUB_TOKEN' });
    // A URL keeps its host but not its password.
    expect(byKey.get('database_url')).toMatchObject({ source: 'env' });
    expect(String(byKey.get('database_url')?.value)).toContain('db.example.com');
    for (const secret of [REST_KEY, MODEL_KEY, FILE_WEBHOOK_KEY, FILE_GIT_TOKEN, DB_PASSWORD])
      expect(result.stdout + result.stderr).not.toContain(secret);
  }, 180_000);

  it('text: a SETTING VALUE SOURCE table, no secret anywhere', async () => {
    const result = await runCliAsync(['config', 'show'], env);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^SETTING\s+VALUE\s+SOURCE$/m);
    expect(result.stdout).toMatch(/^api\.port\s+9701\s+file$/m);
    expect(result.stdout).toMatch(/^log_level\s+debug\s+env$/m);
    expect(result.stdout).toMatch(/^workers\.concurrency\s+4\s+default$/m);
    expect(result.stdout).toMatch(/^JUNCTION_API_KEY\s+\[set\]\s+env$/m);
    expect(result.stdout).toMatch(/^webhook\.api_key\s+\[set\]\s+file$/m);
    for (const secret of [REST_KEY, MODEL_KEY, FILE_WEBHOOK_KEY, FILE_GIT_TOKEN, DB_PASSWORD])
      expect(result.stdout + result.stderr).not.toContain(secret);
  }, 180_000);

  it('a broken config.yaml: CONFIG_INVALID, exit 3', async () => {
    const home = tempConfigHome();
    expect((await runCliAsync(['init'], { XDG_CONFIG_HOME: home })).status).toBe(0);
    writeFileSync(path.join(home, 'junction', 'config.yaml'), 'api:\n  port: [1\n');
    const result = await runCliAsync(['config', 'show'], { XDG_CONFIG_HOME: home });
    expect(result.status).toBe(3);
    expect(result.stderr).toContain('Error [CONFIG_INVALID]');
  }, 180_000);
});
