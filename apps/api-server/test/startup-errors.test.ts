// What an operator sees when a container cannot start: one line on stderr that names the
// problem and the variable that fixes it, exit code 1, never a stack trace.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  apiServerMain,
  freePorts,
  occupyPort,
  repoRoot,
  startProcess,
  webhookServerMain,
  type AppProcess,
} from './processes.js';

const deployDoc = readFileSync(path.join(repoRoot, 'docs/deploy.md'), 'utf8');
let home: string;
let base: NodeJS.ProcessEnv;

beforeAll(() => {
  home = mkdtempSync(path.join(os.tmpdir(), 'junction-startup-'));
  base = {
    HOME: home,
    XDG_CONFIG_HOME: home,
    JUNCTION_DATABASE_URL: `file:${path.join(home, 'junction.db')}`,
  };
});

afterAll(() => rmSync(home, { recursive: true, force: true }));

async function run(script: string, env: NodeJS.ProcessEnv): Promise<AppProcess> {
  const app = startProcess(script, { ...base, ...env });
  const timer = setTimeout(() => app.child.kill('SIGKILL'), 20_000);
  await app.exited;
  clearTimeout(timer);
  return app;
}

/** The stderr of a failed start: exactly one line, no stack frames. */
function oneLine(app: AppProcess): string {
  const lines = app.stderr().split('\n').filter(Boolean);
  expect(lines).toHaveLength(1);
  expect(app.stderr()).not.toMatch(/^\s+at /m);
  return lines[0]!;
}

describe('start-up errors', () => {
  it.each([
    ['api-server', 'JUNCTION_API_PORT', 'REST API', apiServerMain],
    ['api-server', 'JUNCTION_MCP_PORT', 'MCP over HTTP', apiServerMain],
    ['webhook-server', 'JUNCTION_WEBHOOK_PORT', 'webhook routes', webhookServerMain],
  ])(
    '%s: a port in use (%s) is one line naming the port and the variable, exit 1',
    async (name, variable, what, main) => {
      const busy = await occupyPort();
      try {
        const [a, b, c] = await freePorts(3);
        const app = await run(main, {
          JUNCTION_API_PORT: String(a),
          JUNCTION_MCP_PORT: String(b),
          JUNCTION_WEBHOOK_PORT: String(c),
          [variable]: String(busy.port),
        });
        expect(await app.exited).toEqual({ code: 1, signal: null });
        const line = oneLine(app);
        expect(line).toBe(
          `junction-${name}: Port ${busy.port} (${what}) is already in use on 127.0.0.1. Stop the process that holds it, or set ${variable} to another port.`,
        );
        if (variable === 'JUNCTION_API_PORT') {
          // docs/deploy.md shows this very line for port 8585.
          expect(deployDoc).toContain(line.replace(String(busy.port), '8585'));
        }
        // The JSON log says it too, for collectors that only read stdout.
        expect(app.logs()).toContainEqual(
          expect.objectContaining({ level: 'error', msg: 'start-up failed', code: 'PORT_IN_USE' }),
        );
      } finally {
        await busy.close();
      }
    },
  );

  it.each([
    ['api-server', apiServerMain],
    ['webhook-server', webhookServerMain],
  ])('%s: a bad JUNCTION_DRAIN_SECONDS is refused before anything starts', async (name, main) => {
    const app = await run(main, { JUNCTION_DRAIN_SECONDS: 'ten' });
    expect(await app.exited).toEqual({ code: 1, signal: null });
    expect(oneLine(app)).toBe(
      `junction-${name}: JUNCTION_DRAIN_SECONDS must be a whole number of seconds from 0 to 3600; got "ten".`,
    );
  });

  it('a bad JUNCTION_* value is the configuration error naming the variable, exit 1', async () => {
    const app = await run(webhookServerMain, { JUNCTION_WEBHOOK_ENABLED: 'maybe' });
    expect(await app.exited).toEqual({ code: 1, signal: null });
    expect(app.stderr()).toContain(
      'environment variable JUNCTION_WEBHOOK_ENABLED (webhook.enabled): expected true or false, got "maybe"',
    );
    expect(app.stderr()).not.toMatch(/^\s+at /m);
  });
});
