import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { runDurationMs, type Store } from '../src/index.js';
import { manualClock, openTestStore, STORE_KINDS, type StoreKind } from './helpers.js';

const POLICY = { maxAttempts: 3, exhausted: 'gone {attempts} times' };

describe.each(STORE_KINDS)('runs and run events on %s', (kind: StoreKind) => {
  let store: Store;
  let close: () => Promise<void>;
  let clock: ReturnType<typeof manualClock>;
  let agentId: number;
  let environmentId: number;

  beforeEach(async () => {
    clock = manualClock();
    ({ store, close } = await openTestStore(kind, clock.now));
    environmentId = (await store.environments.ensure('development')).id;
    agentId = (await store.agents.create(environmentId, { name: 'helper' })).id;
  });
  afterEach(async () => {
    await close();
  });

  const queue = (task: string, extra: Partial<Parameters<Store['runs']['create']>[0]> = {}) =>
    store.runs.create({
      agentId,
      agentName: 'helper',
      environmentId,
      task,
      source: 'api',
      ...extra,
    });

  it('queues a run and reads it back', async () => {
    const run = await queue('say hi', { variables: { WHO: 'world' }, traceId: 'abc' });
    expect(run).toMatchObject({
      agentId,
      agentName: 'helper',
      status: 'queued',
      task: 'say hi',
      variables: { WHO: 'world' },
      source: 'api',
      stepsTaken: 0,
      inputTokens: 0,
      outputTokens: 0,
      startedAt: null,
      completedAt: null,
      workerId: null,
    });
    expect(run.queuedAt).toEqual(clock.now());
    expect(await store.runs.get(run.id)).toEqual(run);
    expect(await store.runs.get(run.id + 100)).toBeUndefined();
  });

  it('writes concurrent creates together and gives each caller its own run', async () => {
    const runs = await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        queue(`task ${i}`, {
          variables: { N: String(i) },
          ...(i % 3 === 0 ? { claimedBy: { workerId: 'w', leaseMs: 1000 } } : {}),
        }),
      ),
    );
    runs.forEach((run, i) => {
      expect(run).toMatchObject({
        task: `task ${i}`,
        variables: { N: String(i) },
        status: i % 3 === 0 ? 'running' : 'queued',
      });
    });
    expect(new Set(runs.map((r) => r.id)).size).toBe(150);
    expect(await store.runs.count({})).toBe(150);
    // A keyed create among them still gets its CONFLICT alone.
    const [, keyedAgain] = await Promise.allSettled([
      queue('k1', { idempotencyKey: 'same' }),
      queue('k2', { idempotencyKey: 'same' }),
      queue('plain'),
    ]);
    expect(keyedAgain).toMatchObject({ status: 'rejected', reason: { code: 'CONFLICT' } });
  });

  it('fails only the create whose row is bad when creates go in together', async () => {
    const results = await Promise.allSettled([
      queue('good 1'),
      queue('bad', { agentId: 987_654 }),
      queue('good 2'),
    ]);
    expect(results[0]).toMatchObject({ status: 'fulfilled', value: { task: 'good 1' } });
    expect(results[1]).toMatchObject({ status: 'rejected', reason: { code: 'INVALID_REFERENCE' } });
    expect(results[2]).toMatchObject({ status: 'fulfilled', value: { task: 'good 2' } });
    expect(await store.runs.count({})).toBe(2);
  });

  it('writes the creates handed over before close, even when close is called at once', async () => {
    const pending = [queue('before close 1'), queue('before close 2')];
    const closing = store.close();
    await expect(Promise.all(pending)).resolves.toEqual([
      expect.objectContaining({ task: 'before close 1', status: 'queued' }),
      expect.objectContaining({ task: 'before close 2', status: 'queued' }),
    ]);
    await closing;
  });

  it('rejects a create on a closed store instead of hanging', async () => {
    await store.close();
    await expect(queue('late')).rejects.toMatchObject({ code: 'STORE_CLOSED' });
  });

  it('claims the oldest queued run, then completes it once', async () => {
    const first = await queue('one');
    clock.advance(10);
    const second = await queue('two');

    const claimed = await store.runs.claimNext('worker-a', 60_000);
    expect(claimed).toMatchObject({ id: first.id, status: 'running', workerId: 'worker-a' });
    expect(claimed?.leaseExpiresAt?.getTime()).toBe(clock.now().getTime() + 60_000);
    expect((await store.runs.claimNext('worker-b', 60_000))?.id).toBe(second.id);
    expect(await store.runs.claimNext('worker-a', 60_000)).toBeUndefined();

    clock.advance(1500);
    const done = await store.runs.markCompleted(first.id, {
      finalResponse: 'hi',
      stepsTaken: 2,
      inputTokens: 120,
      outputTokens: 30,
      model: 'gpt-4o-mini',
      workerId: 'worker-a',
    });
    expect(done).toMatchObject({
      status: 'completed',
      finalResponse: 'hi',
      stepsTaken: 2,
      inputTokens: 120,
      leaseExpiresAt: null,
    });
    expect(runDurationMs(done)).toBe(1500);
    await expect(store.runs.markFailed(first.id, { error: 'late' })).rejects.toMatchObject({
      code: 'CONFLICT',
      details: { status: 'completed' },
    });
    // A worker that lost its lease cannot finish a run another worker holds.
    await expect(
      store.runs.markCompleted(second.id, { workerId: 'worker-a' }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    const timedOut = await store.runs.markFailed(second.id, {
      status: 'timeout',
      error: 'took too long',
      workerId: 'worker-b',
    });
    expect(timedOut).toMatchObject({ status: 'timeout', error: 'took too long' });
    await expect(store.runs.markCompleted(999)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('cancels a queued run and records progress', async () => {
    const run = await queue('x');
    await store.runs.claimNext('w', 1000);
    const progressed = await store.runs.updateProgress(run.id, { stepsTaken: 1, inputTokens: 5 });
    expect(progressed).toMatchObject({ stepsTaken: 1, inputTokens: 5, outputTokens: 0 });
    const other = await queue('y');
    expect(
      (await store.runs.markFailed(other.id, { status: 'cancelled', error: 'cancelled by user' }))
        .status,
    ).toBe('cancelled');
    await expect(store.runs.updateProgress(404, { stepsTaken: 1 })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('requeues runs whose worker stopped renewing its lease', async () => {
    const run = await queue('x');
    await store.runs.claimNext('dead-worker', 1000);
    expect(await store.runs.renewLease(run.id, 'dead-worker', 1000)).toBe(true);
    expect(await store.runs.renewLease(run.id, 'someone-else', 1000)).toBe(false);
    expect(await store.runs.recoverExpired(POLICY)).toEqual({ requeued: [], failed: [] });
    clock.advance(1001);
    const { requeued } = await store.runs.recoverExpired(POLICY);
    expect(requeued.map((r) => [r.id, r.status, r.workerId])).toEqual([[run.id, 'queued', null]]);
    expect((await store.runs.claimNext('live-worker', 1000))?.id).toBe(run.id);
  });

  it('lists with filters: status (failed = error), agent, duration, time window, paging', async () => {
    const other = await store.agents.create(environmentId, { name: 'other' });
    const a = await queue('a');
    clock.advance(1000);
    const b = await store.runs.create({
      agentId: other.id,
      agentName: 'other',
      task: 'b',
      source: 'cli',
    });
    clock.advance(1000);
    const c = await queue('c');
    await store.runs.claimNext('w', 10_000); // a
    clock.advance(5000);
    await store.runs.markFailed(a.id, { error: 'boom' });
    await store.runs.claimNext('w', 10_000); // b
    clock.advance(100);
    await store.runs.markCompleted(b.id, {});

    expect((await store.runs.list()).map((r) => r.id)).toEqual([c.id, b.id, a.id]);
    expect((await store.runs.list({ status: 'failed' })).map((r) => r.id)).toEqual([a.id]);
    expect((await store.runs.list({ status: ['completed', 'queued'] })).map((r) => r.id)).toEqual([
      c.id,
      b.id,
    ]);
    expect((await store.runs.list({ agentName: 'other' })).map((r) => r.id)).toEqual([b.id]);
    expect((await store.runs.list({ agentId })).map((r) => r.id)).toEqual([c.id, a.id]);
    expect((await store.runs.list({ minDurationMs: 1000 })).map((r) => r.id)).toEqual([a.id]);
    expect(
      (await store.runs.list({ since: new Date(clock.now().getTime() - 5100 - 1000) })).map(
        (r) => r.id,
      ),
    ).toEqual([c.id, b.id]);
    expect((await store.runs.list({ limit: 1, offset: 1 })).map((r) => r.id)).toEqual([b.id]);
    expect(await store.runs.count({ status: 'queued' })).toBe(1);
    await expect(store.runs.list({ limit: 0 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(store.runs.list({ offset: -1 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('refuses a second run with the same idempotency key and finds the first', async () => {
    const first = await queue('x', { idempotencyKey: 'hook-123' });
    await expect(queue('x', { idempotencyKey: 'hook-123' })).rejects.toMatchObject({
      code: 'CONFLICT',
      details: { idempotencyKey: 'hook-123', runId: first.id },
    });
    expect((await store.runs.findByIdempotencyKey('hook-123'))?.id).toBe(first.id);
    expect(await store.runs.findByIdempotencyKey('nope')).toBeUndefined();
    // Runs without a key never collide.
    await queue('y');
    await queue('z');
    expect(await store.runs.count()).toBe(3);
  });

  it('releases an idempotency key once, keeping the old run, so the key can queue a new run', async () => {
    const first = await queue('x', { idempotencyKey: 'hook-9' });
    // Only the run that holds the key can release it.
    expect(await store.runs.releaseIdempotencyKey(first.id + 1000, 'hook-9')).toBe(false);
    expect(await store.runs.releaseIdempotencyKey(first.id, 'other-key')).toBe(false);
    // Two callers racing to release: exactly one wins.
    const released = await Promise.all([
      store.runs.releaseIdempotencyKey(first.id, 'hook-9'),
      store.runs.releaseIdempotencyKey(first.id, 'hook-9'),
    ]);
    expect(released.filter(Boolean)).toHaveLength(1);
    expect(await store.runs.findByIdempotencyKey('hook-9')).toBeUndefined();
    expect(await store.runs.get(first.id)).toMatchObject({ task: 'x', idempotencyKey: null });

    const second = await queue('x again', { idempotencyKey: 'hook-9' });
    expect(second.id).not.toBe(first.id);
    expect((await store.runs.findByIdempotencyKey('hook-9'))?.id).toBe(second.id);
    // The released run no longer blocks the key, and cannot take it back.
    expect(await store.runs.releaseIdempotencyKey(first.id, 'hook-9')).toBe(false);
  });

  it('prunes finished runs older than a date, with their events, and keeps active ones', async () => {
    const old = await queue('old');
    const stillQueued = await queue('queued');
    await store.runs.claimNext('w', 1000);
    await store.runEvents.append(old.id, { type: 'llm', payload: { text: 'x' } });
    await store.runs.markCompleted(old.id);
    clock.advance(10 * 86_400_000);
    const recent = await queue('recent');
    await store.runs.markFailed(recent.id, { status: 'cancelled', error: 'x' });

    expect(await store.runs.pruneOlderThan(new Date(clock.now().getTime() - 86_400_000))).toBe(1);
    expect(await store.runs.get(old.id)).toBeUndefined();
    expect(await store.runEvents.count(old.id)).toBe(0);
    expect(await store.runs.get(stillQueued.id)).toBeDefined();
    expect(await store.runs.get(recent.id)).toBeDefined();
  });

  it('keeps history when the agent is deleted, and links child runs', async () => {
    const parent = await queue('parent');
    const child = await queue('child', { parentRunId: parent.id, source: 'workflow' });
    expect((await store.runs.list({ parentRunId: parent.id })).map((r) => r.id)).toEqual([
      child.id,
    ]);
    await store.agents.delete(agentId);
    expect(await store.runs.get(parent.id)).toMatchObject({ agentId: null, agentName: 'helper' });
  });

  it('reads back a task with a NUL byte exactly on every read path (NUL byte cuts stored text)', async () => {
    const task = 'before\u0000after é \u0000';
    const run = await queue(task, { variables: { NOTE: 'a\u0000b' } });
    expect(run.task).toBe(task);
    expect((await store.runs.get(run.id))?.task).toBe(task);
    expect((await store.runs.list({})).find((r) => r.id === run.id)?.task).toBe(task);
    const claimed = await store.runs.claimNext('worker-a', 60_000);
    expect(claimed).toMatchObject({ id: run.id, task, variables: { NOTE: 'a\u0000b' } });
    const done = await store.runs.markCompleted(run.id, {
      finalResponse: 'answer\u0000tail',
      workerId: 'worker-a',
    });
    expect(done.finalResponse).toBe('answer\u0000tail');
    expect((await store.runs.get(run.id))?.finalResponse).toBe('answer\u0000tail');
  });

  it('numbers events 1, 2, 3 per run and lists them in order', async () => {
    const run = await queue('x');
    const other = await queue('y');
    const e1 = await store.runEvents.append(run.id, {
      type: 'llm.generate',
      payload: { input_tokens: 3 },
      durationMs: 40,
    });
    await store.runEvents.append(other.id, { type: 'tool.call' });
    const e2 = await store.runEvents.append(run.id, { type: 'tool.call', payload: ['a', 1, null] });
    const e3 = await store.runEvents.append(run.id, { type: 'final' });
    expect([e1.seq, e2.seq, e3.seq]).toEqual([1, 2, 3]);
    expect(e1).toMatchObject({ runId: run.id, payload: { input_tokens: 3 }, durationMs: 40 });
    expect(e3.payload).toBeNull();

    const events = await store.runEvents.list(run.id);
    expect(events.map((e) => [e.seq, e.type])).toEqual([
      [1, 'llm.generate'],
      [2, 'tool.call'],
      [3, 'final'],
    ]);
    expect(
      (await store.runEvents.list(run.id, { afterSeq: 1, type: 'final' })).map((e) => e.seq),
    ).toEqual([3]);
    expect((await store.runEvents.list(other.id)).map((e) => e.seq)).toEqual([1]);
    await expect(store.runEvents.append(4040, { type: 'x' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('gives every concurrent append in one process its own seq', async () => {
    const run = await queue('x');
    const events = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        store.runEvents.append(run.id, { type: 'n', payload: i }),
      ),
    );
    expect(new Set(events.map((e) => e.seq)).size).toBe(50);
    expect(await store.runEvents.count(run.id)).toBe(50);
  });
});
