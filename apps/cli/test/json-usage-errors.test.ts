// Usage errors under --json (issue 16): every command that offers --json answers a usage
// mistake with `{"error":{"code":"INVALID_USAGE","message"}}` on stdout and exit 2 — never
// oclif's error object dumped, never exit 1. A table over every command there is.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { runCliAsync, tempConfigHome } from './run-cli.js';

const commandsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/commands');

/** Every command id (`runs cancel`, `logs`), from the built command files. */
function commandIds(dir = commandsDir, prefix: string[] = []): string[] {
  const ids: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) ids.push(...commandIds(full, [...prefix, name]));
    else if (name.endsWith('.js')) {
      const base = name.slice(0, -'.js'.length);
      ids.push([...prefix, ...(base === 'index' ? [] : [base])].join(' '));
    }
  }
  return ids;
}

/** Long-running processes with no JSON answer to give. */
const WITHOUT_JSON = new Set(['serve', 'stdio', 'traces', 'worker']);
const ids = commandIds();
const env = { XDG_CONFIG_HOME: tempConfigHome() };

interface JsonError {
  error: { code: string; message: string };
}

describe('usage errors under --json', () => {
  it('finds the commands', () => {
    expect(ids).toEqual(
      expect.arrayContaining(['agent run', 'runs cancel', 'logs', 'workflow run']),
    );
    expect(ids.length).toBeGreaterThan(30);
  });

  it.each(ids.filter((id) => !WITHOUT_JSON.has(id)))(
    '%s: an unknown flag is INVALID_USAGE, exit 2, as one small JSON object',
    async (id) => {
      const result = await runCliAsync([...id.split(' '), '--no-such-flag', '--json'], env);
      expect(result.status).toBe(2);
      expect(result.stdout.length).toBeLessThan(2000);
      const answer = JSON.parse(result.stdout) as JsonError;
      expect(answer.error.code).toBe('INVALID_USAGE');
      expect(answer.error.message).toContain('--no-such-flag');
      expect(answer.error.message).not.toContain('\u001b[');
    },
  );

  it.each([
    ['runs inspect', 'Missing 1 required arg'],
    ['runs cancel', 'Missing 1 required arg'],
    ['agent show', 'Missing 1 required arg'],
    ['workflow cancel', 'Missing 1 required arg'],
  ])('%s without its argument: INVALID_USAGE naming it, exit 2', async (id, text) => {
    const result = await runCliAsync([...id.split(' '), '--json'], env);
    expect(result.status).toBe(2);
    const answer = JSON.parse(result.stdout) as JsonError;
    expect(answer.error.code).toBe('INVALID_USAGE');
    expect(answer.error.message).toContain(text);
  });

  it('a flag value of the wrong type is INVALID_USAGE too', async () => {
    const result = await runCliAsync(['runs', 'list', '--limit', 'many', '--json'], env);
    expect(result.status).toBe(2);
    expect((JSON.parse(result.stdout) as JsonError).error).toMatchObject({
      code: 'INVALID_USAGE',
      message: expect.stringContaining('Expected an integer but received: many'),
    });
  });

  it('without --json the usage error stays text on stderr, exit 2', async () => {
    const result = await runCliAsync(['runs', 'inspect'], env);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Missing 1 required arg');
  });

  it('--var takes one value each: the task after it stays the task', async () => {
    const result = await runCliAsync(
      ['agent', 'run', 'nobody', '--var', 'city=Paris', 'What files', '--json'],
      env,
    );
    // The arguments parse; the agent simply does not exist.
    expect((JSON.parse(result.stdout) as JsonError).error.code).toBe('AGENT_NOT_FOUND');
    expect(result.status).toBe(4);
  });
});
