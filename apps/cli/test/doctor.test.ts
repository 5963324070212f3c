// `junction doctor`: one line per check (config, store, models, tool servers, ports, nats-server)
// on real workspaces, a real store, the fixture MCP server and real sockets; exit 1 on a failure
// and never a key's value in the output.
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { runCliAsync, syncedWorkspace, tempConfigHome, type CliResult } from './run-cli.js';
import { freePort, startServe } from './serve-process.js';

const KEY = 'sk-doctor-model-key-5555-abcdef';
const MODEL_PROMPT =
  '---\nmodel: openai/gpt-test\ntools: [add]\nmax_steps: 4\n---\n{{role "system"}}\nYou add.\n{{role "user"}}\n{{userInput}}\n';

interface Check {
  name: string;
  status: 'ok' | 'warn' | 'fail';
  message: string;
}

let fake: FakeOpenAI;
/** A PATH whose first folder holds an executable `nats-server`. */
let natsPath: string;
/** A folder with nothing in it: a PATH without nats-server. */
let emptyPath: string;

beforeAll(async () => {
  fake = await startFakeOpenAI({});
  const bin = mkdtempSync(path.join(os.tmpdir(), 'junction-doctor-bin-'));
  writeFileSync(path.join(bin, 'nats-server'), '#!/bin/sh\nexit 0\n');
  chmodSync(path.join(bin, 'nats-server'), 0o755);
  natsPath = `${bin}${path.delimiter}${process.env.PATH ?? ''}`;
  emptyPath = mkdtempSync(path.join(os.tmpdir(), 'junction-doctor-empty-'));
});

afterAll(async () => {
  await fake.close();
});

/** Free ports for the three listeners, as the environment variables that set them. */
async function freePorts(): Promise<NodeJS.ProcessEnv> {
  return {
    JUNCTION_API_PORT: String(await freePort()),
    JUNCTION_MCP_PORT: String(await freePort()),
    JUNCTION_WEBHOOK_PORT: String(await freePort()),
  };
}

/** The text line of a check: status, name, message. */
function line(result: CliResult, status: string, name: string): string | undefined {
  return result.stdout
    .split('\n')
    .find((l) => new RegExp(`^${status}\\s+${name.replace(/ /g, '\\s')}\\s{2}`).test(l));
}

function parseJson(result: CliResult): { checks: Check[]; ok: boolean } {
  const report = JSON.parse(result.stdout) as { checks: Check[]; ok: boolean };
  expect(typeof report.ok).toBe('boolean');
  expect(Array.isArray(report.checks)).toBe(true);
  for (const check of report.checks) {
    expect(Object.keys(check).sort()).toEqual(['message', 'name', 'status']);
    expect(['ok', 'warn', 'fail']).toContain(check.status);
    expect(typeof check.name).toBe('string');
    expect(typeof check.message).toBe('string');
  }
  expect(report.ok).toBe(report.checks.every((c) => c.status !== 'fail'));
  return report;
}

