// The journal writes of runs asked for in the same turn of the event loop share one commit
// (issue 32: concurrent runs' durable steps cost less each), and each still answers for itself:
// a write fenced by a worker that does not hold its run is refused, a run that is gone fails
// alone, and every other write of the group lands.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { openStore, type Store } from '../src/index.js';
import { makeTempDir, STORE_KINDS, openTestStore } from './helpers.js';

let temp: ReturnType<typeof makeTempDir>;
let store: Store;
let file: string;

beforeEach(async () => {
  temp = makeTempDir();
  file = path.join(temp.dir, 'junction.db');
  store = await openStore({ url: file });
});

afterEach(async () => {
  await store.close();
  temp.cleanup();
});

/** Bytes the write-ahead log grew by while `work` ran: each commit appends its own frames. */
async function walGrowth(work: () => Promise<unknown>): Promise<number> {
  const size = (): number => (fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0);
  const before = size();
  await work();
  return size() - before;
}

async function claimedRuns(n: number, workerId = 'w1'): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const run = await store.runs.create({
      agentName: 'a',
      task: `t${i}`,
      source: 'api',
      claimedBy: { workerId, leaseMs: 60_000 },
    });
    ids.push(run.id);
  }
  return ids;
}

const turn = (i: number) => ({ type: 'model_turn', payload: { step: i }, journal: { step: i } });

describe('journal writes of several runs at once', () => {
  it('share one commit: the log grows by far less than the same writes one by one', async () => {
    const ids = await claimedRuns(16);
    const apart = await walGrowth(async () => {
      for (const id of ids)
        await store.runEvents.record(id, [turn(1)], undefined, { workerId: 'w1' });
    });
    const together = await walGrowth(() =>
      Promise.all(
        ids.map((id) => store.runEvents.record(id, [turn(2)], undefined, { workerId: 'w1' })),
      ),
    );
    expect(apart).toBeGreaterThan(0);
    expect(together).toBeLessThan(apart / 4);
    for (const id of ids) {
      expect((await store.runEvents.journal(id)).map((e) => e.journal)).toEqual([
        { step: 1 },
        { step: 2 },
      ]);
    }
  });

  it('answer each for itself: a run not held is refused, a run that is gone fails alone', async () => {
    const [held, other] = await claimedRuns(2);
    const [elsewhere] = await claimedRuns(1, 'w2');
    const results = await Promise.allSettled([
      store.runEvents.record(held!, [turn(1)], undefined, { workerId: 'w1' }),
      store.runEvents.record(elsewhere!, [turn(1)], undefined, { workerId: 'w1' }),
      store.runEvents.record(987_654, [turn(1)]),
      store.runEvents.record(other!, [turn(1)], { stepsTaken: 1 }, { workerId: 'w1' }),
    ]);
    expect(results[0]).toEqual({ status: 'fulfilled', value: true });
    expect(results[1]).toEqual({ status: 'fulfilled', value: false });
    expect(results[2]).toMatchObject({ status: 'rejected', reason: { code: 'NOT_FOUND' } });
    expect(results[3]).toEqual({ status: 'fulfilled', value: true });
    expect(await store.runEvents.count(held!)).toBe(1);
    expect(await store.runEvents.count(elsewhere!)).toBe(0);
    expect(await store.runEvents.count(other!)).toBe(1);
    expect((await store.runs.get(other!))?.stepsTaken).toBe(1);
  });
});

describe.each(STORE_KINDS)('on a %s store', (kind) => {
  it('numbers the events of two writes of one run in one group in the order they were asked', async () => {
    const { store: s, close } = await openTestStore(kind);
    try {
      const run = await s.runs.create({ agentName: 'a', task: 't', source: 'api' });
      await Promise.all([
        s.runEvents.record(run.id, [{ type: 'first' }, { type: 'second' }]),
        s.runEvents.record(run.id, [{ type: 'third' }]),
      ]);
      expect((await s.runEvents.list(run.id)).map((e) => [e.seq, e.type])).toEqual([
        [1, 'first'],
        [2, 'second'],
        [3, 'third'],
      ]);
    } finally {
      await close();
    }
  });
});
