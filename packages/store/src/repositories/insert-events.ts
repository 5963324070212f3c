import { sql } from 'drizzle-orm';
import type { LibSQLDatabase } from 'drizzle-orm/libsql';

/** An event as the runner hands it over. */
export interface EventRow {
  type: string;
  payload?: unknown;
  durationMs?: number | null;
}

/**
 * One INSERT for many events of a run, numbered after the run's last event inside the
 * statement itself: SQLite evaluates the SELECT (and its MAX) before inserting, so the
 * numbers are consecutive and no other writer can take them (each statement holds the
 * write lock). One statement instead of a read plus one per event.
 */
export function insertEvents(
  db: LibSQLDatabase,
  runId: number,
  events: readonly EventRow[],
  now: Date,
): Promise<unknown> {
  const rows = events.map(
    (e, i) =>
      sql`(${i + 1}, ${e.type}, ${e.payload === undefined || e.payload === null ? null : JSON.stringify(e.payload)}, ${e.durationMs ?? null})`,
  );
  return db.run(sql`INSERT INTO run_events (run_id, seq, type, payload, duration_ms, created_at)
    SELECT ${runId}, base.m + v.column1, v.column2, v.column3, v.column4, ${now.getTime()}
    FROM (SELECT COALESCE(MAX(seq), 0) AS m FROM run_events WHERE run_id = ${runId}) AS base,
         (VALUES ${sql.join(rows, sql`, `)}) AS v`);
}
