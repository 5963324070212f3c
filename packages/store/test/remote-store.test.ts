// A store on a libSQL server (sqld, issue 20): auth tokens, clear errors that never show the
// token, and a store that goes on after the server restarts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '@junction/tooling/fixtures/free-port.mjs';
import { startSqld, type Sqld } from '@junction/tooling/fixtures/sqld.mjs';
import { openStore, StoreError } from '../src/index.js';
import { SQLD_AVAILABLE } from './helpers.js';

const suite = SQLD_AVAILABLE ? describe : describe.skip;

async function openError(options: Parameters<typeof openStore>[0]): Promise<StoreError> {
  try {
    const store = await openStore(options);
    await store.close();
  } catch (err) {
    return err as StoreError;
  }
  throw new Error('the store opened');
}

suite('a store on a libSQL server with auth tokens', () => {
  let server: Sqld;
  beforeAll(async () => {
    server = await startSqld({ auth: true });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('opens and works with a read-write token', async () => {
    const store = await openStore({ url: server.url, authToken: server.token() });
    const run = await store.runs.create({ agentName: 'a', task: 't', source: 'cli' });
    expect((await store.runs.get(run.id))?.task).toBe('t');
    await store.close();
  });

  it('says what to set when the token is missing or wrong, never showing it', async () => {
    const missing = await openError({ url: server.url });
    expect(missing).toMatchObject({ code: 'STORE_OPEN_FAILED' });
    expect(missing.message).toMatch(/HTTP 401/);
    expect(missing.message).toMatch(/JUNCTION_DATABASE_AUTH_TOKEN/);
    const secret = 'eyJhbGciOiJFZERTQSJ9.e30.SECRET-not-a-signature';
    const wrong = await openError({ url: server.url, authToken: secret });
    expect(wrong).toMatchObject({ code: 'STORE_OPEN_FAILED' });
    expect(JSON.stringify({ m: wrong.message, d: wrong.details })).not.toContain('SECRET');
    // A token in the URL itself is not shown either.
    const inUrl = await openError({ url: `${server.url}?authToken=${secret}` });
    expect(inUrl).toMatchObject({ code: 'STORE_OPEN_FAILED' });
    expect(JSON.stringify({ m: inUrl.message, d: inUrl.details })).not.toContain('SECRET');
  });

  it('says a read-only token cannot run Junction', async () => {
    const readOnly = await openError({ url: server.url, authToken: server.token('ro') });
    expect(readOnly).toMatchObject({ code: 'STORE_OPEN_FAILED' });
    expect(readOnly.message).toMatch(/read-write token/);
  });
});

suite('a store on a libSQL server that goes away', () => {
  it('says the server did not answer when nothing listens at the URL', async () => {
    const err = await openError({ url: `http://127.0.0.1:${await freePort()}` });
    expect(err).toMatchObject({ code: 'STORE_OPEN_FAILED' });
    expect(err.message).toMatch(/did not answer/);
  });

  it.each(['http', 'ws'])(
    'over %s: fails while the server is down and goes on, with the same store, once it is back',
    async (scheme) => {
      const server = await startSqld();
      const store = await openStore({ url: server.url.replace('http:', `${scheme}:`) });
      try {
        const before = await store.runs.create({ agentName: 'a', task: 'before', source: 'cli' });
        await server.kill();
        await expect(
          store.runs.create({ agentName: 'a', task: 'while down', source: 'cli' }),
        ).rejects.toBeInstanceOf(StoreError);
        await server.start();
        const after = await store.runs.create({ agentName: 'a', task: 'after', source: 'cli' });
        expect(after.id).toBeGreaterThan(before.id);
        expect((await store.runs.list({})).map((r) => r.task).sort()).toEqual(['after', 'before']);
      } finally {
        await store.close();
        await server.stop();
      }
    },
  );
});

suite("a run's end with its last events on a libSQL server", () => {
  it('writes the events with the end, and none on a run someone else already ended', async () => {
    const server = await startSqld();
    const store = await openStore({ url: server.url });
    try {
      const run = await store.runs.create({ agentName: 'a', task: 't', source: 'cli' });
      await store.runs.claim(run.id, 'w1', 60_000);
      await store.runEvents.record(run.id, [{ type: 'a' }]);
      await store.runs.markCompleted(run.id, {
        workerId: 'w1',
        finalEvents: { events: [{ type: 'b' }, { type: 'c', payload: { n: 1 } }] },
      });
      expect((await store.runEvents.list(run.id)).map((e) => [e.seq, e.type])).toEqual([
        [1, 'a'],
        [2, 'b'],
        [3, 'c'],
      ]);
      const other = await store.runs.create({ agentName: 'a', task: 'u', source: 'cli' });
      await store.runs.claim(other.id, 'w1', 60_000);
      await store.runs.markFailed(other.id, { error: 'cancelled elsewhere', status: 'cancelled' });
      await expect(
        store.runs.markCompleted(other.id, {
          workerId: 'w1',
          finalEvents: { events: [{ type: 'late' }] },
        }),
      ).rejects.toMatchObject({ code: 'CONFLICT' });
      expect(await store.runEvents.list(other.id)).toEqual([]);
    } finally {
      await store.close();
      await server.stop();
    }
  });
});
