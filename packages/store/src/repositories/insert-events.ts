import type { Client } from '@libsql/client';
import type { LibSQLDatabase } from 'drizzle-orm/libsql';

/** An event as the runner hands it over. */
export interface EventRow {
  type: string;
  payload?: unknown;
  durationMs?: number | null;
}

/*
 * One INSERT for any number of events of a run, numbered after the run's last event inside the
 * statement itself: SQLite evaluates the SELECT (and its MAX) before inserting, so the numbers
 * are consecutive and no other writer can take them (each statement holds the write lock).
 * The events travel as one JSON array of [type, payload JSON, duration] read by json_each, so
 * the SQL text never changes and its prepared statement is reused.
 */
const INSERT_EVENTS = `INSERT INTO run_events (run_id, seq, type, payload, duration_ms, created_at)
  SELECT ?1, base.m + e.key + 1, e.value ->> 0, e.value ->> 1, e.value ->> 2, ?2
  FROM (SELECT COALESCE(MAX(seq), 0) AS m FROM run_events WHERE run_id = ?1) AS base,
       json_each(?3) AS e`;

export function insertEvents(
  db: LibSQLDatabase,
  runId: number,
  events: readonly EventRow[],
  now: Date,
): Promise<unknown> {
  const rows = events.map((e) => [
    e.type,
    e.payload === undefined || e.payload === null ? null : JSON.stringify(e.payload),
    e.durationMs ?? null,
  ]);
  const client = (db as LibSQLDatabase & { $client: Client }).$client;
  return client.execute({ sql: INSERT_EVENTS, args: [runId, now.getTime(), JSON.stringify(rows)] });
}
