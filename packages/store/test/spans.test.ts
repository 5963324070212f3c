import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createClient } from '@libsql/client';
import { drizzle } from 'drizzle-orm/libsql';
import {
  isStoreError,
  migrationsFolder,
  openStore,
  spanRunIdOf,
  type SpanRecord,
  type Store,
} from '../src/index.js';
import { runMigrations } from '../src/migrations.js';
import { makeTempDir, manualClock, openTestStore, STORE_KINDS, type StoreKind } from './helpers.js';

const T1 = '0af7651916cd43dd8448eb211c80319c';
const T2 = '4bf92f3577b34da6a3ce929d0e0e4736';
const T3 = 'b7ad6b7169203331b7ad6b7169203331';
const BASE_US = Date.UTC(2025, 0, 1, 12, 0, 0) * 1000;

/** A span with plain defaults; `overrides` set what a test cares about. */
function span(overrides: Partial<SpanRecord> = {}): SpanRecord {
  return {
    traceId: T1,
    spanId: '00f067aa0ba902b7',
    parentSpanId: null,
    name: 'agent.execute',
    kind: 1,
    serviceName: 'junction',
    scopeName: 'junction',
    startUs: BASE_US,
    durationUs: 1000,
    statusCode: 0,
    statusMessage: null,
    attributes: {},
    events: [],
    resource: { 'service.name': 'junction' },
    runId: null,
    ...overrides,
  };
}

/** A span id from a small number, for tests that need many. */
const sid = (n: number): string => n.toString(16).padStart(16, '0');
/** A trace id from a small number. */
const tid = (n: number): string => `f${n.toString(16).padStart(31, '0')}`;

async function refusal(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (err: unknown) => err,
  );
}

