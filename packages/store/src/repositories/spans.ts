import type { Client } from '@libsql/client';
import { asc, eq, lt, sql, type SQL } from 'drizzle-orm';
import type { LibSQLDatabase } from 'drizzle-orm/libsql';
import { spans } from '../schema.js';
import type { StoreContext } from '../store-context.js';
import { StoreError } from '../store-error.js';

/** One span as Junction keeps it: OTLP's span, flattened to plain JSON values. */
export interface SpanRecord {
  /** 32 lowercase hex digits, not all zero. */
  traceId: string;
  /** 16 lowercase hex digits, not all zero. */
  spanId: string;
  parentSpanId: string | null;
  name: string;
  /** OTLP SpanKind: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  serviceName: string;
  scopeName: string | null;
  /** Microseconds since the epoch. */
  startUs: number;
  durationUs: number;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: 0 | 1 | 2;
  statusMessage: string | null;
  attributes: Record<string, unknown>;
  events: SpanEventRecord[];
  /** The resource's attributes (`service.name`, …). */
  resource: Record<string, unknown>;
  /** The Junction run the span belongs to; `insert` fills it from the attributes when null. */
  runId: number | null;
}

/** A timed event of a span (an exception, a log line). */
export interface SpanEventRecord {
  name: string;
  /** Microseconds since the epoch. */
  timeUs: number;
  attributes: Record<string, unknown>;
}

/** Which traces `searchTraces` answers; every field narrows the search. */
export interface TraceSearch {
  /** Some span of the trace has this service name. */
  service?: string;
  /** Some span of the trace has this name. */
  operation?: string;
  /** Some span of the trace belongs to this run. */
  runId?: number;
  /** `error`: some span has status error; `ok`: none has. */
  status?: 'error' | 'ok';
  /** The trace started at or after. */
  since?: Date;
  /** The trace started before. */
  until?: Date;
  /** Default 20, at most 200. */
  limit?: number;
}

/** One trace in a list: its root span and what its spans add up to. */
export interface TraceSummary {
  traceId: string;
  /** The span without a parent, else the earliest span. */
  rootName: string;
  rootService: string;
  /** Start of the earliest span, microseconds since the epoch. */
  startUs: number;
  /** From the earliest start to the latest end. */
  durationUs: number;
  spanCount: number;
  /** Spans with status error. */
  errorCount: number;
  /** Sorted. */
  services: string[];
  /** Sorted. */
  runIds: number[];
}

/** What `prune` keeps: spans started at or after `before`, and at most `maxBytes` of them. */
export interface SpanPrune {
  before: Date;
  /** The size cap, counted in `size_bytes`; `Infinity` for none. */
  maxBytes: number;
}

/** How much the spans table holds. */
export interface SpanStats {
  spans: number;
  bytes: number;
  /** Start of the oldest span, microseconds since the epoch; null when there is none. */
  oldestUs: number | null;
}

export const DEFAULT_TRACE_SEARCH_LIMIT = 20;
export const MAX_TRACE_SEARCH_LIMIT = 200;
/** Most traces one statement of the size cap deletes, so other writers get their turn. */
const PRUNE_BATCH_TRACES = 500;

/** The attribute names that say which run a span belongs to, in the order they are read. */
const RUN_ID_ATTRIBUTES = ['run_id', 'junction.run_id'] as const;

/**
 * The run id a span's attributes name (`run_id`, else `junction.run_id`), when it is a whole
 * number — a number, or its decimal digits as a string; otherwise null.
 */
export function spanRunIdOf(attributes: Record<string, unknown>): number | null {
  for (const key of RUN_ID_ATTRIBUTES) {
    const value = attributes[key];
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
    if (typeof value === 'string' && /^\d{1,15}$/.test(value)) return Number(value);
  }
  return null;
}

/*
 * One INSERT for any number of spans: they travel as one JSON array of rows read by json_each,
 * so the SQL text never changes (its prepared statement is reused) and the batch is written
 * whole or not at all. `WHERE true` keeps SQLite from reading ON CONFLICT as a join's ON.
 */
