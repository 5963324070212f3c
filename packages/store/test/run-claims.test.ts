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

/** How the tests recover runs of dead workers (see RecoveryPolicy). */
const policy = {
  maxAttempts: 2,
  exhausted: 'interrupted {attempts} times; not resumed again',
};

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

  // Issue 32: a run that had called a tool used to be failed on recovery; it is resumed now.
  it('recovers expired runs by one rule: back to the queue, acted or not, with why its attempt ended', async () => {
    const quiet = await queue('no tool call yet');
    const acted = await queue('called a tool');
    const live = await queue('live');
    await store.runs.claim(quiet.id, 'w1', 1_000);
    await store.runs.claim(acted.id, 'w1', 1_000);
    await store.runs.claim(live.id, 'w2', 60_000);
    const pinned = { prompt: 'You act.', model: 'openai/gpt-test', tools: ['act'] };
    // Not its run: nothing is written.
    expect(await store.runEvents.record(acted.id, [], undefined, { workerId: 'w2', pinned })).toBe(
      false,
    );
    expect(await store.runEvents.record(acted.id, [], undefined, { workerId: 'w1', pinned })).toBe(
      true,
    );
    expect((await store.runs.get(acted.id))?.actedAt).toEqual(clock);
    // A later step's fence with nothing to write only asks whether the run is still held.
    expect(await store.runEvents.record(acted.id, [], undefined, { workerId: 'w1' })).toBe(true);
    expect(await store.runEvents.record(acted.id, [], undefined, { workerId: 'w2' })).toBe(false);
    clock = new Date(clock.getTime() + 5_000);
    const recovered = await store.runs.recoverExpired(policy);
    expect(recovered.requeued.map((r) => r.id).sort()).toEqual([quiet.id, acted.id].sort());
    expect(recovered.failed).toEqual([]);
    expect(await store.runs.get(acted.id)).toMatchObject({
      status: 'queued',
      workerId: null,
      attempt: 1,
    });
    const events = await store.runEvents.list(acted.id);
    expect(events.map((e) => [e.type, e.payload])).toEqual([
      [
        'attempt_ended',
        expect.objectContaining({ attempt: 1, worker_id: 'w1', reason: 'lease lost' }),
      ],
    ]);
    expect((await store.runs.get(live.id))?.status).toBe('running');
  });

  it('counts attempts by claims and ends a run that used them all, naming how many', async () => {
    const run = await queue('poison');
    for (let attempt = 1; attempt <= 2; attempt++) {
      expect((await store.runs.claim(run.id, `w${attempt}`, 1_000))?.attempt).toBe(attempt);
      clock = new Date(clock.getTime() + 5_000);
      const recovered = await store.runs.recoverExpired(policy);
      if (attempt < 2) expect(recovered.requeued.map((r) => r.id)).toEqual([run.id]);
      else expect(recovered.failed.map((r) => r.id)).toEqual([run.id]);
    }
    expect(await store.runs.get(run.id)).toMatchObject({
      status: 'error',
      error: 'interrupted 2 times; not resumed again',
    });
  });

  it('requeues a run that started a tool call, gracefully or as abandoned, for its worker only', async () => {
    const acted = await queue('acted');
    const quiet = await queue('quiet');
    await store.runs.claim(acted.id, 'w1', 60_000);
    await store.runs.claim(quiet.id, 'w1', 60_000);
    await store.runEvents.record(acted.id, [], undefined, { workerId: 'w1' });
    expect(await store.runs.requeue(acted.id, 'w2')).toBe(false);
    expect(await store.runs.requeue(acted.id, 'w1')).toBe(true);
    expect((await store.runEvents.list(acted.id)).map((e) => e.payload)).toEqual([
      expect.objectContaining({ attempt: 1, worker_id: 'w1', reason: 'graceful stop' }),
    ]);
    expect(await store.runs.recoverAbandoned(quiet.id, 'w2', policy)).toBeUndefined();
    expect(await store.runs.recoverAbandoned(quiet.id, 'w1', policy)).toMatchObject({
      requeued: true,
      run: { status: 'queued', workerId: null },
    });
    expect((await store.runEvents.list(quiet.id)).map((e) => e.payload)).toEqual([
      expect.objectContaining({ attempt: 1, worker_id: 'w1', reason: 'process lost' }),
    ]);
  });

  it("requeues a sub-agent's run like any run: it resumes on its own, its parent waits for it", async () => {
    const parent = await queue('parent');
    const child = await store.runs.create({
      agentName: 'a',
      task: 'child',
      source: 'cli',
      parentRunId: parent.id,
    });
    await store.runs.claim(child.id, 'w1', 1_000);
    clock = new Date(clock.getTime() + 5_000);
    const recovered = await store.runs.recoverExpired(policy);
    expect(recovered.failed).toEqual([]);
    expect(recovered.requeued.map((r) => [r.id, r.status, r.parentRunId])).toEqual([
      [child.id, 'queued', parent.id],
    ]);
  });

  it('writes the journal only while the worker holds the run, pinning what it started with once', async () => {
    const run = await queue('journaled');
    await store.runs.claim(run.id, 'w1', 60_000);
    const pinned = { prompt: 'You help.', model: 'openai/gpt-4o-mini', tools: ['add'] };
    const turn = { type: 'model_turn', payload: { step: 1 }, journal: { content: [] } };
    expect(await store.runEvents.record(run.id, [turn], undefined, { workerId: 'w2' })).toBe(false);
    expect(await store.runEvents.count(run.id)).toBe(0);
    expect(
      await store.runEvents.record(run.id, [turn], undefined, { workerId: 'w1', pinned }),
    ).toBe(true);
    const again = { ...pinned, prompt: 'changed' };
    await store.runEvents.record(run.id, [], undefined, { workerId: 'w1', pinned: again });
    expect(await store.runs.get(run.id)).toMatchObject({ pinned, actedAt: clock });
    await store.runEvents.record(run.id, [{ type: 'log', payload: { line: 'no journal' } }]);
    expect(await store.runEvents.journal(run.id)).toEqual([
      { seq: 1, type: 'model_turn', journal: { content: [] } },
    ]);
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

  it('ends the run and writes its final events together, or neither', async () => {
    const run = await queue();
    await store.runs.claim(run.id, 'w1', 60_000);
    // An event the table refuses (no type): the end must not stay written without its events.
    await expect(
      store.runs.markCompleted(run.id, {
        workerId: 'w1',
        finalResponse: 'done',
        finalEvents: { events: [{ type: 'model_turn' }, { type: null as unknown as string }] },
      }),
    ).rejects.toThrow();
    expect(await store.runs.get(run.id)).toMatchObject({ status: 'running', finalResponse: null });
    expect(await store.runEvents.list(run.id)).toEqual([]);
    const ended = await store.runs.markCompleted(run.id, {
      workerId: 'w1',
      finalResponse: 'done',
      stepsTaken: 2,
      finalEvents: { events: [{ type: 'model_turn', payload: { step: 1 }, durationMs: 5 }] },
    });
    expect(ended).toMatchObject({ status: 'completed', finalResponse: 'done', stepsTaken: 2 });
    expect(ended.completedAt).toEqual(clock);
    expect(await store.runs.get(run.id)).toEqual(ended);
    expect(await store.runEvents.list(run.id)).toMatchObject([
      { seq: 1, type: 'model_turn', payload: { step: 1 }, durationMs: 5 },
    ]);
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

describe('asking a run to stop (issue 16: cancel a run from anywhere)', () => {
  it('ends a queued run cancelled at once; nobody can claim it afterwards', async () => {
    const run = await queue();
    const { run: ended, ended: now } = await store.runs.requestCancel(run.id, 'Run cancelled.');
    expect(now).toBe(true);
    expect(ended).toMatchObject({ status: 'cancelled', error: 'Run cancelled.' });
    expect(ended.completedAt).toEqual(clock);
    expect(ended.cancelRequestedAt).toEqual(clock);
    expect(await store.runs.claimNext('w1', 60_000)).toBeUndefined();
  });

  it('marks a running run for its worker, who alone finds it; asking twice keeps the first time', async () => {
    const run = await queue();
    await store.runs.claim(run.id, 'w1', 60_000);
    const other = await queue('another');
    await store.runs.claim(other.id, 'w1', 60_000);
    const first = await store.runs.requestCancel(run.id, 'Run cancelled.');
    expect(first.ended).toBe(false);
    expect(first.run).toMatchObject({ status: 'running', workerId: 'w1' });
    expect(first.run.cancelRequestedAt).toEqual(clock);
    clock = new Date(clock.getTime() + 5000);
    const again = await store.runs.requestCancel(run.id, 'Run cancelled.');
    expect(again.run.cancelRequestedAt).toEqual(new Date('2026-01-01T00:00:00Z'));
    expect(await store.runs.runsToCancel('w1')).toEqual([run.id]);
    expect(await store.runs.runsToCancel('w2')).toEqual([]);
    // Once it ended it is no longer looked for, and cannot be cancelled again.
    await store.runs.markFailed(run.id, {
      status: 'cancelled',
      error: 'Run cancelled.',
      workerId: 'w1',
    });
    expect(await store.runs.runsToCancel('w1')).toEqual([]);
    await expect(store.runs.requestCancel(run.id, 'x')).rejects.toMatchObject({
      code: 'CONFLICT',
      details: { status: 'cancelled' },
    });
  });

  it('answers NOT_FOUND for an unknown run', async () => {
    await expect(store.runs.requestCancel(999, 'x')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a run asked to stop whose worker died ends cancelled, never re-queued', async () => {
    const expired = await queue('lease runs out');
    await store.runs.claim(expired.id, 'w1', 1000);
    const abandoned = await queue('worker process gone');
    await store.runs.claim(abandoned.id, 'w2', 60_000);
    await store.runs.requestCancel(expired.id, 'Run cancelled.');
    await store.runs.requestCancel(abandoned.id, 'Run cancelled.');
    // A graceful stop does not put it back either.
    expect(await store.runs.requeue(abandoned.id, 'w2')).toBe(false);
    clock = new Date(clock.getTime() + 2000);
    const recovered = await store.runs.recoverExpired(policy);
    expect(recovered.requeued).toEqual([]);
    expect(recovered.failed.map((r) => [r.id, r.status])).toEqual([[expired.id, 'cancelled']]);
    const outcome = await store.runs.recoverAbandoned(abandoned.id, 'w2', policy);
    expect(outcome).toMatchObject({ requeued: false, run: { status: 'cancelled' } });
    expect(outcome?.run.error).toMatch(/cancelled/);
  });

  it('finds the active runs a workflow run started, by their origin, only', async () => {
    const of = (workflowRunId: number, task: string) =>
      store.runs.create({
        agentName: 'a',
        task,
        source: 'workflow',
        origin: { workflowRunId, workflowStep: task },
      });
    const mine = await of(1, 'first');
    const mineToo = await of(1, 'second');
    const ended = await of(1, 'third');
    await store.runs.requestCancel(ended.id, 'gone');
    await of(10, 'first');
    await queue('no origin');
    expect((await store.runs.activeIdsOfWorkflowRun(1)).sort()).toEqual(
      [mine.id, mineToo.id].sort(),
    );
    expect(await store.runs.get(mine.id)).toMatchObject({
      originWorkflowRunId: 1,
      originWorkflowStep: 'first',
      originScheduleId: null,
      originPlatformRunId: null,
    });
  });
});
