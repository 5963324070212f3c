// `junction auth login | status | logout` against the fake platform: the key is checked by a
// registration, asked for without echo at a terminal (a real pseudo-terminal made by script(1)),
// read from --api-key or stdin, stored 0600, refused with a clear error, removed on logout.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  startFakePlatform,
  TLS_FILES,
  type FakePlatform,
} from '@junction/tooling/fixtures/fake-platform.mjs';
import { runAsync, runCliAsync, tempConfigHome, baseEnv } from './run-cli.js';

const KEY = 'plat-api-key-5550001';
const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bin/run.js');

let platform: FakePlatform;

beforeAll(async () => {
  platform = await startFakePlatform({ keys: { [KEY]: { orgId: 'org-auth' } } });
});

afterAll(async () => {
  await platform.stop();
});

/** A workspace whose config names the fake platform (management itself stays off). */
async function workspace(extra = ''): Promise<{ env: NodeJS.ProcessEnv; home: string }> {
  const base = tempConfigHome();
  const env = { XDG_CONFIG_HOME: base };
  const init = await runCliAsync(['init'], env);
  expect(init.status).toBe(0);
  const home = path.join(base, 'junction');
  writeFileSync(
    path.join(home, 'config.yaml'),
    `management:\n  endpoint: 127.0.0.1:${platform.port}\n  ca_file: ${TLS_FILES.ca}\n  name: auth-station\n${extra}`,
  );
  return { env, home };
}

/** Runs the CLI with `input` on stdin (a pipe). */
function withStdin(args: string[], env: NodeJS.ProcessEnv, input: string) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...baseEnv(), ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('junction auth login', () => {
  it('checks a key given with --api-key against the platform and stores it 0600', async () => {
    const { env, home } = await workspace();
    const before = platform.auths.length;
    const r = await runCliAsync(['auth', 'login', '--api-key', KEY], env);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`Logged in to 127.0.0.1:${platform.port} (organization org-auth).`);
    expect(r.stdout).toContain('Set management.enabled: true');
    expect(r.stdout + r.stderr).not.toContain(KEY);
    // The check was a registration, under a name that cannot replace the running station.
    expect(platform.auths.slice(before).map((a) => a.auth?.name)).toEqual([
      'auth-station (auth login)',
    ]);
    const file = path.join(home, 'management-login.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({
      api_key: KEY,
      org_id: 'org-auth',
    });
    const status = await runCliAsync(['auth', 'status', '--json'], env);
    expect(JSON.parse(status.stdout)).toMatchObject({
      connected: false,
      key_source: 'login',
      organization: 'org-auth',
    });
    const out = await runCliAsync(['auth', 'logout'], env);
    expect(out.status).toBe(0);
    expect(out.stdout).toContain(`Logged out: removed the stored key ${file}.`);
    expect(existsSync(file)).toBe(false);
    const again = await runCliAsync(['auth', 'logout', '--json'], env);
    expect(JSON.parse(again.stdout)).toMatchObject({ removed: false });
  });

  it('reads the key from stdin in a script', async () => {
    const { env, home } = await workspace();
    const r = await withStdin(['auth', 'login', '--json'], env, `${KEY}\n`);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      organization: 'org-auth',
      file: path.join(home, 'management-login.json'),
      config_key_wins: false,
    });
  });

  it('prompts at a terminal without echoing the key', async () => {
    const { env, home } = await workspace();
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} auth login`;
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: { ...baseEnv(), TERM: 'dumb', ...env },
    });
    let seen = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (seen += d));
    const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const deadline = Date.now() + 20_000;
    while (!seen.includes('Platform API key:')) {
      if (Date.now() > deadline) throw new Error(`no prompt: ${seen}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    // Typed after the prompt, as a person would: the terminal is raw and silent by then.
    child.stdin.write(`${KEY}\r`);
    expect(await exit).toBe(0);
    expect(seen).toContain('Logged in to');
    expect(seen).not.toContain(KEY);
    expect(
      JSON.parse(readFileSync(path.join(home, 'management-login.json'), 'utf8')),
    ).toMatchObject({
      api_key: KEY,
    });
  });

  it('refuses a key the platform refuses, storing nothing', async () => {
    const { env, home } = await workspace();
    const r = await runCliAsync(['auth', 'login', '--api-key', 'plat-wrong-key-000'], env);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(
      `Error [MANAGEMENT_KEY_REFUSED]: failed to connect to 127.0.0.1:${platform.port}: the platform refused the registration key`,
    );
    expect(existsSync(path.join(home, 'management-login.json'))).toBe(false);
  });

  it('says when the platform cannot be reached', async () => {
    const { env } = await workspace();
    const r = await runCliAsync(
      ['auth', 'login', '--api-key', KEY, '--endpoint', '127.0.0.1:1', '--json'],
      env,
    );
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      error: {
        code: 'MANAGEMENT_UNREACHABLE',
        message: expect.stringContaining(
          'failed to connect to 127.0.0.1:1: network: connection refused',
        ),
      },
    });
  });

  it('says what to set when no platform is configured', async () => {
    const base = tempConfigHome();
    const env = { XDG_CONFIG_HOME: base };
    await runCliAsync(['init'], env);
    const r = await runAsync(process.execPath, [bin, 'auth', 'login', '--api-key', KEY], env);
    expect(r.status).toBe(3);
    expect(r.stderr).toContain('management.endpoint is not set');
    expect(r.stderr).toContain('--endpoint');
  });

  it('says the config key wins when both exist', async () => {
    const { env } = await workspace('  registration_key: reg-config-key-0000\n');
    const r = await runCliAsync(['auth', 'login', '--api-key', KEY], env);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('management.registration_key in config.yaml');
    expect(r.stdout).toContain('wins over the stored key');
    const status = await runCliAsync(['auth', 'status', '--json'], env);
    expect(JSON.parse(status.stdout)).toMatchObject({ key_source: 'config' });
  });
});
