// Trace retention on a real store: spans go by age and, over the size cap, whole oldest
// traces; it prunes at start and on its interval, and tells the log when it deleted.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { Store } from '@junction/store';
import { startTraceRetention, type TraceRetention } from '../src/index.js';
import { memoryLogger, openTempStore, spanRecord } from './helpers.js';

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const HOUR = 60 * 60 * 1000;
const tid = (n: number): string => `a${n.toString(16).padStart(31, '0')}`;
const sid = (n: number): string => `b${n.toString(16).padStart(15, '0')}`;

/** `spans` spans of one trace, started `ageMs` before NOW. */
function traceOf(n: number, ageMs: number, spans = 2): ReturnType<typeof spanRecord>[] {
  return Array.from({ length: spans }, (_, i) =>
    spanRecord({
      traceId: tid(n),
      spanId: sid(n * 100 + i + 1),
      startUs: (NOW - ageMs) * 1000 + i,
      attributes: { pad: 'x'.repeat(200) },
    }),
  );
}

describe('startTraceRetention', () => {
  let store: Store;
  let closeStore: () => Promise<void>;
  let log: ReturnType<typeof memoryLogger>;
  let retention: TraceRetention | undefined;

  beforeEach(async () => {
    ({ store, close: closeStore } = await openTempStore());
    log = memoryLogger();
  });
  afterEach(async () => {
    retention?.stop();
    retention = undefined;
    await closeStore();
  });

  const now = (): Date => new Date(NOW);

  it('deletes spans older than the retention at start, and logs it', async () => {
    await store.spans.insert([...traceOf(1, 48 * HOUR), ...traceOf(2, 2 * HOUR), ...traceOf(3, 0)]);
    retention = startTraceRetention({
      store,
      logger: log.logger,
      retentionMs: 24 * HOUR,
      maxBytes: Number.POSITIVE_INFINITY,
      now,
    });
    // The prune started at start: runOnce shares it.
    expect(await retention.runOnce()).toBe(2);
    expect(await store.spans.trace(tid(1))).toEqual([]);
    expect((await store.spans.stats()).spans).toBe(4);
    expect(log.lines()).toContainEqual(
      expect.objectContaining({
        level: 'info',
        msg: 'pruned trace spans',
        deleted: 2,
        kept: 4,
        retention_ms: 24 * HOUR,
      }),
    );
    // Nothing more to delete: nothing more logged.
    expect(await retention.runOnce()).toBe(0);
    expect(log.lines().filter((l) => l.msg === 'pruned trace spans')).toHaveLength(1);
  });

  it('deletes whole oldest traces while the spans are over the size cap', async () => {
    await store.spans.insert([
      ...traceOf(1, 3 * HOUR),
      ...traceOf(2, 2 * HOUR),
      ...traceOf(3, HOUR),
    ]);
    const { bytes } = await store.spans.stats();
    retention = startTraceRetention({
      store,
      logger: log.logger,
      retentionMs: 24 * HOUR,
      // Room for two traces and a bit.
      maxBytes: Math.ceil((bytes * 2) / 3) + 10,
      now,
    });
    expect(await retention.runOnce()).toBe(2);
    expect((await store.spans.searchTraces({})).map((t) => t.traceId)).toEqual([tid(3), tid(2)]);
  });

  it('prunes again on its interval until stopped', async () => {
    let clock = NOW;
    retention = startTraceRetention({
      store,
      logger: log.logger,
      retentionMs: HOUR,
      maxBytes: Number.POSITIVE_INFINITY,
      intervalMs: 20,
      now: () => new Date(clock),
    });
    await retention.runOnce();
    await store.spans.insert(traceOf(1, 0));
    // Time passes: the trace is now two hours old, and the next tick takes it.
    clock += 2 * HOUR;
    const deadline = Date.now() + 5000;
    while ((await store.spans.stats()).spans > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect((await store.spans.stats()).spans).toBe(0);

    retention.stop();
    await store.spans.insert(traceOf(2, 3 * HOUR));
    await new Promise((r) => setTimeout(r, 80));
    expect((await store.spans.stats()).spans).toBe(2);
  });

  it('logs a failed prune and keeps going', async () => {
    retention = startTraceRetention({
      store,
      logger: log.logger,
      retentionMs: HOUR,
      maxBytes: 1000,
      intervalMs: 20,
      now,
    });
    await retention.runOnce();
    await store.close();
    await expect(retention.runOnce()).rejects.toMatchObject({ code: 'STORE_CLOSED' });
    const deadline = Date.now() + 5000;
    while (!log.text().includes('pruning trace spans failed') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(log.lines()).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        msg: 'pruning trace spans failed; trying again at the next interval',
      }),
    );
  });

  it('refuses settings that make no sense', () => {
    const base = { store, logger: log.logger, retentionMs: HOUR, maxBytes: 1 };
    expect(() => startTraceRetention({ ...base, retentionMs: -1 })).toThrow(
      'retentionMs must be a number of at least 0; got -1.',
    );
    expect(() => startTraceRetention({ ...base, maxBytes: Number.NaN })).toThrow('maxBytes');
    expect(() => startTraceRetention({ ...base, intervalMs: 0 })).toThrow('intervalMs');
  });
});
