// `junction serve` as a child process on free ports, for tests.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { baseEnv } from './run-cli.js';
import { eventually } from '@junction/tooling/fixtures/eventually.mjs';
import { freePort } from '@junction/tooling/fixtures/free-port.mjs';

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bin/run.js');

export { freePort };

export interface ServeProcess {
  child: ChildProcess;
  ports: { api: number; mcp: number; webhook: number; receiver: number; viewer: number };
  /** Resolves with stdout once the service says it is serving. */
  ready: Promise<string>;
  exit: Promise<number | null>;
  stdout(): string;
  stderr(): string;
}

/** Starts `junction serve` with every port free (or as given) and `env` on top of PATH/HOME. */
export async function startServe(
  env: NodeJS.ProcessEnv,
  given: Partial<ServeProcess['ports']> = {},
  extraArgs: string[] = [],
): Promise<ServeProcess> {
  const ports = {
    api: given.api ?? (await freePort()),
    mcp: given.mcp ?? (await freePort()),
    webhook: given.webhook ?? (await freePort()),
    // The trace receiver and viewer on free ports too, so tests never meet on 4318 / 16686.
    receiver: given.receiver ?? (await freePort()),
    viewer: given.viewer ?? (await freePort()),
  };
  const child = spawn(
    process.execPath,
    [
      bin,
      'serve',
      '--api-port',
      String(ports.api),
      '--mcp-port',
      String(ports.mcp),
      '--webhook-port',
      String(ports.webhook),
      '--receiver-port',
      String(ports.receiver),
      '--viewer-port',
      String(ports.viewer),
      ...extraArgs,
    ],
    { env: { ...baseEnv(), ...env } },
  );
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const ready = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${out} ${err}`)), 30_000);
    child.stdout!.on('data', () => {
      if (out.includes('serving MCP')) {
        clearTimeout(timer);
        resolve(out);
      }
    });
    child.on('exit', () => {
      clearTimeout(timer);
      reject(new Error(`serve exited: ${out} ${err}`));
    });
  });
  // A test that never awaits `ready` must not see an unhandled rejection when serve exits.
  ready.catch(() => undefined);
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, ports, ready, exit, stdout: () => out, stderr: () => err };
}

/** Asks `fn` until it gives a value; fails naming `what` only on a hang (`ms` only lengthens). */
export async function until<T>(
  what: string,
  fn: () => Promise<T | undefined>,
  ms?: number,
): Promise<T> {
  return eventually(what, fn, { everyMs: 100, ms });
}
