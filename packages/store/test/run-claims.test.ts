import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { openStore, type Store } from '../src/index.js';

let store: Store;
let clock = new Date('2026-01-01T00:00:00Z');

beforeEach(async () => {
  clock = new Date('2026-01-01T00:00:00Z');
  store = await openStore({ url: ':memory:', now: () => clock });
});
afterEach(async () => store.close());

const queue = (task = 't') => store.runs.create({ agentName: 'a', task, source: 'cli' });

describe('claiming, requeueing and failing runs by lease', () => {
  it('claims a queued run by id once', async () => {
    const run = await queue();
    const first = await store.runs.claim(run.id, 'w1', 60_000);
    expect(first).toMatchObject({ status: 'running', workerId: 'w1' });
    expect(await store.runs.claim(run.id, 'w2', 60_000)).toBeUndefined();
  });

  it('requeues only a run the worker still holds', async () => {
    const run = await queue();
    await store.runs.claim(run.id, 'w1', 60_000);
    expect(await store.runs.requeue(run.id, 'w2')).toBe(false);
    expect(await store.runs.requeue(run.id, 'w1')).toBe(true);
    expect(await store.runs.get(run.id)).toMatchObject({
      status: 'queued',
      workerId: null,
      startedAt: null,
    });
    expect((await store.runs.claimNext('w3', 1000))?.id).toBe(run.id);
  });

  it('fails runs whose lease expired with the stated reason, and leaves live ones', async () => {
    const dead = await queue('dead');
    const live = await queue('live');
    await store.runs.claim(dead.id, 'w1', 1_000);
    await store.runs.claim(live.id, 'w2', 60_000);
    clock = new Date(clock.getTime() + 5_000);
    const failed = await store.runs.failExpired('interrupted: worker stopped');
    expect(failed.map((r) => r.id)).toEqual([dead.id]);
    expect(await store.runs.get(dead.id)).toMatchObject({
      status: 'error',
      error: 'interrupted: worker stopped',
    });
    expect((await store.runs.get(live.id))?.status).toBe('running');
  });
});

describe('finishing with final events', () => {
  it('writes no events on a run someone else already ended', async () => {
    const run = await queue();
    await store.runs.claim(run.id, 'w1', 60_000);
    await store.runs.markFailed(run.id, { error: 'cancelled elsewhere', status: 'cancelled' });
    await expect(
      store.runs.markCompleted(run.id, {
        workerId: 'w1',
        finalEvents: { events: [{ type: 'model_turn' }] },
      }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await store.runEvents.list(run.id)).toEqual([]);
  });

  it('numbers final events after the ones already recorded', async () => {
    const run = await queue();
    await store.runs.claim(run.id, 'w1', 60_000);
    await store.runEvents.record(run.id, [{ type: 'a' }]);
    await store.runs.markCompleted(run.id, {
      workerId: 'w1',
      finalEvents: { events: [{ type: 'b' }, { type: 'c' }] },
    });
    expect((await store.runEvents.list(run.id)).map((e) => [e.seq, e.type])).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
    ]);
  });
});
