// The installable CLI: scripts/pack-cli.sh makes one self-contained tarball (every dependency,
// the workspace packages included, bundled); `npm install -g` installs it offline with an empty
// npm cache, and the installed `junction` answers --version, init and env list --json from a
// folder outside the repository, on a PATH of its own bin folder and node's only.
import { spawn } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CliResult } from './run-cli.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const { version } = JSON.parse(readFileSync(path.join(repo, 'apps/cli/package.json'), 'utf8')) as {
  version: string;
};

/** Runs `command args` in `cwd` with exactly `env`, killed after `timeoutMs`. */
function run(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

let tmp: string;
let tarball: string;
let prefix: string;
let home: string;
let cwd: string;
let junctionEnv: NodeJS.ProcessEnv;

function junction(args: string[]): Promise<CliResult> {
  return run(path.join(prefix, 'bin', 'junction'), args, { cwd, env: junctionEnv });
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'junction-packed-'));
  prefix = path.join(tmp, 'prefix');
  home = path.join(tmp, 'home');
  cwd = path.join(tmp, 'elsewhere');
  for (const dir of [home, cwd]) mkdirSync(dir);

  const pack = await run('bash', ['scripts/pack-cli.sh', path.join(tmp, 'out')], {
    cwd: repo,
    env: process.env,
    timeoutMs: 200_000,
  });
  if (pack.status !== 0) throw new Error(`pack-cli.sh failed (${pack.status}): ${pack.stderr}`);
  tarball = pack.stdout.trim().split('\n').pop() ?? '';

  // Offline, with an empty cache and a registry nobody answers: only what is bundled installs.
  const install = await run(
    'npm',
    [
      'install',
      '-g',
      '--prefix',
      prefix,
      '--cache',
      path.join(tmp, 'npm-cache'),
      '--registry',
      'http://127.0.0.1:9/',
      '--offline',
      '--no-audit',
      '--no-fund',
      '--no-update-notifier',
      tarball,
    ],
    { cwd: tmp, env: { PATH: process.env.PATH, HOME: home }, timeoutMs: 200_000 },
  );
  if (install.status !== 0) {
    throw new Error(
      `npm install -g failed (${install.status}): ${install.stdout}${install.stderr}`,
    );
  }

  junctionEnv = {
    PATH: [path.join(prefix, 'bin'), path.dirname(process.execPath)].join(path.delimiter),
    HOME: home,
    XDG_CONFIG_HOME: home,
  };
}, 300_000);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('the packed junction CLI', () => {
  it('is one tarball in the given folder, junction-<version>.tgz, of a sane size', () => {
    expect(realpathSync(tarball)).toBe(
      realpathSync(path.join(tmp, 'out', `junction-${version}.tgz`)),
    );
    const size = statSync(tarball).size;
    expect(size).toBeGreaterThan(1_000_000);
    expect(size).toBeLessThan(80_000_000);
  });

  it('installs as real folders: the workspace packages and the libsql binary are inside', () => {
    const lib = path.join(prefix, 'lib', 'node_modules', 'junction');
    const bundled = path.join(lib, 'node_modules');
    expect(lstatSync(lib).isSymbolicLink()).toBe(false);
    for (const name of ['store', 'agent-core', 'config-templates', 'service-kit']) {
      const dir = path.join(bundled, '@junction', name);
      expect(lstatSync(dir).isDirectory()).toBe(true);
      expect(existsSync(path.join(dir, 'dist', 'index.js'))).toBe(true);
    }
    expect(existsSync(path.join(bundled, '@junction', 'store', 'drizzle'))).toBe(true);
    const libsql = path.join(bundled, '@libsql', `${process.platform}-${process.arch}`);
    const native = existsSync(libsql) ? libsql : `${libsql}-gnu`;
    expect(existsSync(path.join(native, 'index.node'))).toBe(true);
    // Nothing of the monorepo's development side came along.
    for (const dropped of ['src', 'test', 'reports', 'tsconfig.json']) {
      expect(existsSync(path.join(lib, dropped))).toBe(false);
    }
    expect(existsSync(path.join(lib, 'dist', 'index.js.map'))).toBe(false);
    // The manifest lets oclif load only the command that runs.
    const manifest = JSON.parse(readFileSync(path.join(lib, 'oclif.manifest.json'), 'utf8')) as {
      commands: Record<string, unknown>;
    };
    expect(Object.keys(manifest.commands)).toEqual(
      expect.arrayContaining(['env:list', 'agent:run']),
    );
  });

  it('junction --version prints the version', async () => {
    const r = await junction(['--version']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^junction/${version.replace(/\./g, '\\.')} `));
  });

  it('junction init creates the workspace under XDG_CONFIG_HOME', async () => {
    const r = await junction(['init']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(path.join(home, 'junction'));
    expect(existsSync(path.join(home, 'junction', 'config.yaml'))).toBe(true);
    expect(existsSync(path.join(home, 'junction', 'environments', 'default'))).toBe(true);
  });

  it('junction env list --json lists the default environment (the store opens)', async () => {
    const r = await junction(['env', 'list', '--json']);
    expect(r.status).toBe(0);
    const envs = JSON.parse(r.stdout) as Array<{ name: string }>;
    expect(envs).toEqual([expect.objectContaining({ name: 'default' })]);
    expect(existsSync(path.join(home, 'junction', 'junction.db'))).toBe(true);
  });
});
