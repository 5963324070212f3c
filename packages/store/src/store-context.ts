import type { LibSQLDatabase } from 'drizzle-orm/libsql';
import type { DirectSelect, RowReader } from './direct-select.js';

/** What every repository gets: the database, the clock, and the read/write gates. */
export interface StoreContext {
  /** The current time; injectable so tests are deterministic. */
  now(): Date;
  /** Runs a read, turning driver errors into StoreErrors that name `operation`. */
  read<T>(operation: string, task: (db: LibSQLDatabase) => Promise<T>): Promise<T>;
  /**
   * Runs a select built with `directSelect` (a hot read path), filling its placeholders from
   * `values`; driver errors become StoreErrors that name `operation`.
   */
  select<Row>(
    operation: string,
    select: (db: LibSQLDatabase) => DirectSelect<Row>,
    values: Record<string, unknown>,
  ): Promise<Row[]>;
  /** Like `select`, for a query of at most one row: its row, or undefined. */
  selectFirst<Row>(
    operation: string,
    select: (db: LibSQLDatabase) => DirectSelect<Row>,
    values: Record<string, unknown>,
  ): Promise<Row | undefined>;
  /** The connection's raw row reader, for `runDirectSelect` inside a `write` task. */
  rows: RowReader;
  /** Runs a write through the process-wide write queue of this database. */
  write<T>(operation: string, task: (db: LibSQLDatabase) => Promise<T>): Promise<T>;
}