const INSERT_SPANS = `INSERT INTO spans
  (trace_id, span_id, parent_span_id, name, kind, service_name, scope_name, start_us,
   duration_us, status_code, status_message, attributes, events, resource, run_id, size_bytes,
   received_at)
  SELECT e.value ->> 0, e.value ->> 1, e.value ->> 2, e.value ->> 3, e.value ->> 4,
         e.value ->> 5, e.value ->> 6, e.value ->> 7, e.value ->> 8, e.value ->> 9,
         e.value ->> 10, e.value ->> 11, e.value ->> 12, e.value ->> 13, e.value ->> 14,
         e.value ->> 15, ?2
  FROM json_each(?1) AS e WHERE true
  ON CONFLICT DO NOTHING`;

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;
const ZEROS = /^0+$/;

function invalid(index: number, field: string, why: string, value: unknown): StoreError {
  const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 80)) : String(value);
  return new StoreError('INVALID_INPUT', `Span ${index}: ${field} ${why}; got ${shown}.`, {
    index,
    field,
  });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkWhole(index: number, field: string, value: unknown): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw invalid(index, field, 'must be a whole number of at least 0', value);
  }
}

function jsonText(index: number, field: string, value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    throw new StoreError(
      'INVALID_INPUT',
      `Span ${index}: ${field} cannot be written as JSON.`,
      { index, field },
      { cause: err },
    );
  }
}

/** The row `INSERT_SPANS` reads for one span; a span that breaks a rule is INVALID_INPUT. */
function rowOf(span: SpanRecord, index: number): unknown[] {
  if (
    typeof span.traceId !== 'string' ||
    !TRACE_ID.test(span.traceId) ||
    ZEROS.test(span.traceId)
  ) {
    throw invalid(index, 'traceId', 'must be 32 lowercase hex digits, not all zero', span.traceId);
  }
  if (typeof span.spanId !== 'string' || !SPAN_ID.test(span.spanId) || ZEROS.test(span.spanId)) {
    throw invalid(index, 'spanId', 'must be 16 lowercase hex digits, not all zero', span.spanId);
  }
  const parent = span.parentSpanId ?? null;
  if (
    parent !== null &&
    (typeof parent !== 'string' || !SPAN_ID.test(parent) || ZEROS.test(parent))
  ) {
    throw invalid(index, 'parentSpanId', 'must be null or 16 lowercase hex digits', parent);
  }
  if (typeof span.name !== 'string') throw invalid(index, 'name', 'must be a string', span.name);
  if (!Number.isInteger(span.kind) || span.kind < 0 || span.kind > 5) {
    throw invalid(index, 'kind', 'must be an OTLP SpanKind from 0 to 5', span.kind);
  }
  if (typeof span.serviceName !== 'string') {
    throw invalid(index, 'serviceName', 'must be a string', span.serviceName);
  }
  const scope = span.scopeName ?? null;
  if (scope !== null && typeof scope !== 'string') {
    throw invalid(index, 'scopeName', 'must be a string or null', scope);
  }
  checkWhole(index, 'startUs', span.startUs);
  checkWhole(index, 'durationUs', span.durationUs);
  if (span.statusCode !== 0 && span.statusCode !== 1 && span.statusCode !== 2) {
    throw invalid(index, 'statusCode', 'must be 0 (unset), 1 (ok) or 2 (error)', span.statusCode);
  }
  const message = span.statusMessage ?? null;
  if (message !== null && typeof message !== 'string') {
    throw invalid(index, 'statusMessage', 'must be a string or null', message);
  }
  if (!isPlainObject(span.attributes)) {
    throw invalid(index, 'attributes', 'must be an object', span.attributes);
  }
  if (!Array.isArray(span.events)) throw invalid(index, 'events', 'must be an array', span.events);
  if (!isPlainObject(span.resource)) {
    throw invalid(index, 'resource', 'must be an object', span.resource);
  }
  const runId = span.runId ?? spanRunIdOf(span.attributes);
  if (runId !== null) checkWhole(index, 'runId', runId);
  const attributes = jsonText(index, 'attributes', span.attributes);
  const events = jsonText(index, 'events', span.events);
  const resource = jsonText(index, 'resource', span.resource);
  const sizeBytes =
    Buffer.byteLength(span.name) +
    Buffer.byteLength(attributes) +
    Buffer.byteLength(events) +
    Buffer.byteLength(resource);
  return [
    span.traceId,
    span.spanId,
    parent,
    span.name,
    span.kind,
    span.serviceName,
    scope,
    span.startUs,
    span.durationUs,
    span.statusCode,
    message,
    attributes,
    events,
    resource,
    runId,
    sizeBytes,
  ];
}

