import { sql, type SQL } from 'drizzle-orm';
import type { LibSQLDatabase } from 'drizzle-orm/libsql';

const caches = new WeakMap<LibSQLDatabase, Map<string, unknown>>();

/**
 * The statement `build` makes, built once per database and kept. drizzle otherwise builds the
 * SQL text of a query again on every call, which on the run hot path (create, claim, finish)
 * cost more than executing it. `key` must name everything that changes the SQL text.
 */
export function prepared<T>(db: LibSQLDatabase, key: string, build: (db: LibSQLDatabase) => T): T {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  let statement = cache.get(key) as T | undefined;
  if (statement === undefined) {
    statement = build(db);
    cache.set(key, statement);
  }
  return statement;
}

/**
 * A placeholder handed to the driver exactly as given — no column encoder runs on it, so
 * callers pass driver values: see `driverValue`.
 */
export function slot(name: string): SQL {
  return sql`${sql.placeholder(name)}`;
}

/** A row value as the driver stores it: dates as epoch milliseconds, undefined as NULL. */
export function driverValue(value: unknown): unknown {
  if (value instanceof Date) return value.getTime();
  return value ?? null;
}
