// Issue 31 (found while adding the store's deadline): a drizzle query is a lazy thenable that
// runs its statement on every then(). Raced against the deadline it was subscribed to twice, so
// a write ran twice on a database server: `approvals.expireDue()` timed an approval out and then
// answered the second run's empty RETURNING. A call must run exactly once.
import { describe, expect, it } from '@jest/globals';
import { Deadline } from '../src/deadline.js';

/** A thenable like drizzle's queries: each then() runs the "statement" again. */
function lazyQuery(): { runs: number; then: PromiseLike<number>['then'] } {
  const query = {
    runs: 0,
    then<A = number, B = never>(
      onFulfilled?: ((value: number) => A | PromiseLike<A>) | null,
      onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
    ): PromiseLike<A | B> {
      query.runs += 1;
      return Promise.resolve(query.runs).then(onFulfilled, onRejected);
    },
  };
  return query;
}

describe('Deadline', () => {
  it('runs a lazy query once and answers its result', async () => {
    const query = lazyQuery();
    await expect(new Deadline('expire approvals', 1000).run(() => query)).resolves.toBe(1);
    expect(query.runs).toBe(1);
  });

  it('fails as STORE_UNAVAILABLE, naming the operation, when the work does not answer in time', async () => {
    const never = new Promise<never>(() => undefined);
    await expect(new Deadline('list runs', 5).race(never)).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
      details: { operation: 'list runs', timeoutMs: 5 },
    });
  });
});