function checkLimit(limit: number | undefined): number {
  const value = limit ?? DEFAULT_TRACE_SEARCH_LIMIT;
  if (!Number.isInteger(value) || value < 1 || value > MAX_TRACE_SEARCH_LIMIT) {
    throw new StoreError(
      'INVALID_INPUT',
      `limit must be a whole number from 1 to ${MAX_TRACE_SEARCH_LIMIT}; got ${String(value)}.`,
      { field: 'limit', value: String(value) },
    );
  }
  return value;
}

/** Microseconds since the epoch of a date; an invalid date is INVALID_INPUT. */
function microsOf(field: string, date: Date): number {
  const ms = date instanceof Date ? date.getTime() : Number.NaN;
  if (!Number.isFinite(ms)) {
    throw new StoreError('INVALID_INPUT', `${field} must be a valid date; got ${String(date)}.`, {
      field,
    });
  }
  return ms * 1000;
}

/** A JSON array text from the database, its nulls dropped. */
function jsonArray(text: unknown): unknown[] {
  if (typeof text !== 'string') return [];
  const parsed = JSON.parse(text) as unknown;
  return Array.isArray(parsed) ? parsed.filter((v) => v !== null) : [];
}

interface SummaryRow {
  trace_id: string;
  trace_start: number;
  trace_end: number;
  span_count: number;
  error_count: number;
  services: string;
  run_ids: string | null;
  root_name: string;
  root_service: string;
}

/**
 * The `spans` table: traces Junction keeps itself. Writes are whole batches that skip spans
 * already stored; reads group spans into traces; `prune` keeps the table within its age and
 * size.
 */
