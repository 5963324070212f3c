import type { Client } from '@libsql/client';
import type { LibSQLDatabase } from 'drizzle-orm/libsql';
import type { BatchItem, DirectSelect } from '../direct-select.js';

/** An event as the runner hands it over. */
export interface EventRow {
  type: string;
  payload?: unknown;
  /** What a resumed run needs of the event (see `run_events.journal`). */
  journal?: unknown;
  durationMs?: number | null;
}

/*
 * One INSERT for any number of events of a run, numbered after the run's last event inside the
 * statement itself: SQLite evaluates the SELECT (and its MAX) before inserting, so the numbers
 * are consecutive and no other writer can take them (each statement holds the write lock).
 * The events travel as one JSON array of [type, payload JSON, duration, journal JSON] read by
 * json_each, so the SQL text never changes and its prepared statement is reused.
 */
const INSERT_EVENTS = `INSERT INTO run_events (run_id, seq, type, payload, duration_ms, created_at, journal)
  SELECT ?1, base.m + e.key + 1, e.value ->> 0, e.value ->> 1, e.value ->> 2, ?2, e.value ->> 3
  FROM (SELECT COALESCE(MAX(seq), 0) AS m FROM run_events WHERE run_id = ?1) AS base,
       json_each(?3) AS e`;

/** The events as the one JSON argument of INSERT_EVENTS. */
function eventsJson(events: readonly EventRow[]): string {
  const rows = events.map((e) => [
    e.type,
    e.payload === undefined || e.payload === null ? null : JSON.stringify(e.payload),
    e.durationMs ?? null,
    e.journal === undefined || e.journal === null ? null : JSON.stringify(e.journal),
  ]);
  return JSON.stringify(rows);
}

export function insertEvents(
  db: LibSQLDatabase,
  runId: number,
  events: readonly EventRow[],
  now: Date,
): Promise<unknown> {
  const client = (db as LibSQLDatabase & { $client: Client }).$client;
  return client.execute({ sql: INSERT_EVENTS, args: [runId, now.getTime(), eventsJson(events)] });
}

/*
 * The same insert as the statement after a conditional write in one batch: it inserts only
 * when the statement before it changed a row (`changes()` answers the last statement that
 * completed on the connection, here the one before it in the same transaction).
 */
const INSERT_EVENTS_IF_CHANGED: DirectSelect<unknown> = {
  sql: `${INSERT_EVENTS}\n  WHERE changes() > 0`,
  args: [(v) => v.runId, (v) => v.now, (v) => v.events],
  keys: [],
  decoders: [],
};

/** The events of a run as one statement of a write batch (`runWriteBatch`). */
export function eventsItem(runId: number, events: readonly EventRow[], now: Date): BatchItem {
  return {
    select: INSERT_EVENTS_ITEM,
    values: { runId, now: now.getTime(), events: eventsJson(events) },
  };
}

/**
 * The events of a run as one statement of a write batch, written only while `workerId` holds the
 * run (running, under its claim): the journal of a run that is about to act.
 */
export function eventsIfHeld(
  runId: number,
  workerId: string,
  events: readonly EventRow[],
  now: Date,
): BatchItem {
  return {
    select: INSERT_EVENTS_IF_HELD,
    values: { runId, now: now.getTime(), events: eventsJson(events), workerId },
  };
}

/**
 * SQL true while the worker whose id is the parameter `worker` holds the run whose id is the
 * parameter `id` (running, under its claim): the condition of every write of a run's journal
 * (its drizzle form, for the lease's statements, is `heldBy` in runs.ts).
 */
export function heldBy(id: string, worker: string): string {
  return `id = ${id} AND status = 'running' AND worker_id = ${worker}`;
}

const INSERT_EVENTS_IF_HELD: DirectSelect<unknown> = {
  sql: `${INSERT_EVENTS}
  WHERE EXISTS (SELECT 1 FROM runs WHERE ${heldBy('?1', '?4')})`,
  args: [(v) => v.runId, (v) => v.now, (v) => v.events, (v) => v.workerId],
  keys: [],
  decoders: [],
};

const INSERT_EVENTS_ITEM: DirectSelect<unknown> = {
  sql: INSERT_EVENTS,
  args: [(v) => v.runId, (v) => v.now, (v) => v.events],
  keys: [],
  decoders: [],
};

/**
 * The events of a run as a batch item that follows the write it depends on (a run's end):
 * in one transaction with it, and written only when that write changed the run.
 */
export function eventsIfChanged(runId: number, events: readonly EventRow[], now: Date): BatchItem {
  return {
    select: INSERT_EVENTS_IF_CHANGED,
    values: { runId, now: now.getTime(), events: eventsJson(events) },
  };
}
