import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeAssistantWorkspace } from '@junction/tooling/fixtures/assistant-workspace.mjs';

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bin/run.js');

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * What every child keeps of this process's environment: PATH and HOME, the test run's own
 * TMPDIR (so what children make is removed with it), and the user's proxy and CA settings (npm
 * and HTTPS behind a proxy with its own CA fail without them).
 */
const KEPT = ['PATH', 'HOME', 'TMPDIR', 'NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR'];
const KEPT_PATTERN =
  /^(https?_proxy|no_proxy|npm_config_(cafile|ca|registry|proxy|https_proxy|noproxy|strict_ssl|userconfig))$/i;

/** The environment a child starts from, before the test's own variables. */
export function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (KEPT.includes(name) || KEPT_PATTERN.test(name)) env[name] = value;
  }
  return env;
}

/** Runs the built junction binary in a child process with its own environment. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): CliResult {
  const r = spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { ...baseEnv(), ...env },
    timeout: 180_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A fresh XDG_CONFIG_HOME so each test has its own workspace. */
export function tempConfigHome(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'junction-cli-'));
}

/**
 * Runs `command args` without blocking this process (needed when this process also serves a
 * fake); killed after `timeoutMs` (default 180 s, a hang guard).
 */
export function runAsync(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 180_000,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { ...baseEnv(), ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** Like runCli, without blocking this process (needed when this process also serves a fake). */
export function runCliAsync(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return runAsync(process.execPath, [bin, ...args], env);
}

/**
 * A fresh workspace whose default environment has the fixture MCP server (as `calc`) and an
 * `assistant` agent with `add`, talking to the fake model at `modelUrl`; synced. Returns its env.
 */
export async function syncedWorkspace(options: {
  modelUrl: string;
  env?: NodeJS.ProcessEnv;
  config?: string;
  prompt?: string;
  /** Flags of the fixture tool server (`--calls-file <path>`, …). */
  serverArgs?: string[];
}): Promise<NodeJS.ProcessEnv> {
  const home = tempConfigHome();
  const env = { XDG_CONFIG_HOME: home, ...options.env };
  const init = await runCliAsync(['init'], env);
  if (init.status !== 0) throw new Error(`junction init failed: ${init.stderr}`);
  writeAssistantWorkspace(path.join(home, 'junction'), options);
  const sync = await runCliAsync(['sync', 'default'], env);
  if (sync.status !== 0) throw new Error(`junction sync failed: ${sync.stdout} ${sync.stderr}`);
  return env;
}