export class SpansRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /**
   * Writes spans in one statement, skipping those already stored (a re-sent export is
   * harmless); returns how many were written. One bad span is INVALID_INPUT and nothing is
   * written. A span's runId, when null, is read from its `run_id` or `junction.run_id` attribute.
   */
  async insert(records: readonly SpanRecord[]): Promise<number> {
    const rows = records.map(rowOf);
    if (rows.length === 0) return 0;
    const receivedAt = this.#ctx.now().getTime();
    const json = JSON.stringify(rows);
    return this.#ctx.write(`store ${rows.length} spans`, async (db) => {
      const client = (db as LibSQLDatabase & { $client: Client }).$client;
      const result = await client.execute({ sql: INSERT_SPANS, args: [json, receivedAt] });
      return result.rowsAffected;
    });
  }

  /**
   * Traces with a span matching `service`, `operation` and `runId` (one span matching all
   * three), whose status and start fit the search; newest first.
   */
  async searchTraces(search: TraceSearch = {}): Promise<TraceSummary[]> {
    const limit = checkLimit(search.limit);
    const sinceUs = search.since === undefined ? undefined : microsOf('since', search.since);
    const untilUs = search.until === undefined ? undefined : microsOf('until', search.until);
    if (search.status !== undefined && search.status !== 'error' && search.status !== 'ok') {
      throw new StoreError(
        'INVALID_INPUT',
        `status must be "error" or "ok"; got ${JSON.stringify(String(search.status))}.`,
        { field: 'status', value: String(search.status) },
      );
    }
    const matching: SQL[] = [];
    if (search.service !== undefined) matching.push(sql`service_name = ${search.service}`);
    if (search.operation !== undefined) matching.push(sql`name = ${search.operation}`);
    if (search.runId !== undefined) matching.push(sql`run_id = ${search.runId}`);
    // Every span of a trace starting at or after `since` does too: narrows the candidates early.
    if (sinceUs !== undefined) matching.push(sql`start_us >= ${sinceUs}`);
    const having: SQL[] = [];
    if (sinceUs !== undefined) having.push(sql`MIN(start_us) >= ${sinceUs}`);
    if (untilUs !== undefined) having.push(sql`MIN(start_us) < ${untilUs}`);
    if (search.status === 'error') having.push(sql`SUM(status_code = 2) > 0`);
    if (search.status === 'ok') having.push(sql`SUM(status_code = 2) = 0`);

    const where =
      matching.length === 0
        ? sql``
        : sql`WHERE trace_id IN (SELECT trace_id FROM spans WHERE ${sql.join(matching, sql` AND `)})`;
    const havingClause = having.length === 0 ? sql`` : sql`HAVING ${sql.join(having, sql` AND `)}`;
    const rows = await this.#ctx.read('search traces', (db) =>
      db.all<SummaryRow>(sql`
        WITH found AS (
          SELECT trace_id,
                 MIN(start_us) AS trace_start,
                 MAX(start_us + duration_us) AS trace_end,
                 COUNT(*) AS span_count,
                 SUM(status_code = 2) AS error_count,
                 json_group_array(DISTINCT service_name) AS services,
                 json_group_array(DISTINCT run_id) FILTER (WHERE run_id IS NOT NULL) AS run_ids
          FROM spans
          ${where}
          GROUP BY trace_id
          ${havingClause}
          ORDER BY trace_start DESC, trace_id
          LIMIT ${limit}
        )
        SELECT f.trace_id, f.trace_start, f.trace_end, f.span_count, f.error_count, f.services,
               f.run_ids, r.name AS root_name, r.service_name AS root_service
        FROM found AS f
        JOIN spans AS r ON r.trace_id = f.trace_id AND r.span_id = (
          SELECT s.span_id FROM spans AS s WHERE s.trace_id = f.trace_id
          ORDER BY s.parent_span_id IS NOT NULL, s.start_us, s.span_id LIMIT 1)
        ORDER BY f.trace_start DESC, f.trace_id`),
    );
    return rows.map((row) => ({
      traceId: row.trace_id,
      rootName: row.root_name,
      rootService: row.root_service,
      startUs: Number(row.trace_start),
      durationUs: Number(row.trace_end) - Number(row.trace_start),
      spanCount: Number(row.span_count),
      errorCount: Number(row.error_count),
      services: (jsonArray(row.services) as string[]).sort(),
      runIds: (jsonArray(row.run_ids) as number[]).map(Number).sort((a, b) => a - b),
    }));
  }

  /** The spans of one trace by start time; empty when the trace is unknown. */
  async trace(traceId: string): Promise<SpanRecord[]> {
    const rows = await this.#ctx.read('read trace', (db) =>
      db
        .select()
        .from(spans)
        .where(eq(spans.traceId, traceId.toLowerCase()))
        .orderBy(asc(spans.startUs), asc(spans.spanId)),
    );
    return rows.map((row) => ({
      traceId: row.traceId,
      spanId: row.spanId,
      parentSpanId: row.parentSpanId,
      name: row.name,
      kind: row.kind,
      serviceName: row.serviceName,
      scopeName: row.scopeName,
      startUs: row.startUs,
      durationUs: row.durationUs,
      statusCode: row.statusCode as 0 | 1 | 2,
      statusMessage: row.statusMessage,
      attributes: row.attributes,
      events: row.events as SpanEventRecord[],
      resource: row.resource,
      runId: row.runId,
    }));
  }

  /** Every service with the span names (operations) seen in it, both sorted. */
  async services(): Promise<{ name: string; operations: string[] }[]> {
    const rows = await this.#ctx.read('list trace services', (db) =>
      db
        .select({ service: spans.serviceName, operation: spans.name })
        .from(spans)
        .groupBy(spans.serviceName, spans.name)
        .orderBy(asc(spans.serviceName), asc(spans.name)),
    );
    const services: { name: string; operations: string[] }[] = [];
    for (const row of rows) {
      const last = services[services.length - 1];
      if (last?.name === row.service) last.operations.push(row.operation);
      else services.push({ name: row.service, operations: [row.operation] });
    }
    return services;
  }

  /**
   * Deletes spans started before `before`, then, while the table holds more than `maxBytes`,
   * whole traces, oldest first, a batch per statement; returns how many spans went.
   */
  async prune(options: SpanPrune): Promise<number> {
    const beforeUs = microsOf('before', options.before);
    const { maxBytes } = options;
    if (typeof maxBytes !== 'number' || Number.isNaN(maxBytes) || maxBytes < 0) {
      throw new StoreError(
        'INVALID_INPUT',
        `maxBytes must be a number of at least 0 (Infinity for no cap); got ${String(maxBytes)}.`,
        { field: 'maxBytes', value: String(maxBytes) },
      );
    }
    let deleted = await this.#ctx.write('prune old spans', async (db) => {
      const result = await db.delete(spans).where(lt(spans.startUs, beforeUs));
      return result.rowsAffected;
    });
    if (maxBytes === Number.POSITIVE_INFINITY) return deleted;
    for (;;) {
      const removed = await this.#ctx.write('prune spans over the size cap', (db) =>
        this.#deleteOldestTraces(db, maxBytes),
      );
      if (removed === 0) return deleted;
      deleted += removed;
    }
  }

  /** How many spans, how many bytes, and the oldest start. */
  async stats(): Promise<SpanStats> {
    const [row] = await this.#ctx.read('count spans', (db) =>
      db
        .select({
          spans: sql<number>`COUNT(*)`,
          bytes: sql<number>`COALESCE(SUM(${spans.sizeBytes}), 0)`,
          oldestUs: sql<number | null>`MIN(${spans.startUs})`,
        })
        .from(spans),
    );
    return {
      spans: Number(row?.spans ?? 0),
      bytes: Number(row?.bytes ?? 0),
      oldestUs: row?.oldestUs === null || row?.oldestUs === undefined ? null : Number(row.oldestUs),
    };
  }

  /**
   * One batch of the size cap: the fewest oldest traces (at most PRUNE_BATCH_TRACES) whose
   * bytes cover what the table holds over `maxBytes`; 0 when it holds no more.
   */
  async #deleteOldestTraces(db: LibSQLDatabase, maxBytes: number): Promise<number> {
    const [total] = await db.all<{ bytes: number }>(
      sql`SELECT COALESCE(SUM(size_bytes), 0) AS bytes FROM spans`,
    );
    const excess = Number(total?.bytes ?? 0) - maxBytes;
    if (excess <= 0) return 0;
    // A trace goes while the traces older than it hold less than the excess.
    const result = await db.run(sql`
      DELETE FROM spans WHERE trace_id IN (
        SELECT trace_id FROM (
          SELECT trace_id, trace_start,
                 SUM(bytes) OVER (ORDER BY trace_start, trace_id ROWS UNBOUNDED PRECEDING) - bytes
                   AS older
          FROM (SELECT trace_id, MIN(start_us) AS trace_start, SUM(size_bytes) AS bytes
                FROM spans GROUP BY trace_id)
        )
        WHERE older < ${excess}
        ORDER BY trace_start, trace_id
        LIMIT ${PRUNE_BATCH_TRACES})`);
    return result.rowsAffected;
  }
}
