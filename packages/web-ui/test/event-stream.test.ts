// Following the runs stream and calling the API over real HTTP (Node's fetch against express):
// the Bearer key goes along, events arrive whatever the chunking, a dropped stream reconnects,
// a 401 or another client error stops, and API errors carry the server's code and message.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import { ApiClient, ApiError, storageKeyStore, type StorageLike } from '../app/api.js';
import { followEventStream, type StreamState } from '../app/event-stream.js';
import type { SseMessage } from '../app/sse-parser.js';

let server: Server;
let origin: string;
let connections = 0;
const authSeen: Array<string | undefined> = [];

beforeAll(async () => {
  const app = express();
  app.get('/flaky', (req, res) => {
    connections += 1;
    authSeen.push(req.headers.authorization);
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' });
    // Split mid-line across writes, then drop the connection: the client must come back.
    res.write(': hello\n\nevent: runs\nda');
    setTimeout(() => {
      res.write(`ta: {"n":${connections}}\n\n`);
      res.end();
    }, 20);
  });
  app.get('/silent', (_req, res) => {
    connections += 1;
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    res.write(': nothing more\n\n');
  });
  app.get('/locked', (_req, res) => {
    res.status(401).json({ error: { code: 'UNAUTHORIZED', message: 'Send the API key.' } });
  });
  app.get('/gone', (_req, res) => {
    res.status(404).json({ error: { code: 'NOT_FOUND', message: 'No such route.' } });
  });
  app.get('/api/v1/runs/404', (_req, res) => {
    res.status(404).json({
      error: { code: 'RUN_NOT_FOUND', message: 'No run has id 404.', details: { run_id: 404 } },
    });
  });
  app.get('/api/v1/html', (_req, res) => {
    res.status(502).type('text/html').send('<h1>Bad gateway</h1>');
  });
  app.post('/api/v1/echo', express.json(), (req, res) => {
    res.status(202).json({ body: req.body, auth: req.headers.authorization ?? null });
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function memoryStorage(): StorageLike & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (k) => items.get(k) ?? null,
    setItem: (k, v) => void items.set(k, v),
    removeItem: (k) => void items.delete(k),
  };
}

describe('followEventStream', () => {
  it('sends the key, parses split events, and reconnects after the server drops the stream', async () => {
    connections = 0;
    const controller = new AbortController();
    const messages: SseMessage[] = [];
    const states: StreamState[] = [];
    const done = followEventStream({
      url: `${origin}/flaky`,
      headers: () => ({ Authorization: 'Bearer sk-stream' }),
      signal: controller.signal,
      backoffMs: [10],
      onMessage: (m) => {
        messages.push(m);
        if (messages.length === 3) controller.abort();
      },
      onState: (s) => states.push(s),
    });
    await done;
    expect(messages.map((m) => [m.event, m.data])).toEqual([
      ['runs', '{"n":1}'],
      ['runs', '{"n":2}'],
      ['runs', '{"n":3}'],
    ]);
    expect(authSeen.slice(-3)).toEqual([
      'Bearer sk-stream',
      'Bearer sk-stream',
      'Bearer sk-stream',
    ]);
    expect(states.slice(0, 4)).toEqual(['connecting', 'live', 'reconnecting', 'live']);
  });

  it('reconnects when not even a keep-alive arrives within the idle timeout', async () => {
    connections = 0;
    const controller = new AbortController();
    const states: StreamState[] = [];
    const done = followEventStream({
      url: `${origin}/silent`,
      headers: () => ({}),
      signal: controller.signal,
      backoffMs: [10],
      idleTimeoutMs: 100,
      onMessage: () => undefined,
      onState: (s) => {
        states.push(s);
        if (connections >= 2 && s === 'live') controller.abort();
      },
    });
    await done;
    expect(connections).toBeGreaterThanOrEqual(2);
    expect(states).toContain('reconnecting');
  });

  it('stops at a 401 (to ask for a key) and at a 404 (no stream: the caller polls instead)', async () => {
    for (const [path, expected] of [
      ['/locked', 'unauthorized'],
      ['/gone', 'unavailable'],
    ] as const) {
      const states: StreamState[] = [];
      await followEventStream({
        url: `${origin}${path}`,
        headers: () => ({}),
        signal: new AbortController().signal,
        onMessage: () => undefined,
        onState: (s) => states.push(s),
      });
      expect(states).toEqual(['connecting', expected]);
    }
  });

  it('stops waiting at once when the page is left', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const done = followEventStream({
      url: 'http://127.0.0.1:9/unreachable',
      headers: () => ({}),
      signal: controller.signal,
      backoffMs: [60_000],
      onMessage: () => undefined,
      onState: (s) => {
        if (s === 'reconnecting') controller.abort();
      },
    });
    await done;
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('ApiClient', () => {
  it('sends the stored key as a Bearer token and JSON bodies', async () => {
    const storage = memoryStorage();
    const keys = storageKeyStore(storage);
    keys.set('sk-secret');
    const api = new ApiClient({ keys, onUnauthorized: () => undefined, origin });
    await expect(api.post('/api/v1/echo', { task: 'x' })).resolves.toEqual({
      body: { task: 'x' },
      auth: 'Bearer sk-secret',
    });
    keys.clear();
    expect(storage.items.size).toBe(0);
    await expect(api.post('/api/v1/echo', {})).resolves.toMatchObject({ auth: null });
  });

  it('turns an error answer into ApiError with its code, message and details', async () => {
    const api = new ApiClient({
      keys: storageKeyStore(memoryStorage()),
      onUnauthorized: () => undefined,
      origin,
    });
    const err = await api.get('/api/v1/runs/404').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({
      status: 404,
      code: 'RUN_NOT_FOUND',
      message: 'No run has id 404.',
      details: { run_id: 404 },
    });
    await expect(api.get('/api/v1/html')).rejects.toMatchObject({ status: 502, code: 'HTTP_502' });
  });

  it('reports a 401 and whether a stored key was refused', async () => {
    const keys = storageKeyStore(memoryStorage());
    const calls: boolean[] = [];
    const api = new ApiClient({ keys, onUnauthorized: (hadKey) => calls.push(hadKey), origin });
    await expect(api.get('/locked')).rejects.toMatchObject({
      status: 401,
      message: 'Send the API key.',
    });
    keys.set('wrong');
    await expect(api.get('/locked')).rejects.toMatchObject({ status: 401 });
    expect(calls).toEqual([false, true]);
  });

  it('says the server cannot be reached when nothing answers', async () => {
    const api = new ApiClient({
      keys: storageKeyStore(memoryStorage()),
      onUnauthorized: () => undefined,
      origin: 'http://127.0.0.1:9',
    });
    await expect(api.get('/api/v1/runs')).rejects.toMatchObject({
      status: 0,
      code: 'NETWORK_ERROR',
    });
  });
});