describe.each(STORE_KINDS)('spans on %s', (kind: StoreKind) => {
  let store: Store;
  let close: () => Promise<void>;

  beforeEach(async () => {
    ({ store, close } = await openTestStore(kind, manualClock().now));
  });
  afterEach(async () => {
    await close();
  });

  it('stores spans and reads a trace back in start order, every field as written', async () => {
    const root = span({
      spanId: 'a000000000000001',
      startUs: BASE_US,
      durationUs: 5000,
      kind: 2,
      attributes: { 'http.method': 'POST', retries: 2, tags: ['a', 'b'], nested: { ok: true } },
      events: [
        { name: 'exception', timeUs: BASE_US + 10, attributes: { 'exception.message': 'é' } },
      ],
      statusCode: 2,
      statusMessage: 'boom',
    });
    const child = span({
      spanId: 'a000000000000002',
      parentSpanId: 'a000000000000001',
      name: 'tool.call',
      kind: 3,
      scopeName: null,
      startUs: BASE_US + 100,
      durationUs: 200,
      statusCode: 1,
    });
    expect(await store.spans.insert([child, root])).toBe(2);
    expect(await store.spans.trace(T1)).toEqual([root, child]);
    expect(await store.spans.trace(T1.toUpperCase())).toEqual([root, child]);
    expect(await store.spans.trace(T2)).toEqual([]);
  });

  it('skips spans already stored, so a re-sent export is harmless', async () => {
    const a = span({ spanId: sid(1) });
    const b = span({ spanId: sid(2) });
    expect(await store.spans.insert([a, b])).toBe(2);
    expect(await store.spans.insert([a, b, span({ spanId: sid(3) })])).toBe(1);
    // Twice in one batch: stored once.
    expect(await store.spans.insert([span({ spanId: sid(4) }), span({ spanId: sid(4) })])).toBe(1);
    expect((await store.spans.trace(T1)).map((s) => s.spanId)).toEqual([
      sid(1),
      sid(2),
      sid(3),
      sid(4),
    ]);
    expect(await store.spans.insert([])).toBe(0);
  });

  it('takes the run id from the run_id or junction.run_id attribute when none is given', async () => {
    await store.spans.insert([
      span({ spanId: sid(1), attributes: { run_id: 7 } }),
      span({ spanId: sid(2), attributes: { 'junction.run_id': '8' } }),
      span({ spanId: sid(3), attributes: { run_id: 1.5, 'junction.run_id': 9 } }),
      span({ spanId: sid(4), attributes: { run_id: 'seven' } }),
      span({ spanId: sid(5), attributes: { run_id: 7 }, runId: 12 }),
    ]);
    expect((await store.spans.trace(T1)).map((s) => s.runId)).toEqual([7, 8, 9, null, 12]);
    expect(spanRunIdOf({ run_id: -3 })).toBeNull();
  });

  it('refuses a batch with one bad span and writes none of it', async () => {
    const cases: Array<[Partial<SpanRecord>, string]> = [
      [{ traceId: 'XYZ' }, 'traceId'],
      [{ traceId: '0'.repeat(32) }, 'traceId'],
      [{ traceId: T1.toUpperCase() }, 'traceId'],
      [{ spanId: '0'.repeat(16) }, 'spanId'],
      [{ spanId: 'abc' }, 'spanId'],
      [{ parentSpanId: 'nope' }, 'parentSpanId'],
      [{ kind: 6 }, 'kind'],
      [{ startUs: -1 }, 'startUs'],
      [{ durationUs: 1.5 }, 'durationUs'],
      [{ statusCode: 3 as 0 }, 'statusCode'],
      [{ attributes: [] as unknown as Record<string, unknown> }, 'attributes'],
    ];
    for (const [bad, field] of cases) {
      const err = await refusal(
        store.spans.insert([span({ spanId: sid(1) }), span({ spanId: sid(2), ...bad })]),
      );
      expect(isStoreError(err, 'INVALID_INPUT')).toBe(true);
      expect((err as Error).message).toContain(`Span 1: ${field}`);
    }
    expect(await store.spans.stats()).toEqual({ spans: 0, bytes: 0, oldestUs: null });
  });

  it('writes a batch larger than a statement could bind as one insert', async () => {
    const many = Array.from({ length: 3000 }, (_, i) =>
      span({ spanId: sid(i + 1), startUs: BASE_US + i, attributes: { i } }),
    );
    expect(await store.spans.insert(many)).toBe(3000);
    expect((await store.spans.stats()).spans).toBe(3000);
  });

  describe('searchTraces', () => {
    beforeEach(async () => {
      // T1: oldest, ok, service api with a worker child, run 1.
      // T2: middle, has an error, no parentless span (its root was never received).
      // T3: newest, service worker only, runs 2 and 3.
      await store.spans.insert([
        span({
          traceId: T1,
          spanId: sid(1),
          name: 'POST /runs',
          serviceName: 'api',
          startUs: BASE_US,
          durationUs: 500,
          attributes: { run_id: 1 },
        }),
        span({
          traceId: T1,
          spanId: sid(2),
          parentSpanId: sid(1),
          name: 'agent.execute',
          serviceName: 'worker',
          startUs: BASE_US + 100_000,
          durationUs: 900,
          statusCode: 1,
        }),
        span({
          traceId: T2,
          spanId: sid(3),
          parentSpanId: sid(9),
          name: 'tool.call',
          serviceName: 'worker',
          startUs: BASE_US + 2_000_000,
          durationUs: 50,
        }),
        span({
          traceId: T2,
          spanId: sid(4),
          parentSpanId: sid(9),
          name: 'llm.generate',
          serviceName: 'worker',
          startUs: BASE_US + 1_000_000,
          durationUs: 300,
          statusCode: 2,
          statusMessage: 'rate limited',
        }),
        span({
          traceId: T3,
          spanId: sid(5),
          name: 'agent.execute',
          serviceName: 'worker',
          startUs: BASE_US + 5_000_000,
          durationUs: 10,
          attributes: { run_id: 3 },
        }),
        span({
          traceId: T3,
          spanId: sid(6),
          parentSpanId: sid(5),
          name: 'tool.call',
          serviceName: 'worker',
          startUs: BASE_US + 5_000_001,
          durationUs: 10,
          attributes: { 'junction.run_id': 2 },
        }),
      ]);
    });

    it('lists traces newest first with their root, span and error counts, services and runs', async () => {
      expect(await store.spans.searchTraces({})).toEqual([
        {
          traceId: T3,
          rootName: 'agent.execute',
          rootService: 'worker',
          startUs: BASE_US + 5_000_000,
          durationUs: 11,
          spanCount: 2,
          errorCount: 0,
          services: ['worker'],
          runIds: [2, 3],
        },
        // No span without a parent: the earliest is the root.
        {
          traceId: T2,
          rootName: 'llm.generate',
          rootService: 'worker',
          startUs: BASE_US + 1_000_000,
          durationUs: 1_000_050,
          spanCount: 2,
          errorCount: 1,
          services: ['worker'],
          runIds: [],
        },
        {
          traceId: T1,
          rootName: 'POST /runs',
          rootService: 'api',
          startUs: BASE_US,
          durationUs: 100_900,
          spanCount: 2,
          errorCount: 0,
          services: ['api', 'worker'],
          runIds: [1],
        },
      ]);
    });

    it('matches a trace when any one of its spans matches, and narrows by status, time and limit', async () => {
      const ids = async (q: Parameters<Store['spans']['searchTraces']>[0]) =>
        (await store.spans.searchTraces(q)).map((t) => t.traceId);
      expect(await ids({ service: 'worker' })).toEqual([T3, T2, T1]);
      expect(await ids({ service: 'api' })).toEqual([T1]);
      expect(await ids({ operation: 'tool.call' })).toEqual([T3, T2]);
      expect(await ids({ service: 'api', operation: 'tool.call' })).toEqual([]);
      expect(await ids({ runId: 2 })).toEqual([T3]);
      expect(await ids({ runId: 1 })).toEqual([T1]);
      expect(await ids({ status: 'error' })).toEqual([T2]);
      expect(await ids({ status: 'ok' })).toEqual([T3, T1]);
      const at = (us: number) => new Date(us / 1000);
      // The trace's start counts, not its spans': T1 started before, so `since` drops it whole.
      expect(await ids({ since: at(BASE_US + 50_000) })).toEqual([T3, T2]);
      expect(await ids({ since: at(BASE_US + 1_000_000) })).toEqual([T3, T2]);
      // T2 started before `until` though one of its spans did not.
      expect(await ids({ until: at(BASE_US + 1_500_000) })).toEqual([T2, T1]);
      expect(await ids({ until: at(BASE_US + 1_500_000), operation: 'tool.call' })).toEqual([T2]);
      expect(await ids({ limit: 1 })).toEqual([T3]);
      expect(await ids({ service: 'nobody' })).toEqual([]);
    });

    it('refuses a limit outside 1–200 and an unknown status', async () => {
      for (const limit of [0, 201, 1.5]) {
        const err = await refusal(store.spans.searchTraces({ limit }));
        expect(isStoreError(err, 'INVALID_INPUT')).toBe(true);
        expect((err as Error).message).toBe(
          `limit must be a whole number from 1 to 200; got ${limit}.`,
        );
      }
      expect(await store.spans.searchTraces({ limit: 200 })).toHaveLength(3);
      const err = await refusal(store.spans.searchTraces({ status: 'bad' as 'ok' }));
      expect(isStoreError(err, 'INVALID_INPUT')).toBe(true);
    });

    it('finds the traces of a run and lists services with their operations', async () => {
      const ofRun = async (runId: number): Promise<string[]> =>
        (await store.spans.searchTraces({ runId })).map((t) => t.traceId);
      expect(await ofRun(1)).toEqual([T1]);
      expect(await ofRun(3)).toEqual([T3]);
      expect(await ofRun(99)).toEqual([]);
      expect(await store.spans.services()).toEqual([
        { name: 'api', operations: ['POST /runs'] },
        { name: 'worker', operations: ['agent.execute', 'llm.generate', 'tool.call'] },
      ]);
    });
  });

  describe('prune and stats', () => {
    /** Three traces of three spans a millisecond apart, the traces a second apart, oldest first. */
    async function fill(): Promise<number> {
      const records: SpanRecord[] = [];
      for (let t = 0; t < 3; t++) {
        for (let s = 0; s < 3; s++) {
          records.push(
            span({
              traceId: tid(t),
              spanId: sid(t * 10 + s + 1),
              startUs: BASE_US + t * 1_000_000 + s * 1000,
              attributes: { pad: 'x'.repeat(100) },
            }),
          );
        }
      }
      await store.spans.insert(records);
      return (await store.spans.stats()).bytes / 9;
    }

    it('counts spans and bytes, and knows the oldest start', async () => {
      expect(await store.spans.stats()).toEqual({ spans: 0, bytes: 0, oldestUs: null });
      const one = span({ name: 'n', attributes: { a: 'é' }, events: [], resource: {} });
      await store.spans.insert([one]);
      // name + {"a":"é"} (UTF-8) + [] + {}
      expect(await store.spans.stats()).toEqual({
        spans: 1,
        bytes: 1 + Buffer.byteLength('{"a":"é"}') + 2 + 2,
        oldestUs: BASE_US,
      });
    });

    it('deletes spans that started before the cut-off', async () => {
      await fill();
      // Cuts the middle trace in two: the age rule is per span.
      const deleted = await store.spans.prune({
        before: new Date(BASE_US / 1000 + 1002),
        maxBytes: Number.POSITIVE_INFINITY,
      });
      expect(deleted).toBe(5);
      expect(await store.spans.trace(tid(0))).toEqual([]);
      expect((await store.spans.trace(tid(1))).map((s) => s.spanId)).toEqual([sid(13)]);
      expect((await store.spans.stats()).spans).toBe(4);
    });

    it('deletes whole oldest traces while the table is over the size cap', async () => {
      const perSpan = await fill();
      const before = new Date(0);
      // Just over two traces: the oldest goes, whole.
      expect(await store.spans.prune({ before, maxBytes: perSpan * 6 + 1 })).toBe(3);
      expect(await store.spans.trace(tid(0))).toEqual([]);
      expect((await store.spans.trace(tid(1))).length).toBe(3);
      // Already within the cap: nothing more.
      expect(await store.spans.prune({ before, maxBytes: perSpan * 6 })).toBe(0);
      // One byte under: another whole trace, never part of one.
      expect(await store.spans.prune({ before, maxBytes: perSpan * 6 - 1 })).toBe(3);
      expect((await store.spans.searchTraces({})).map((t) => t.traceId)).toEqual([tid(2)]);
      expect(await store.spans.prune({ before, maxBytes: 0 })).toBe(3);
      expect(await store.spans.stats()).toEqual({ spans: 0, bytes: 0, oldestUs: null });
    });

    it('deletes past one batch of traces when the cap asks for it', async () => {
      const records = Array.from({ length: 1200 }, (_, i) =>
        span({ traceId: tid(i), spanId: sid(1), startUs: BASE_US + i }),
      );
      await store.spans.insert(records);
      expect(await store.spans.prune({ before: new Date(0), maxBytes: 0 })).toBe(1200);
    });

    it('refuses a cap that is not a number of at least 0', async () => {
      for (const maxBytes of [-1, Number.NaN]) {
        const err = await refusal(store.spans.prune({ before: new Date(0), maxBytes }));
        expect(isStoreError(err, 'INVALID_INPUT')).toBe(true);
      }
      const err = await refusal(store.spans.prune({ before: new Date('nope'), maxBytes: 1 }));
      expect(isStoreError(err, 'INVALID_INPUT')).toBe(true);
    });
  });
});

