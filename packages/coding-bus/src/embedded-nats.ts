// The embedded bus: a `nats-server` child (Debian's package) that Junction owns — started with
// JetStream on 127.0.0.1, waited for until it says it is ready, started again when it dies,
// stopped on shutdown.
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdirSync } from 'node:fs';
import path from 'node:path';
import { backoffDelay } from '@junction/errors';
import type { Logger } from '@junction/telemetry';
import { CodingBusError } from './errors.js';

/** Where Debian installs the server, looked at after the PATH. */
const DEBIAN_PATH = '/usr/sbin/nats-server';

/** The nats-server to run: `configured` when given, else on the PATH, else Debian's place. */
export function findNatsServer(
  configured?: string,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const runnable = (file: string): boolean => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (configured !== undefined) return runnable(configured) ? configured : undefined;
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir !== '' && runnable(path.join(dir, 'nats-server'))) return path.join(dir, 'nats-server');
  }
  return runnable(DEBIAN_PATH) ? DEBIAN_PATH : undefined;
}

export interface EmbeddedNatsOptions {
  /** TCP port on 127.0.0.1 (coding.nats.url's). */
  port: number;
  /** JetStream's storage folder (key-value buckets of sessions live there). */
  storeDir: string;
  logger: Logger;
  /** coding.nats.server_path; default: the PATH, then /usr/sbin. */
  serverPath?: string;
  /** How long a start may take to say it is ready. Default 10 s. */
  readyTimeoutMs?: number;
  /** First wait before starting a server that died again; doubled per failure, at most 30 s. Default 500 ms. */
  restartDelayMs?: number;
}

/** What the start of a server ended with. */
type Started = { ok: true } | { ok: false; reason: string };

/** A `nats-server` this process owns. */
export class EmbeddedNats {
  readonly url: string;
  readonly #o: EmbeddedNatsOptions;
  readonly #binary: string;
  #child: ChildProcess | undefined;
  #stopping = false;
  #restarts = 0;
  #restartTimer: NodeJS.Timeout | undefined;

  /** NATS_SERVER_MISSING when no nats-server can be found (says how to get one). */
  constructor(options: EmbeddedNatsOptions) {
    this.#o = options;
    this.url = `nats://127.0.0.1:${options.port}`;
    const binary = findNatsServer(options.serverPath);
    if (binary === undefined) {
      throw new CodingBusError(
        'NATS_SERVER_MISSING',
        options.serverPath !== undefined
          ? `coding.nats.server_path ${JSON.stringify(options.serverPath)} is not an executable nats-server; fix the path, or install it (apt-get install nats-server).`
          : 'No nats-server on the PATH or in /usr/sbin: install it (apt-get install nats-server), set coding.nats.server_path, or point coding.nats.url at a running NATS server.',
        { server_path: options.serverPath ?? null },
      );
    }
    this.#binary = binary;
  }

  /** The running server's process id, if one runs. */
  get pid(): number | undefined {
    return this.#child?.exitCode === null ? this.#child.pid : undefined;
  }

  /** How many times the server was started again after it died. */
  get restarts(): number {
    return this.#restarts;
  }

  /** Starts the server and resolves once it is ready; NATS_SERVER_FAILED with its reason otherwise. */
  async start(): Promise<void> {
    this.#stopping = false;
    const started = await this.#spawn();
    if (!started.ok) {
      throw new CodingBusError(
        'NATS_SERVER_FAILED',
        `The embedded nats-server (${this.#binary}) did not start on 127.0.0.1:${this.#o.port}: ${started.reason}. Free the port or set coding.nats.url to another one.`,
        { port: this.#o.port, reason: started.reason },
      );
    }
  }

  /** Stops the server (SIGTERM, then SIGKILL after 5 s) and waits for it to exit. */
  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#restartTimer) clearTimeout(this.#restartTimer);
    const child = this.#child;
    this.#child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }

  #spawn(): Promise<Started> {
    mkdirSync(this.#o.storeDir, { recursive: true, mode: 0o700 });
    const child = spawn(
      this.#binary,
      ['-a', '127.0.0.1', '-p', String(this.#o.port), '-js', '-sd', this.#o.storeDir],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    this.#child = child;
    let log = '';
    let ready = false;
    return new Promise<Started>((resolve) => {
      let settled = false;
      const settle = (result: Started): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const timer = setTimeout(
        () =>
          settle({ ok: false, reason: `not ready after ${this.#o.readyTimeoutMs ?? 10_000} ms` }),
        this.#o.readyTimeoutMs ?? 10_000,
      );
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
        if (!settled) log += chunk;
        if (!ready && log.includes('Server is ready')) {
          ready = true;
          settle({ ok: true });
        }
      });
      child.on('error', (err) => settle({ ok: false, reason: err.message }));
      child.once('exit', (code, signal) => {
        const last = log
          .split('\n')
          .filter((line) => /\[(FTL|ERR)\]/.test(line))
          .map((line) => line.replace(/^.*\[(FTL|ERR)\]\s*/, ''))
          .at(-1);
        if (!ready)
          settle({ ok: false, reason: last ?? `it exited (${signal ?? `code ${code}`})` });
        // Once ready, an exit nobody asked for is a death: it is started again.
        else if (this.#child === child) this.#died(code, signal);
      });
    }).then((result) => {
      if (!result.ok && child.exitCode === null) child.kill('SIGKILL');
      return result;
    });
  }

  /** The server died under us: start it again, waiting longer after each failure. */
  #died(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#stopping) return;
    this.#child = undefined;
    const delay = backoffDelay(this.#restarts, {
      firstMs: this.#o.restartDelayMs ?? 500,
      maxMs: 30_000,
    });
    this.#o.logger.warn('embedded nats-server exited; starting it again', {
      code,
      signal,
      port: this.#o.port,
      in_ms: delay,
    });
    this.#restartTimer = setTimeout(() => {
      if (this.#stopping) return;
      this.#restarts += 1;
      void this.#spawn().then((started) => {
        if (started.ok) {
          this.#o.logger.info('embedded nats-server started again', { port: this.#o.port });
        } else {
          this.#o.logger.error('embedded nats-server did not start again', {
            port: this.#o.port,
            reason: started.reason,
          });
          this.#died(null, null);
        }
      });
    }, delay);
    this.#restartTimer.unref();
  }
}
