// startWebhookServer in-process: /health for probes (200 while the store answers, 503 when it
// cannot), the webhook routes behind it, and a stop that releases the port.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { openStore } from '@junction/store';
import { createLogger } from '@junction/telemetry';
import { createHealthRoute, ServiceError as WebhookServerError } from '@junction/service-kit';
import { startWebhookServer } from '../src/index.js';

let home: string;
let logs: string[] = [];
const logStream = new Writable({
  write(chunk: Buffer, _enc, done): void {
    logs.push(chunk.toString());
    done();
  },
});

beforeAll(() => {
  home = mkdtempSync(path.join(os.tmpdir(), 'junction-webhook-'));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function envWith(extra: NodeJS.ProcessEnv = {}): Promise<NodeJS.ProcessEnv> {
  logs = [];
  return {
    HOME: home,
    XDG_CONFIG_HOME: home,
    JUNCTION_DATABASE_URL: `file:${path.join(home, 'junction.db')}`,
    JUNCTION_WEBHOOK_PORT: String(await freePort()),
    JUNCTION_DRAIN_SECONDS: '0',
    ...extra,
  };
}

describe('startWebhookServer', () => {
  it('answers /health with the version, the uptime and the database state, without a key', async () => {
    const env = await envWith({
      JUNCTION_WEBHOOK_ENABLED: 'true',
      JUNCTION_WEBHOOK_API_KEY: 'k-123456',
    });
    const server = await startWebhookServer(env, { logStream });
    try {
      const url = `http://127.0.0.1:${server.ports.webhook}`;
      const res = await fetch(`${url}/health`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.json()).toEqual({
        status: 'healthy',
        version: server.version,
        uptime: expect.stringMatching(/^\d+s$/),
        database: 'ok',
      });
      // The webhook routes sit behind it, with their key.
      expect((await fetch(`${url}/runs/1`)).status).toBe(401);
      const missing = await fetch(`${url}/runs/1`, {
        headers: { authorization: 'Bearer k-123456' },
      });
      expect(missing.status).toBe(404);
      expect(((await missing.json()) as { error: { code: string } }).error.code).toBe(
        'RUN_NOT_FOUND',
      );
    } finally {
      await server.stop();
    }
  });

  it('has no POST /execute unless JUNCTION_WEBHOOK_ENABLED is true, and says so in the log', async () => {
    const server = await startWebhookServer(await envWith(), { logStream });
    try {
      const res = await fetch(`http://127.0.0.1:${server.ports.webhook}/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ agent_name: 'a', task: 't' }),
      });
      expect(res.status).toBe(404);
      const records = logs.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(records).toContainEqual(
        expect.objectContaining({
          level: 'warn',
          msg: 'POST /execute is disabled: set JUNCTION_WEBHOOK_ENABLED=true to accept runs',
          service: 'junction-webhook-server',
        }),
      );
    } finally {
      await server.stop();
    }
  });

  it('stops accepting on stop() and releases the port; stop() is idempotent', async () => {
    const server = await startWebhookServer(await envWith(), { logStream });
    await Promise.all([server.stop(), server.stop()]);
    await expect(fetch(`http://127.0.0.1:${server.ports.webhook}/health`)).rejects.toThrow();
    const again = http.createServer();
    await new Promise<void>((resolve, reject) => {
      again.once('error', reject);
      again.listen(server.ports.webhook, '127.0.0.1', () => resolve());
    });
    await new Promise((resolve) => again.close(resolve));
    expect(logs.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(
      expect.arrayContaining(['serving', 'shutting down', 'stopped']),
    );
  });

  it('rejects with PORT_IN_USE naming JUNCTION_WEBHOOK_PORT when the port is taken', async () => {
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', () => resolve()));
    const { port } = busy.address() as net.AddressInfo;
    try {
      const failure = await startWebhookServer(
        await envWith({ JUNCTION_WEBHOOK_PORT: String(port) }),
        { logStream },
      ).catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(WebhookServerError);
      expect(failure).toMatchObject({
        code: 'PORT_IN_USE',
        message: `Port ${port} (webhook routes) is already in use on 127.0.0.1. Stop the process that holds it, or set JUNCTION_WEBHOOK_PORT to another port.`,
      });
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  });
});

describe('GET /health', () => {
  it('is 503 with the reason when the database cannot be reached', async () => {
    const store = await openStore({ url: ':memory:' });
    await store.close();
    const logger = createLogger({ stream: logStream, env: {} });
    const app = express();
    app.get(
      '/health',
      createHealthRoute({
        store,
        version: '9.9.9',
        startedAt: new Date(Date.now() - 65_000),
        logger,
      }),
    );
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as net.AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as Record<string, string>;
      expect(body).toMatchObject({ status: 'unhealthy', version: '9.9.9', uptime: '1m 5s' });
      expect(body.database).not.toBe('ok');
      expect(body.database!.length).toBeGreaterThan(0);
    } finally {
      server.close();
      await logger.close();
    }
  });

  it('is 503 when the database does not answer within the timeout', async () => {
    const logger = createLogger({ stream: logStream, env: {} });
    const hanging = { ping: (): Promise<void> => new Promise<void>(() => undefined) };
    const app = express();
    app.get(
      '/health',
      createHealthRoute({
        store: hanging,
        version: '1',
        startedAt: new Date(),
        logger,
        timeoutMs: 50,
      }),
    );
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as net.AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({
        status: 'unhealthy',
        database: 'the database did not answer within 50 ms',
      });
    } finally {
      server.close();
      await logger.close();
    }
  });
});
