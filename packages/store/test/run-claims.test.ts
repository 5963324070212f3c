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

  // Regression (issue 13, item 4): after a crash every interrupted run was failed, also those
  // that had called no tool; and a graceful stop re-ran tool calls. One rule for both now.
  it('recovers expired runs by one rule: re-queued unless a tool call had started, then failed', async () => {
    const quiet = await queue('no tool call yet');
    const acted = await queue('called a tool');
    const live = await queue('live');
    await store.runs.claim(quiet.id, 'w1', 1_000);
    await store.runs.claim(acted.id, 'w1', 1_000);
    await store.runs.claim(live.id, 'w2', 60_000);
    expect(await store.runs.markActed(acted.id, 'w2')).toBe(false); // not its run
    expect(await store.runs.markActed(acted.id, 'w1')).toBe(true);
    expect((await store.runs.get(acted.id))?.actedAt).toEqual(clock);
    clock = new Date(clock.getTime() + 5_000);
    const recovered = await store.runs.recoverExpired('interrupted: worker stopped');
    expect(recovered.requeued.map((r) => r.id)).toEqual([quiet.id]);
    expect(recovered.failed.map((r) => r.id)).toEqual([acted.id]);
    expect(await store.runs.get(quiet.id)).toMatchObject({ status: 'queued', workerId: null });
    expect(await store.runs.get(acted.id)).toMatchObject({
      status: 'error',
      error: 'interrupted: worker stopped',
    });
    expect((await store.runs.get(live.id))?.status).toBe('running');
  });

  it('never requeues a run that started a tool call, gracefully or as abandoned', async () => {
    const acted = await queue('acted');
    const quiet = await queue('quiet');
    await store.runs.claim(acted.id, 'w1', 60_000);
    await store.runs.claim(quiet.id, 'w1', 60_000);
    await store.runs.markActed(acted.id, 'w1');
    expect(await store.runs.requeue(acted.id, 'w1')).toBe(false);
    expect(await store.runs.recoverAbandoned(acted.id, 'w2', 'gone')).toBeUndefined();
    expect(await store.runs.recoverAbandoned(acted.id, 'w1', 'gone')).toMatchObject({
      requeued: false,
      run: { status: 'error', error: 'gone' },
    });
    expect(await store.runs.recoverAbandoned(quiet.id, 'w1', 'gone')).toMatchObject({
      requeued: true,
      run: { status: 'queued', workerId: null },
    });
  });

  it("never requeues a sub-agent's run: it belongs to its parent's attempt", async () => {
    const parent = await queue('parent');
    const child = await store.runs.create({
      agentName: 'a',
      task: 'child',
      source: 'cli',
      parentRunId: parent.id,
    });
    await store.runs.claim(child.id, 'w1', 1_000);
    expect(await store.runs.requeue(child.id, 'w1')).toBe(false);
    clock = new Date(clock.getTime() + 5_000);
    const recovered = await store.runs.recoverExpired('gone');
    expect(recovered.failed.map((r) => r.id)).toEqual([child.id]);
    expect(recovered.requeued).toEqual([]);
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