describe('junction doctor', () => {
  it('a healthy workspace: every check ok, exit 0, the key never printed, no model called', async () => {
    const env = await syncedWorkspace({
      modelUrl: fake.url,
      prompt: MODEL_PROMPT,
      env: { OPENAI_API_KEY: KEY, PATH: natsPath, ...(await freePorts()) },
    });
    const before = fake.requests.length;
    const result = await runCliAsync(['doctor'], env);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(line(result, 'ok', 'config')).toContain('config.yaml is valid');
    expect(line(result, 'ok', 'store')).toMatch(/opened and migrated \(\d+ migrations, latest /);
    expect(line(result, 'ok', 'models')).toContain('can run: openai/gpt-test');
    expect(line(result, 'ok', 'tools default')).toMatch(/started calc \(\d+ tools\)/);
    for (const name of ['port api', 'port mcp', 'port webhook'])
      expect(line(result, 'ok', name)).toContain('is free');
    expect(line(result, 'ok', 'nats-server')).toContain(
      path.join(natsPath.split(path.delimiter)[0] as string, 'nats-server'),
    );
    expect(result.stdout.split('\n').filter((l) => l !== '')).toHaveLength(8);
    expect(result.stdout + result.stderr).not.toContain(KEY);
    expect(fake.requests.length).toBe(before);

    const json = await runCliAsync(['doctor', '--json'], env);
    expect(json.status).toBe(0);
    const report = parseJson(json);
    expect(report.ok).toBe(true);
    expect(report.checks.map((c) => c.name)).toEqual([
      'config',
      'store',
      'models',
      'tools default',
      'port api',
      'port mcp',
      'port webhook',
      'nats-server',
    ]);
    expect(json.stdout).not.toContain(KEY);
  }, 90_000);

  it('an agent whose provider key is missing: fail naming the agent, the model and OPENAI_API_KEY; exit 1', async () => {
    const env = await syncedWorkspace({
      modelUrl: fake.url,
      prompt: MODEL_PROMPT,
      env: { PATH: natsPath, ...(await freePorts()) },
    });
    const result = await runCliAsync(['doctor'], env);
    expect(result.status).toBe(1);
    const fail = line(result, 'fail', 'models');
    expect(fail).toContain('agent "assistant" (environment default)');
    expect(fail).toContain('openai/gpt-test');
    expect(fail).toContain('OPENAI_API_KEY');
    expect(result.stderr).toContain('1 check failed');
    // The other checks still ran.
    expect(line(result, 'ok', 'tools default')).toBeDefined();
    expect(line(result, 'ok', 'port api')).toBeDefined();

    const json = await runCliAsync(['doctor', '--json'], env);
    expect(json.status).toBe(1);
    const report = parseJson(json);
    expect(report.ok).toBe(false);
    expect(report.checks.filter((c) => c.status === 'fail')).toEqual([
      expect.objectContaining({
        name: 'models',
        message: expect.stringContaining('OPENAI_API_KEY'),
      }),
    ]);
  }, 90_000);

  it('a template with an undefined variable, one of invalid JSON and a server that cannot start: each fails', async () => {
    const env = await syncedWorkspace({
      modelUrl: fake.url,
      env: { OPENAI_API_KEY: KEY, PATH: natsPath, ...(await freePorts()) },
    });
    const environments = path.join(env.XDG_CONFIG_HOME as string, 'junction', 'environments');
    const write = (environment: string, file: string, text: string): void => {
      mkdirSync(path.join(environments, environment, 'agents'), { recursive: true });
      writeFileSync(path.join(environments, environment, file), text);
    };
    write(
      'needsvar',
      'api.json',
      '{"mcpServers": {"api": {"command": "node", "args": ["{{ .DOCTOR_UNDEFINED_VAR }}"]}}}',
    );
    write('badjson', 'broken.json', '{"mcpServers": {"x": ');
    write(
      'deadserver',
      'dead.json',
      JSON.stringify({ mcpServers: { dead: { command: '/nonexistent/junction-doctor-server' } } }),
    );
    const result = await runCliAsync(['doctor', '--timeout', '10'], env);
    expect(result.status).toBe(1);
    expect(line(result, 'fail', 'tools needsvar')).toContain('DOCTOR_UNDEFINED_VAR');
    expect(line(result, 'fail', 'tools badjson')).toContain('broken.json');
    expect(line(result, 'fail', 'tools deadserver')).toContain(
      'server dead (dead.json) did not start',
    );
    expect(line(result, 'ok', 'tools default')).toBeDefined();
    expect(result.stderr).toContain('3 checks failed');
  }, 90_000);

  it('a port in use by another program fails naming how to move it; held by a serving Junction it is a warning', async () => {
    const ports = await freePorts();
    const env = await syncedWorkspace({
      modelUrl: fake.url,
      env: { OPENAI_API_KEY: KEY, PATH: natsPath, ...ports },
    });
    // Another program, not HTTP: it hangs up on every connection (doctor's /health probe too).
    const busy = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) =>
      busy.listen(Number(ports.JUNCTION_API_PORT), '127.0.0.1', () => resolve()),
    );
    try {
      const result = await runCliAsync(['doctor'], env);
      expect(result.status).toBe(1);
      const fail = line(result, 'fail', 'port api');
      expect(fail).toContain(`127.0.0.1:${ports.JUNCTION_API_PORT} (api.port, REST API) is in use`);
      expect(fail).toContain('--api-port');
      // The whole report when it is not ok: a port found free can be taken by another process.
      expect({ mcp: line(result, 'ok', 'port mcp') ?? result.stdout }).toEqual({
        mcp: expect.stringMatching(/^ok/),
      });

      const json = await runCliAsync(['doctor', '--json'], env);
      expect(json.status).toBe(1);
      const report = parseJson(json);
      expect(report.checks.find((c) => c.name === 'port api')?.status).toBe('fail');
    } finally {
      await new Promise<void>((resolve) => busy.close(() => resolve()));
    }

    const serve = await startServe(env, {
      api: Number(ports.JUNCTION_API_PORT),
      mcp: Number(ports.JUNCTION_MCP_PORT),
      webhook: Number(ports.JUNCTION_WEBHOOK_PORT),
    });
    try {
      await serve.ready;
      const result = await runCliAsync(['doctor'], env);
      expect(result.status).toBe(0);
      for (const name of ['port api', 'port mcp', 'port webhook'])
        expect(line(result, 'warn', name)).toMatch(/is in use by the Junction \S+ serving here/);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exit;
    }
  }, 120_000);

  it('a broken config.yaml fails with the loader message; the checks that need it are skipped', async () => {
    const home = tempConfigHome();
    const env = { XDG_CONFIG_HOME: home, PATH: emptyPath };
    expect((await runCliAsync(['init'], env)).status).toBe(0);
    writeFileSync(path.join(home, 'junction', 'config.yaml'), 'api:\n  port: not-a-port\n');
    const result = await runCliAsync(['doctor'], env);
    expect(result.status).toBe(1);
    expect(line(result, 'fail', 'config')).toContain(
      'api.port: expected a port number between 1 and 65535, got "not-a-port"',
    );
    for (const name of ['store', 'models', 'tools', 'ports'])
      expect(line(result, 'warn', name)).toContain('skipped: it needs the config');

    const json = await runCliAsync(['doctor', '--json'], env);
    expect(json.status).toBe(1);
    expect(parseJson(json).checks[0]).toMatchObject({ name: 'config', status: 'fail' });
  }, 180_000);

  it('nats-server missing where the coding bus would look is a warn naming how to get it', async () => {
    const home = tempConfigHome();
    const env = { XDG_CONFIG_HOME: home, PATH: emptyPath, ...(await freePorts()) };
    expect((await runCliAsync(['init'], env)).status).toBe(0);
    // The bus looks on the PATH and in /usr/sbin unless told where: here it is told, wrongly.
    writeFileSync(
      path.join(home, 'junction', 'config.yaml'),
      'coding:\n  nats:\n    server_path: /nowhere/nats-server\n',
    );
    const result = await runCliAsync(['doctor'], env);
    expect(line(result, 'warn', 'nats-server')).toContain('not found');
    expect(line(result, 'warn', 'nats-server')).toContain('apt-get install nats-server');
  }, 180_000);
});
