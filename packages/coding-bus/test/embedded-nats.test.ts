// The embedded bus with a real nats-server (Debian's package): started with JetStream on
// 127.0.0.1, started again when killed, stopped cleanly; clear errors when it cannot run;
// `Failed to create NATS backend` when no bus can be had, without taking Junction down.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { connect } from '@nats-io/transport-node';
import { freePort } from '@junction/tooling/fixtures/free-port.mjs';
import { createNoopLogger, type Logger } from '@junction/telemetry';
import { EmbeddedNats } from '../src/embedded-nats.js';
import { findNatsServer } from '../src/index.js';
import { openCodingBus, type CodingBus } from '../src/nats.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'junction-nats-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A logger that keeps what it was told. */
function keepingLogger(): {
  logger: Logger;
  lines: Array<{ level: string; msg: string; fields: unknown }>;
} {
  const lines: Array<{ level: string; msg: string; fields: unknown }> = [];
  const base = createNoopLogger();
  const at =
    (level: string) =>
    (msg: string, fields?: unknown): void => {
      lines.push({ level, msg, fields });
    };
  const logger: Logger = {
    ...base,
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    child: () => logger,
  };
  return { logger, lines };
}

/** A JetStream account-info request: answers only when JetStream is on. */
async function jetStreamInfo(url: string): Promise<Record<string, unknown>> {
  const nc = await connect({ servers: url });
  try {
    const reply = await nc.request('$JS.API.INFO', '', { timeout: 2000 });
    return reply.json<Record<string, unknown>>();
  } finally {
    await nc.close();
  }
}

async function until(
  what: string,
  fn: () => Promise<boolean> | boolean,
  ms = 15_000,
): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('findNatsServer', () => {
  it('finds Debian’s nats-server, honours a configured path, and says undefined for none', () => {
    expect(findNatsServer(undefined, { PATH: '/nowhere' })).toBe('/usr/sbin/nats-server');
    const dir = tempDir();
    const fake = path.join(dir, 'nats-server');
    writeFileSync(fake, '#!/bin/sh\n');
    chmodSync(fake, 0o755);
    expect(findNatsServer(undefined, { PATH: dir })).toBe(fake);
    expect(findNatsServer(fake)).toBe(fake);
    expect(findNatsServer(path.join(dir, 'missing'))).toBeUndefined();
  });
});

describe('EmbeddedNats', () => {
  it('starts with JetStream on 127.0.0.1, is started again when killed, and stops', async () => {
    const port = await freePort();
    const { logger, lines } = keepingLogger();
    const nats = new EmbeddedNats({ port, storeDir: tempDir(), logger, restartDelayMs: 100 });
    cleanups.push(() => nats.stop());
    await nats.start();
    expect(nats.url).toBe(`nats://127.0.0.1:${port}`);
    expect(await jetStreamInfo(nats.url)).toMatchObject({
      type: 'io.nats.jetstream.api.v1.account_info_response',
    });

    // A client that stays connected through the restart.
    const nc = await connect({
      servers: nats.url,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 100,
    });
    cleanups.push(() => nc.close());
    // Wait for the events, not for time: the client says it reconnected once the server that
    // was started again is ready (a new pid alone is a server still starting).
    const reconnected = (async (): Promise<void> => {
      for await (const status of nc.status()) if (status.type === 'reconnect') return;
    })();
    const first = nats.pid!;
    process.kill(first, 'SIGKILL');
    await until('the server to say it was started again', () =>
      lines.some((l) => l.msg === 'embedded nats-server started again'),
    );
    await reconnected;
    expect(nats.pid).not.toBe(first);
    expect(nats.restarts).toBe(1);
    expect(lines.some((l) => l.level === 'warn' && l.msg.includes('starting it again'))).toBe(true);
    const sub = nc.subscribe('probe.after.restart', { max: 1 });
    await nc.flush();
    nc.publish('probe.after.restart', 'hello');
    for await (const m of sub) expect(m.string()).toBe('hello');

    const pid = nats.pid!;
    await nats.stop();
    expect(() => process.kill(pid, 0)).toThrow();
    const probe = net.connect({ host: '127.0.0.1', port });
    await expect(
      new Promise((resolve, reject) => {
        probe.once('connect', () => resolve('listening'));
        probe.once('error', reject);
      }),
    ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  }, 180_000);

  it('says why it could not start: a port someone else holds', async () => {
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', () => r()));
    cleanups.push(() => new Promise<void>((r) => holder.close(() => r())));
    const { port } = holder.address() as net.AddressInfo;
    const nats = new EmbeddedNats({ port, storeDir: tempDir(), logger: createNoopLogger() });
    cleanups.push(() => nats.stop());
    await expect(nats.start()).rejects.toMatchObject({
      code: 'NATS_SERVER_FAILED',
      message: expect.stringMatching(/did not start on 127\.0\.0\.1:\d+: .*address already in use/),
    });
  });

  it('without a nats-server: NATS_SERVER_MISSING says how to get one', () => {
    expect(
      () =>
        new EmbeddedNats({
          port: 4222,
          storeDir: tempDir(),
          logger: createNoopLogger(),
          serverPath: '/nowhere/nats-server',
        }),
    ).toThrow(expect.objectContaining({ code: 'NATS_SERVER_MISSING' }));
  });
});

describe('openCodingBus', () => {
  it('runs its own server when the loopback port is free, and connects to it', async () => {
    const port = await freePort();
    const bus = await openCodingBus({
      url: `nats://127.0.0.1:${port}`,
      storeDir: tempDir(),
      logger: createNoopLogger(),
    });
    cleanups.push(() => bus.close());
    expect(bus.ok).toBe(true);
    const ok = bus as Extract<CodingBus, { ok: true }>;
    expect(ok.embedded?.pid).toEqual(expect.any(Number));
    const reply = ok.connection.subscribe('svc.coding.task', { max: 1 });
    ok.connection.publish('svc.coding.task', '{"taskID":"t1"}');
    for await (const m of reply) expect(m.json()).toEqual({ taskID: 't1' });
  });

  it('uses a server that already listens there instead of starting one', async () => {
    const port = await freePort();
    const other = new EmbeddedNats({ port, storeDir: tempDir(), logger: createNoopLogger() });
    cleanups.push(() => other.stop());
    await other.start();
    const bus = await openCodingBus({
      url: `nats://127.0.0.1:${port}`,
      storeDir: tempDir(),
      logger: createNoopLogger(),
    });
    cleanups.push(() => bus.close());
    expect(bus.ok).toBe(true);
    expect((bus as Extract<CodingBus, { ok: true }>).embedded).toBeUndefined();
  });

  it('an unreachable bus: logs "Failed to create NATS backend" with the reason, keeps the password out, and does not throw', async () => {
    const port = await freePort();
    const { logger, lines } = keepingLogger();
    const bus = await openCodingBus({
      url: `nats://user:s3cret-pass@192.0.2.1:${port}`,
      storeDir: tempDir(),
      logger,
    });
    expect(bus.ok).toBe(false);
    const failure = bus as Extract<CodingBus, { ok: false }>;
    expect(failure.error.code).toBe('NATS_UNREACHABLE');
    const logged = lines.find((l) => l.msg.startsWith('Failed to create NATS backend'));
    expect(logged?.level).toBe('error');
    expect(logged?.msg).toContain('nats://user:[REDACTED]@192.0.2.1');
    expect(JSON.stringify(lines)).not.toContain('s3cret-pass');
    expect(failure.error.message).not.toContain('s3cret-pass');
  }, 180_000);
});