describe('the spans migration', () => {
  let temp: ReturnType<typeof makeTempDir>;
  beforeEach(() => {
    temp = makeTempDir();
  });
  afterEach(() => temp.cleanup());

  const journal = (folder: string) =>
    JSON.parse(fs.readFileSync(path.join(folder, 'meta', '_journal.json'), 'utf8')) as {
      entries: Array<{ tag: string }>;
    };

  async function spanSchemaOf(dbPath: string): Promise<string[]> {
    const client = createClient({ url: pathToFileURL(dbPath).href });
    try {
      return (
        await client.execute(
          "SELECT name FROM sqlite_master WHERE tbl_name = 'spans' AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )
      ).rows.map((row) => String(row.name));
    } finally {
      client.close();
    }
  }

  it('ships as migration 0011_spans', () => {
    const entries = journal(migrationsFolder()).entries;
    expect(entries.map((e) => e.tag)).toContain('0011_spans');
    expect(fs.existsSync(path.join(migrationsFolder(), '0011_spans.sql'))).toBe(true);
  });

  it('upgrades a database made before it to the table and its indexes', async () => {
    const before = path.join(temp.dir, 'drizzle-before');
    fs.cpSync(migrationsFolder(), before, { recursive: true });
    const old = journal(before);
    const index = old.entries.findIndex((e) => e.tag === '0011_spans');
    fs.writeFileSync(
      path.join(before, 'meta', '_journal.json'),
      JSON.stringify({ ...old, entries: old.entries.slice(0, index) }),
    );
    const dbPath = path.join(temp.dir, 'old.db');
    const client = createClient({ url: pathToFileURL(dbPath).href });
    try {
      await runMigrations(drizzle(client), before);
    } finally {
      client.close();
    }
    expect(await spanSchemaOf(dbPath)).toEqual([]);

    const store = await openStore({ url: dbPath });
    try {
      expect(await store.spans.insert([span()])).toBe(1);
    } finally {
      await store.close();
    }
    expect(await spanSchemaOf(dbPath)).toEqual([
      'spans',
      'spans_run_idx',
      'spans_service_start_idx',
      'spans_start_idx',
    ]);
  });
});
