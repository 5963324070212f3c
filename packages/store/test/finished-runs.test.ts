// runs.finishedAfter: the finished runs after a place in the history, in the order they
// finished (ties by id), so a reader that keeps the last one it handled sees each run once.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { openStore, type Store } from '../src/index.js';
import { manualClock } from './helpers.js';

describe('runs.finishedAfter', () => {
  let store: Store;
  let clock: ReturnType<typeof manualClock>;

  beforeEach(async () => {
    clock = manualClock();
    store = await openStore({ url: ':memory:', now: clock.now });
  });
  afterEach(async () => {
    await store.close();
  });

  async function queued(task: string): Promise<number> {
    return (await store.runs.create({ agentName: 'a', task, source: 'management' })).id;
  }

  it('lists finished runs oldest first from a place, ties by id, leaving out runs still going', async () => {
    const a = await queued('a');
    const b = await queued('b');
    const c = await queued('c');
    const going = await queued('going');
    await store.runs.claim(going, 'w', 60_000);
    clock.advance(1_000);
    await store.runs.markCompleted(b);
    await store.runs.markFailed(a, { error: 'x' }); // the same time as b: a comes first, by id
    clock.advance(1_000);
    await store.runs.markCompleted(c);
    const start = { at: new Date(0), id: 0 };
    const all = await store.runs.finishedAfter(start);
    expect(all.map((r) => r.id)).toEqual([a, b, c]);
    expect(all.map((r) => r.source)).toEqual(['management', 'management', 'management']);
    // From the place of the first: the rest, once.
    const first = all[0]!;
    expect(
      (await store.runs.finishedAfter({ at: first.completedAt!, id: first.id })).map((r) => r.id),
    ).toEqual([b, c]);
    expect((await store.runs.finishedAfter(start, 2)).map((r) => r.id)).toEqual([a, b]);
    const last = all[2]!;
    expect(await store.runs.finishedAfter({ at: last.completedAt!, id: last.id })).toEqual([]);
  });
});
