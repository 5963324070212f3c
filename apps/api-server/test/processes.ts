// Child processes for the app tests: the built entry points and the junction CLI, always
// spawned asynchronously (the test process may be serving a fake model at the same time).
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const apiServerMain = path.join(repoRoot, 'apps/api-server/dist/main.js');
export const webhookServerMain = path.join(repoRoot, 'apps/webhook-server/dist/main.js');
export const cliBin = path.join(repoRoot, 'apps/cli/bin/run.js');

/** pnpm as the tests run under it (`npm_execpath` when pnpm started them), else from PATH. */
function pnpmCommand(): { command: string; args: string[] } {
  const exec = process.env.npm_execpath;
  if (exec && path.basename(exec).startsWith('pnpm')) {
    return { command: process.execPath, args: [exec] };
  }
  return { command: 'pnpm', args: [] };
}

/**
 * Makes the folder a container image ships: `pnpm --filter <pkg> --prod deploy --legacy <out>`,
 * exactly the last step of the app's Dockerfile build stage (the app's dist/ and
 * package.json, with production dependencies only). Answers the path of its main script.
 */
export async function deployApp(pkg: string, out: string): Promise<string> {
  const { command, args } = pnpmCommand();
  const child = spawn(command, [...args, '--filter', pkg, '--prod', 'deploy', '--legacy', out], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) throw new Error(`pnpm deploy of ${pkg} failed (exit ${code}):\n${output}`);
  return path.join(out, 'dist/main.js');
}

export { freePorts } from '@junction/tooling/fixtures/free-port.mjs';

/** Holds a port until `close()`, so a server started on it finds it in use. */
export async function occupyPort(): Promise<{ port: number; close(): Promise<void> }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface AppProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** stdout parsed as JSON lines (every line must be JSON). */
  logs(): Array<Record<string, unknown>>;
  exited: Promise<Exit>;
  /** Sends `signal` and waits for the exit (SIGKILL after `timeoutMs`). */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<Exit>;
}

/** Runs `node <script> ...args` with only `env` (plus PATH). */
export function startProcess(
  script: string,
  env: NodeJS.ProcessEnv,
  args: string[] = [],
): AppProcess {
  const child = spawn(process.execPath, [script, ...args], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<Exit>((resolve) => {
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    logs: () =>
      out
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 20_000): Promise<Exit> {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const exit = await exited;
      clearTimeout(timer);
      return exit;
    },
  };
}

/** Runs the junction CLI to completion. */
export async function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ exit: Exit; stdout: string; stderr: string }> {
  const cli = startProcess(cliBin, env, args);
  const timer = setTimeout(() => cli.child.kill('SIGKILL'), 60_000);
  const exit = await cli.exited;
  clearTimeout(timer);
  return { exit, stdout: cli.stdout(), stderr: cli.stderr() };
}

/** Polls `url` until it answers 200; fails early when `app` exits first. */
export async function waitForHealthy(
  url: string,
  app: AppProcess,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited: Exit | undefined;
  void app.exited.then((exit) => (exited = exit));
  while (Date.now() < deadline) {
    if (exited) {
      throw new Error(
        `the process exited (${JSON.stringify(exited)}) before ${url} was healthy:\n${app.stderr()}\n${app.stdout()}`,
      );
    }
    try {
      const res = await fetch(url);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(
    `${url} was not healthy within ${timeoutMs} ms:\n${app.stderr()}\n${app.stdout()}`,
  );
}

/** Polls `read` until `done` holds for its result. */
export async function pollUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  while (!done(last)) {
    if (Date.now() > deadline) {
      throw new Error(
        `condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(last)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await read();
  }
  return last;
}
