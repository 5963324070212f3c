import { Column, is, Param, Placeholder, type Query, type SQL } from 'drizzle-orm';
import type { Client, InValue } from '@libsql/client';
import type { LibSQLDatabase } from 'drizzle-orm/libsql';
import { driverValue, prepared } from './prepared.js';
import { StoreError } from './store-error.js';

/** What a direct select may choose: table columns and SQL expressions, flat (no nesting). */
export type DirectFields = Record<string, Column | SQL<unknown>>;

/** The row a direct query answers for `fields`: each column's type, null where it may be. */
export type RowOf<F extends DirectFields> = {
  [K in keyof F]: F[K] extends Column
    ? F[K]['_']['notNull'] extends true
      ? F[K]['_']['data']
      : F[K]['_']['data'] | null
    : F[K] extends SQL<infer T>
      ? T
      : never;
};

/** A query built by drizzle once, run straight against the driver: SQL text, slots, decoders. */
export interface DirectSelect<Row> {
  readonly sql: string;
  /** One per parameter of `sql`: its driver value, taken from the values of a call. */
  readonly args: readonly ((values: Record<string, unknown>) => unknown)[];
  readonly keys: readonly string[];
  readonly decoders: readonly ((value: unknown) => unknown)[];
  /** Only carries the row type. */
  readonly row?: Row;
}

/** Runs SQL and answers its rows as arrays of driver values, in column order. */
export interface RowReader {
  /** Every row. */
  all(sql: string, args: unknown[]): Promise<unknown[][]>;
  /**
   * The first row only. For reads of one row: the native driver then steps once without
   * building a row iterator, which is about half the cost of a short read.
   */
  first(sql: string, args: unknown[]): Promise<unknown[] | undefined>;
}

function decoderOf(field: Column | SQL<unknown>): (value: unknown) => unknown {
  if (is(field, Column)) return (value) => field.mapFromDriverValue(value);
  // SQL keeps the decoder given with .mapWith() in a field its typings do not show.
  const { decoder } = field as unknown as {
    decoder?: { mapFromDriverValue(value: unknown): unknown };
  };
  return decoder ? (value) => decoder.mapFromDriverValue(value) : (value) => value;
}

/**
 * A query for a hot path — a select, or a write `RETURNING` rows — built by drizzle once per
 * database and kept (with `prepared`), whose rows then come from the driver as plain arrays
 * and are decoded column by column: @libsql/client's row objects and drizzle's result mapping
 * cost three times the query itself. `build` must select (or return) exactly `fields`, in
 * their order; `key` must name everything that changes the SQL text.
 */
export function directSelect<F extends DirectFields>(
  db: LibSQLDatabase,
  key: string,
  fields: F,
  build: (db: LibSQLDatabase, fields: F) => { toSQL(): Query },
): DirectSelect<RowOf<F>> {
  return prepared(db, `direct:${key}`, (d) => {
    const { sql, params } = build(d, fields).toSQL();
    const keys = Object.keys(fields);
    return {
      sql,
      args: params.map(argOf),
      keys,
      decoders: keys.map((k) => decoderOf(fields[k] as Column)),
    };
  });
}

/** The value of `name` in a call's values; a missing one is a bug of the caller. */
function slotValue(values: Record<string, unknown>, name: string): unknown {
  if (!(name in values)) {
    // A bug of the statement's caller, not bad input.
    throw new StoreError('STORE_QUERY_FAILED', `No value for placeholder "${name}" was provided.`);
  }
  return values[name];
}

/**
 * How a parameter gets its driver value, decided once per statement (as drizzle's
 * fillPlaceholders does on every call): a slot's value, a slot's value through its column's
 * encoder, or a constant.
 */
