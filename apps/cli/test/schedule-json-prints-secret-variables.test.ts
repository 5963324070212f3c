// `junction schedule list/show --json` printed secret-named schedule variables in clear, where
// REST and MCP redact them (issue 31). Every schedule command now answers the one schedule view
// through the same redaction (agent-core's secretRedactor over service-kit's secretsOf).
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { runCliAsync, syncedWorkspace } from './run-cli.js';

const TOKEN = 'ghp_scheduleSecret1234567890';
const KEY = 'wh-key-known-secret-12345';

let fake: FakeOpenAI;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  fake = await startFakeOpenAI({});
  // A secret the service knows (the webhook API key) given as a plain-named variable too.
  env = await syncedWorkspace({ modelUrl: fake.url, config: `webhook:\n  api_key: ${KEY}\n` });
}, 120_000);

afterAll(async () => {
  await fake.close();
  if (env.XDG_CONFIG_HOME) rmSync(env.XDG_CONFIG_HOME, { recursive: true, force: true });
});

describe('schedule commands and secret variables', () => {
  it('set, show, list and remove never print them, text or --json', async () => {
    const set = await runCliAsync(
      [
        'schedule',
        'set',
        'assistant',
        '--cron',
        '0 2 * * *',
        '--var',
        `GITHUB_TOKEN=${TOKEN}`,
      ].concat(['--var', 'region=eu', '--var', `hook=${KEY}`, '--json']),
      env,
    );
    expect({ status: set.status, stderr: set.stderr }).toEqual({ status: 0, stderr: '' });
    const answers = await Promise.all([
      runCliAsync(['schedule', 'show', 'assistant', '--json'], env),
      runCliAsync(['schedule', 'show', 'assistant'], env),
      runCliAsync(['schedule', 'list', '--json'], env),
      runCliAsync(['schedule', 'list', '--no-truncate'], env),
    ]);
    const removed = await runCliAsync(['schedule', 'remove', 'assistant', '--json'], env);
    for (const r of [set, ...answers, removed]) {
      expect(r.status).toBe(0);
      expect(r.stdout).not.toContain(TOKEN);
      expect(r.stdout).not.toContain(KEY);
    }
    const shown = JSON.parse(answers[0].stdout) as { variables: Record<string, string> };
    expect(shown.variables).toEqual({
      GITHUB_TOKEN: '[REDACTED]',
      region: 'eu',
      hook: '[REDACTED]',
    });
    const listed = JSON.parse(answers[2].stdout) as Array<{ variables: Record<string, string> }>;
    expect(listed.map((v) => v.variables)).toEqual([shown.variables]);
    expect(answers[1].stdout).toContain('GITHUB_TOKEN=[REDACTED]');
  }, 120_000);
});
