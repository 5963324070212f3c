import type http from 'node:http';
import net from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { ServiceError, envPortHint, listen, type PortHint } from '../src/index.js';

const ok: http.RequestListener = (_req, res) => res.end('ok');

/** Holds a port until `close()`, so a listener started on it finds it in use. */
async function occupyPort(): Promise<{ port: number; close(): Promise<void> }> {
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (holder.address() as net.AddressInfo).port,
    close: () => new Promise<void>((resolve) => holder.close(() => resolve())),
  };
}

/** Resolves once something can listen on `port` again. */
async function bindable(port: number): Promise<boolean> {
  const probe = net.createServer();
  return new Promise<boolean>((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

const cliHint: PortHint = {
  inUse: 'pick another port with --api-port <port> (or api.port in config.yaml)',
  otherwise: 'Check api.host in config.yaml.',
  details: { flag: '--api-port' },
};

describe('listen', () => {
  it('a port in use is PORT_IN_USE naming the port and the variable that changes it', async () => {
    const busy = await occupyPort();
    try {
      const failure = await listen(ok, {
        host: '127.0.0.1',
        port: busy.port,
        what: 'REST API',
        hint: envPortHint('JUNCTION_API_PORT'),
      }).catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(ServiceError);
      expect(failure).toMatchObject({
        code: 'PORT_IN_USE',
        message: `Port ${busy.port} (REST API) is already in use on 127.0.0.1. Stop the process that holds it, or set JUNCTION_API_PORT to another port.`,
        details: { host: '127.0.0.1', port: busy.port, variable: 'JUNCTION_API_PORT' },
      });
      expect((failure as ServiceError).cause).toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      await busy.close();
    }
  });

  it('a port in use ends with the hint it is given: the CLI names its flag and config key', async () => {
    const busy = await occupyPort();
    try {
      await expect(
        listen(ok, { host: '127.0.0.1', port: busy.port, what: 'REST API', hint: cliHint }),
      ).rejects.toMatchObject({
        code: 'PORT_IN_USE',
        message: `Port ${busy.port} (REST API) is already in use on 127.0.0.1. Stop the process that holds it, or pick another port with --api-port <port> (or api.port in config.yaml).`,
        details: { flag: '--api-port' },
      });
    } finally {
      await busy.close();
    }
  });

  it('an address this machine does not have is LISTEN_FAILED ending with the hint', async () => {
    // 192.0.2.0/24 is TEST-NET-1: never assigned to a local interface.
    const target = { host: '192.0.2.1', port: 0, what: 'webhook routes' };
    await expect(
      listen(ok, { ...target, hint: envPortHint('JUNCTION_WEBHOOK_PORT') }),
    ).rejects.toMatchObject({
      code: 'LISTEN_FAILED',
      message: expect.stringMatching(
        /^Cannot listen on 192\.0\.2\.1:0 \(webhook routes\): .+\. Check JUNCTION_HOST \(an address of this machine, or 0\.0\.0\.0\) and JUNCTION_WEBHOOK_PORT\.$/,
      ),
      details: { host: '192.0.2.1', port: 0, variable: 'JUNCTION_WEBHOOK_PORT' },
    });
    await expect(listen(ok, { ...target, hint: cliHint })).rejects.toMatchObject({
      code: 'LISTEN_FAILED',
      message: expect.stringMatching(/\. Check api\.host in config\.yaml\.$/),
    });
  });

  it('serves, and stop() releases the port; a second stop() is the same stop', async () => {
    const listening = await listen(ok, {
      host: '127.0.0.1',
      port: 0,
      what: 'REST API',
      hint: envPortHint('JUNCTION_API_PORT'),
    });
    expect(listening.port).toBeGreaterThan(0);
    const res = await fetch(`http://127.0.0.1:${listening.port}/`);
    expect(await res.text()).toBe('ok');
    expect(await bindable(listening.port)).toBe(false);
    const stopped = listening.stop(0);
    expect(listening.stop(0)).toBe(stopped);
    await stopped;
    expect(await bindable(listening.port)).toBe(true);
  });

  it('stop() drops a connection still busy once the grace period is over', async () => {
    let requests = 0;
    // The response never ends, so the connection stays busy until it is cut.
    const listening = await listen(
      () => {
        requests += 1;
      },
      { host: '127.0.0.1', port: 0, what: 'REST API', hint: envPortHint('JUNCTION_API_PORT') },
    );
    const pending = fetch(`http://127.0.0.1:${listening.port}/`).catch((err: unknown) => err);
    while (requests === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const started = Date.now();
    await listening.stop(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    // fetch's TypeError comes from another realm under jest, so it is told by its message.
    expect(await pending).toMatchObject({ message: 'fetch failed' });
    expect(await bindable(listening.port)).toBe(true);
  });
});
