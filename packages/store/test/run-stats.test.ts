import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { openStore, type Store } from '../src/index.js';
import { manualClock } from './helpers.js';

const DAY = 86_400_000;

describe('run statistics', () => {
  let store: Store;
  let clock: ReturnType<typeof manualClock>;
  let devId: number;
  let prodId: number;

  beforeEach(async () => {
    clock = manualClock();
    store = await openStore({ url: ':memory:', now: clock.now });
    devId = (await store.environments.ensure('development')).id;
    prodId = (await store.environments.ensure('production')).id;
  });
  afterEach(async () => {
    await store.close();
  });

  interface RunSpec {
    agent: string;
    model?: string | null;
    input?: number;
    output?: number;
    /** Time between claim and finish; the run is left running when undefined and `end` is not set. */
    durationMs?: number;
    end?: 'completed' | 'error' | 'timeout' | 'cancelled' | 'running' | 'queued';
    environmentId?: number;
  }

  /** Queues, claims and finishes one run, moving the clock by its duration. */
  async function run(spec: RunSpec): Promise<number> {
    const created = await store.runs.create({
      agentName: spec.agent,
      environmentId: spec.environmentId ?? devId,
      task: 't',
      source: 'cli',
      model: spec.model ?? null,
    });
    const end = spec.end ?? 'completed';
    if (end === 'queued') return created.id;
    const claimed = await store.runs.claimNext('w', 60_000);
    expect(claimed?.id).toBe(created.id);
    await store.runs.updateProgress(created.id, {
      inputTokens: spec.input ?? 0,
      outputTokens: spec.output ?? 0,
    });
    if (end === 'running') return created.id;
    clock.advance(spec.durationMs ?? 0);
    if (end === 'completed') await store.runs.markCompleted(created.id, { stepsTaken: 1 });
    else await store.runs.markFailed(created.id, { status: end, error: 'boom' });
    return created.id;
  }

  describe('tokenUsage', () => {
    it('sums tokens per agent, most total tokens first', async () => {
      await run({ agent: 'writer', model: 'gpt-4o', input: 100, output: 50 });
      await run({ agent: 'reader', model: 'gpt-4o-mini', input: 1000, output: 10 });
      await run({ agent: 'writer', model: 'gpt-4o-mini', input: 400, output: 600, end: 'error' });
      await run({ agent: 'idle', end: 'queued' });

      expect(await store.runStats.tokenUsage({ groupBy: 'agent' })).toEqual([
        { key: 'writer', runs: 2, inputTokens: 500, outputTokens: 650, totalTokens: 1150 },
        { key: 'reader', runs: 1, inputTokens: 1000, outputTokens: 10, totalTokens: 1010 },
        { key: 'idle', runs: 1, inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      ]);
    });

    it('groups by model and labels runs without a model (unknown)', async () => {
      await run({ agent: 'a', model: 'gpt-4o', input: 10, output: 5 });
      await run({ agent: 'b', model: 'gpt-4o', input: 20, output: 5 });
      await run({ agent: 'c', model: null, input: 7, output: 1 });
      await run({ agent: 'd', model: 'llama3', input: 100, output: 100 });

      expect(await store.runStats.tokenUsage({ groupBy: 'model' })).toEqual([
        { key: 'llama3', runs: 1, inputTokens: 100, outputTokens: 100, totalTokens: 200 },
        { key: 'gpt-4o', runs: 2, inputTokens: 30, outputTokens: 10, totalTokens: 40 },
        { key: '(unknown)', runs: 1, inputTokens: 7, outputTokens: 1, totalTokens: 8 },
      ]);
    });

    it('counts only runs queued in [since, until) and in the asked environment', async () => {
      await run({ agent: 'old', input: 1 });
      clock.advance(10 * DAY);
      const since = clock.now();
      await run({ agent: 'inside', input: 2 });
      await run({ agent: 'prod', input: 3, environmentId: prodId });
      clock.advance(DAY);
      const until = clock.now();
      await run({ agent: 'later', input: 4 });

      const keys = async (q: Parameters<Store['runStats']['tokenUsage']>[0]): Promise<string[]> =>
        (await store.runStats.tokenUsage(q)).map((r) => r.key);
      expect(await keys({ groupBy: 'agent', since })).toEqual(['later', 'prod', 'inside']);
      expect(await keys({ groupBy: 'agent', since, until })).toEqual(['prod', 'inside']);
      expect(await keys({ groupBy: 'agent', since, until, environmentId: devId })).toEqual([
        'inside',
      ]);
      expect(await keys({ groupBy: 'agent', since: clock.now(), until })).toEqual([]);
    });

    it('refuses an unknown grouping with INVALID_INPUT', async () => {
      await expect(
        store.runStats.tokenUsage({ groupBy: 'tool' as unknown as 'agent' }),
      ).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        message: expect.stringContaining('agent, model'),
      });
      await expect(
        store.runStats.tokenUsageByModel({ groupBy: 'tool' as unknown as 'agent' }),
      ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    });
  });

  describe('tokenUsageByModel', () => {
    it('splits each group by the model its runs recorded, in the same window', async () => {
      await run({ agent: 'writer', model: 'gpt-4o', input: 100, output: 50 });
      await run({ agent: 'writer', model: 'gpt-4o-mini', input: 400, output: 600, end: 'error' });
      await run({ agent: 'writer', model: 'gpt-4o', input: 1, output: 2 });
      await run({ agent: 'reader', model: null, input: 7, output: 1 });
      await run({ agent: 'prod', model: 'gpt-4o', input: 9, output: 9, environmentId: prodId });
      await run({ agent: 'reader', end: 'queued' });

      expect(
        await store.runStats.tokenUsageByModel({ groupBy: 'agent', environmentId: devId }),
      ).toEqual([
        {
          key: 'reader',
          model: null,
          runs: 2,
          inputTokens: 7,
          outputTokens: 1,
          totalTokens: 8,
          runsWithTokens: 1,
        },
        {
          key: 'writer',
          model: 'gpt-4o',
          runs: 2,
          inputTokens: 101,
          outputTokens: 52,
          totalTokens: 153,
          runsWithTokens: 2,
        },
        {
          key: 'writer',
          model: 'gpt-4o-mini',
          runs: 1,
          inputTokens: 400,
          outputTokens: 600,
          totalTokens: 1000,
          runsWithTokens: 1,
        },
      ]);
      const byModel = await store.runStats.tokenUsageByModel({ groupBy: 'model' });
      expect(byModel.map((r) => [r.key, r.model, r.runs])).toEqual([
        ['(unknown)', null, 2],
        ['gpt-4o', 'gpt-4o', 3],
        ['gpt-4o-mini', 'gpt-4o-mini', 1],
      ]);
    });
  });

  describe('runSummary', () => {
    it('is all zeros and nulls for an empty history', async () => {
      expect(await store.runStats.runSummary()).toEqual({
        total: 0,
        byStatus: { queued: 0, running: 0, completed: 0, error: 0, timeout: 0, cancelled: 0 },
        durationMs: { p50: null, p95: null, max: null, mean: null },
      });
    });

    it('counts runs by status, every status present', async () => {
      await run({ agent: 'a', durationMs: 1000 });
      await run({ agent: 'a', durationMs: 1000, end: 'error' });
      await run({ agent: 'a', durationMs: 1000, end: 'error' });
      await run({ agent: 'a', durationMs: 1000, end: 'timeout' });
      await run({ agent: 'a', end: 'running' });
      await run({ agent: 'a', end: 'queued' });

      const summary = await store.runStats.runSummary();
      expect(summary.total).toBe(6);
      expect(summary.byStatus).toEqual({
        queued: 1,
        running: 1,
        completed: 1,
        error: 2,
        timeout: 1,
        cancelled: 0,
      });
    });

    it('gives nearest-rank p50 and p95, max and mean of finished runs only', async () => {
      // 1 s … 20 s in a shuffled order: p50 is the 10th value, p95 the 19th.
      const seconds = [7, 3, 20, 11, 1, 15, 9, 2, 18, 5, 13, 4, 17, 6, 19, 8, 12, 10, 16, 14];
      for (const [i, s] of seconds.entries()) {
        await run({ agent: 'a', durationMs: s * 1000, end: i % 3 === 0 ? 'error' : 'completed' });
      }
      await run({ agent: 'a', end: 'running' });
      // Cancelled before it started: it has no duration.
      const never = await run({ agent: 'a', end: 'queued' });
      await store.runs.markFailed(never, { status: 'cancelled', error: 'stop' });

      const { durationMs, total } = await store.runStats.runSummary();
      expect(total).toBe(22);
      expect(durationMs).toEqual({ p50: 10_000, p95: 19_000, max: 20_000, mean: 10_500 });
    });

    it('rounds the rank up for small samples', async () => {
      for (const ms of [100, 300, 200]) await run({ agent: 'a', durationMs: ms });
      expect((await store.runStats.runSummary()).durationMs).toEqual({
        p50: 200,
        p95: 300,
        max: 300,
        mean: 200,
      });
      await run({ agent: 'solo', durationMs: 42 });
      expect((await store.runStats.runSummary({ agentName: 'solo' })).durationMs).toEqual({
        p50: 42,
        p95: 42,
        max: 42,
        mean: 42,
      });
    });

    it('filters by agent, environment and queue time', async () => {
      await run({ agent: 'a', durationMs: 5000 });
      clock.advance(DAY);
      const since = clock.now();
      await run({ agent: 'a', durationMs: 1000 });
      await run({ agent: 'b', durationMs: 2000, end: 'error' });
      await run({ agent: 'a', durationMs: 3000, environmentId: prodId });

      const a = await store.runStats.runSummary({ agentName: 'a', since });
      expect(a.total).toBe(2);
      expect(a.byStatus.completed).toBe(2);
      expect(a.durationMs).toMatchObject({ p50: 1000, max: 3000 });

      const dev = await store.runStats.runSummary({ since, environmentId: devId });
      expect(dev.total).toBe(2);
      expect(dev.byStatus).toMatchObject({ completed: 1, error: 1 });

      const before = await store.runStats.runSummary({ until: since });
      expect(before.total).toBe(1);
      expect(before.durationMs.max).toBe(5000);
    });
  });
});
