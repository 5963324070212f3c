// A store write retried through an outage (issue 31 review): an insert that reached a database
// server that then went away (a deadline passed while it was in flight, a reset connection) may
// have been applied there, so repeating it would write a second child run or the same events
// twice. Only a call the store says was never sent is repeated; an update that is safe to
// repeat (the run's end, its acted mark) is repeated either way. A write refused because the
// database stayed locked is repeated too: it was not applied.
import { describe, expect, it } from '@jest/globals';
import { StoreError } from '@junction/store';
import { whileStoreAway } from '../src/runs/store-retry.js';

const away = (sent: boolean): StoreError =>
  new StoreError('STORE_UNAVAILABLE', 'the database did not answer', { operation: 'x', sent });

/** A call that fails with `first` once, then answers 'ok'; counts its tries. */
function failingOnce(first: unknown): { call: () => Promise<string>; tries: () => number } {
  let tries = 0;
  return {
    call: async () => {
      tries += 1;
      if (tries === 1) throw first;
      return 'ok';
    },
    tries: () => tries,
  };
}

describe('whileStoreAway', () => {
  it('repeats an insert that never reached the store', async () => {
    const c = failingOnce(away(false));
    await expect(whileStoreAway(c.call, { forMs: 60_000, onlyUnsent: true })).resolves.toBe('ok');
    expect(c.tries()).toBe(2);
  });

  it('never repeats an insert that may have been applied', async () => {
    const c = failingOnce(away(true));
    await expect(whileStoreAway(c.call, { forMs: 60_000, onlyUnsent: true })).rejects.toMatchObject(
      { code: 'STORE_UNAVAILABLE' },
    );
    expect(c.tries()).toBe(1);
  });

  it('repeats a write that is safe to repeat either way', async () => {
    const c = failingOnce(away(true));
    await expect(whileStoreAway(c.call, { forMs: 60_000 })).resolves.toBe('ok');
    expect(c.tries()).toBe(2);
  });

  it('repeats a write the database refused as locked past its busy timeout, an insert too', async () => {
    // STORE_BUSY is a refusal: nothing was written (a loaded sqld under several hosts gave it).
    const c = failingOnce(new StoreError('STORE_BUSY', 'locked', { operation: 'x' }));
    let waited: unknown;
    await expect(
      whileStoreAway(c.call, { forMs: 60_000, onlyUnsent: true, onWait: (err) => (waited = err) }),
    ).resolves.toBe('ok');
    expect(c.tries()).toBe(2);
    expect(waited).toMatchObject({ code: 'STORE_BUSY' });
  });

  it('never repeats any other store answer', async () => {
    const c = failingOnce(new StoreError('CONFLICT', 'exists'));
    await expect(whileStoreAway(c.call, { forMs: 60_000 })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    expect(c.tries()).toBe(1);
  });
});
