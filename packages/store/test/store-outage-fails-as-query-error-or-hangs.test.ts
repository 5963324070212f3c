// Issue 31: with sqld stopped, store calls failed as STORE_QUERY_FAILED (surfaces answered 500
// INTERNAL_ERROR instead of the documented 503), and with sqld frozen (SIGSTOP) they hung for
// good, the write queue behind them. Now both are STORE_UNAVAILABLE, a frozen server's within
// the store's deadline, and the store works again once the server is back.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { startSqld, type Sqld } from '@junction/tooling/fixtures/sqld.mjs';
import {
  isStoreError,
  openStore,
  storeCallUnsent,
  type Store,
  type StoreError,
} from '../src/index.js';
import { SQLD_AVAILABLE } from './helpers.js';

const TIMEOUT_MS = 1500;

/** What a failed call threw, for one readable assertion. */
async function failure(call: Promise<unknown>): Promise<StoreError> {
  const err = await call.then(
    () => new Error('the call succeeded although the server was away'),
    (e: unknown) => e,
  );
  if (!isStoreError(err)) throw new Error(`expected a StoreError, got ${String(err)}`);
  return err;
}

(SQLD_AVAILABLE ? describe : describe.skip)('a libSQL server that is away', () => {
  let server: Sqld;
  let store: Store;
  let frozen = false;

  beforeEach(async () => {
    server = await startSqld();
    store = await openStore({ url: server.url, timeoutMs: TIMEOUT_MS });
    await store.environments.create({ name: 'default' });
  });

  afterEach(async () => {
    // Never leave the test's own server stopped: it is thawed, then stopped, by its pid.
    if (frozen && server.pid !== undefined) process.kill(server.pid, 'SIGCONT');
    frozen = false;
    await store.close();
    await server.stop();
  });

  it('answers STORE_UNAVAILABLE while it is stopped, and works again once it is back', async () => {
    await server.kill('SIGKILL');
    const read = await failure(store.environments.list());
    expect(read).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(read.message).toMatch(/cannot be reached \(.*ECONNREFUSED.*\)\. Retry shortly/);
    const write = await failure(store.environments.create({ name: 'while-down' }));
    expect(write.code).toBe('STORE_UNAVAILABLE');
    // A refused connection carried nothing: the write is safe to repeat.
    expect(storeCallUnsent(write)).toBe(true);
    await server.start();
    expect((await store.environments.list()).map((e) => e.name)).toEqual(['default']);
  });

  it('answers STORE_UNAVAILABLE within the deadline while it is frozen, and works after SIGCONT', async () => {
    const pid = server.pid;
    if (pid === undefined) throw new Error('sqld has no pid');
    process.kill(pid, 'SIGSTOP');
    frozen = true;
    const [read, write, queued] = await Promise.all([
      failure(store.environments.list()),
      failure(store.environments.create({ name: 'while-frozen' })),
      // Queued behind the stuck write: it fails at its own deadline, not one after the other.
      failure(store.environments.create({ name: 'behind-it' })),
    ]);
    expect([read.code, write.code, queued.code]).toEqual([
      'STORE_UNAVAILABLE',
      'STORE_UNAVAILABLE',
      'STORE_UNAVAILABLE',
    ]);
    expect(read.message).toMatch(/did not answer within 1500 ms/);
    // The write in flight may still be applied when the server thaws: not safe to repeat.
    expect(storeCallUnsent(write)).toBe(false);
    process.kill(pid, 'SIGCONT');
    frozen = false;
    const names = (await store.environments.list()).map((e) => e.name);
    // The write sent before the freeze may land once the server thaws; the one that waited
    // past its deadline in the queue was never sent.
    expect(names).not.toContain('behind-it');
    expect(names).toContain('default');
    await store.environments.create({ name: 'after' });
    expect((await store.environments.list()).map((e) => e.name)).toContain('after');
  });
});