function argOf(param: unknown): (values: Record<string, unknown>) => unknown {
  if (is(param, Placeholder)) {
    const { name } = param as Placeholder;
    return (values) => driverArg(slotValue(values, name));
  }
  if (is(param, Param) && is((param as Param).value, Placeholder)) {
    const { encoder, value } = param as Param;
    const { name } = value as Placeholder;
    return (values) => driverArg(encoder.mapToDriverValue(slotValue(values, name)));
  }
  const constant = driverArg(param);
  return () => constant;
}

/** A parameter as the driver takes it (what @libsql/client would have converted). */
function driverArg(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw new StoreError('INVALID_INPUT', `A query value must be a finite number; got ${value}.`);
  }
  return driverValue(value);
}

/** The driver arguments of `select` with its placeholders filled from `values`. */
function argsOf(select: DirectSelect<unknown>, values: Record<string, unknown>): unknown[] {
  return select.args.map((arg) => arg(values));
}

/** A row of driver values decoded as drizzle would. */
function decodeRow<Row>(select: DirectSelect<Row>, raw: unknown[]): Row {
  const { keys, decoders } = select;
  const row: Record<string, unknown> = {};
  for (let i = 0; i < keys.length; i++) {
    const value = raw[i];
    row[keys[i] as string] =
      value === null ? null : (decoders[i] as (v: unknown) => unknown)(value);
  }
  return row as Row;
}

/** Runs `select` with its placeholders filled from `values`; rows decoded as drizzle would. */
export async function runDirectSelect<Row>(
  read: RowReader,
  select: DirectSelect<Row>,
  values: Record<string, unknown>,
): Promise<Row[]> {
  const rows = await read.all(select.sql, argsOf(select, values));
  return rows.map((raw) => decodeRow(select, raw));
}

/** Like `runDirectSelect`, for a query of at most one row (by key, or `LIMIT 1`). */
export async function runDirectFirst<Row>(
  read: RowReader,
  select: DirectSelect<Row>,
  values: Record<string, unknown>,
): Promise<Row | undefined> {
  const raw = await read.first(select.sql, argsOf(select, values));
  return raw === undefined ? undefined : decodeRow(select, raw);
}

/** One statement of a write batch: a query built once (`directSelect`) and its values. */
export interface BatchItem {
  select: DirectSelect<unknown>;
  values: Record<string, unknown>;
}

/** What one statement of a write batch did: its rows (RETURNING) as driver values, and the rows it changed. */
export interface BatchResult {
  rows: unknown[][];
  rowsAffected: number;
}

/**
 * Runs statements in one transaction (`BEGIN IMMEDIATE` … `COMMIT`, all or none): the pages
 * they change are written once, in one commit, where separate statements paid one commit
 * each. Call it inside a write of the store's queue.
 */
export async function runWriteBatch(
  db: LibSQLDatabase,
  items: readonly BatchItem[],
): Promise<BatchResult[]> {
  const client = (db as LibSQLDatabase & { $client: Client }).$client;
  const results = await client.batch(
    items.map(({ select, values }) => ({
      sql: select.sql,
      args: argsOf(select, values) as InValue[],
    })),
    'write',
  );
  return results.map((result) => ({
    rows: result.rows.map((row) => Array.prototype.slice.call(row) as unknown[]),
    rowsAffected: result.rowsAffected,
  }));
}

/** Runs one statement of a write on its own (it commits by itself). */
export async function runWriteItem(db: LibSQLDatabase, item: BatchItem): Promise<BatchResult> {
  const client = (db as LibSQLDatabase & { $client: Client }).$client;
  const result = await client.execute({
    sql: item.select.sql,
    args: argsOf(item.select, item.values) as InValue[],
  });
  return {
    rows: result.rows.map((row) => Array.prototype.slice.call(row) as unknown[]),
    rowsAffected: result.rowsAffected,
  };
}

/** The rows of a batch statement, decoded as drizzle would. */
export function decodeRows<Row>(select: DirectSelect<Row>, rows: readonly unknown[][]): Row[] {
  return rows.map((raw) => decodeRow(select, raw));
}
