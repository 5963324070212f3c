import { Buffer } from 'node:buffer';
import {
  LibsqlError,
  type Client,
  type InArgs,
  type InStatement,
  type InValue,
  type Replicated,
  type ResultSet,
  type Row,
  type Transaction,
  type TransactionMode,
  type Value,
} from '@libsql/client/sqlite3';
import Database from 'libsql';
import type { RowReader } from './direct-select.js';

/**
 * A `@libsql/client` Client for a local database (a file or `:memory:`) over one `libsql`
 * Database that this module owns — the native driver @libsql/client itself uses, through its
 * public better-sqlite3 API — plus a reader of raw rows on the same connection.
 *
 * Why not @libsql/client's own local client: it prepares every statement again on every
 * execution (and asks for its columns twice), which was the largest single cost on the run
 * hot path, and it gives no way to read rows without building its row objects. Holding the
 * Database here lets drizzle (through the Client) and the direct reads share one connection
 * and keep their prepared statements. Results, values and errors are those of @libsql/client
 * 0.15 with `intMode: "number"` (see test/local-client.test.ts, which holds them equal).
 */

type Statement = Database.Statement;

interface Prepared {
  readonly statement: Statement;
  /** True when the statement returns rows (a SELECT, a PRAGMA that answers, RETURNING). */
  readonly reader: boolean;
  /** Column names and declared types, asked of the driver once. */
  readonly columns: readonly string[];
  readonly columnTypes: readonly string[];
  readonly textColumns: readonly number[];
  /** The prototype of its rows (`rowPrototype`). */
  readonly rowProto: object;
  /** The arguments it is run with: their number, or their names (see `argsShape`). */
  readonly shape: number | string;
}

interface RawStatement {
  readonly statement: Statement;
  /** The number of arguments it is run with (see `argsShape`). */
  readonly arity: number;
  /** The columns declared as text, whose stored bytes are read back as text (`textFromSql`). */
  readonly textColumns: readonly number[];
}

/** Prepared statements kept per SQL text; cleared whole when full (the hot set is small). */
const MAX_STATEMENTS = 256;

/**
 * Statements never kept (but a batch's own BEGIN and COMMIT, `KEPT_CONTROL`): PRAGMAs and
 * savepoints are stateful; schema changes also drop every kept statement (their column lists
 * may change).
 */
const NOT_KEPT = /^\s*(BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE|PRAGMA|CREATE|ALTER|DROP)\b/i;
/** The transaction control of batches, which every batch runs: kept (preparing them cost more than running them). */
const KEPT_CONTROL = new Set([
  'BEGIN IMMEDIATE',
  'BEGIN DEFERRED',
  'BEGIN TRANSACTION READONLY',
  'COMMIT',
  'ROLLBACK',
]);
const SCHEMA_CHANGE = /^\s*(CREATE|ALTER|DROP)\b/i;

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_INTEGER = -9223372036854775808n;
const MAX_INTEGER = 9223372036854775807n;

/** A driver error as @libsql/client reports it: a LibsqlError carrying the SQLite code. */
function mapError(err: unknown): unknown {
  if (err instanceof Database.SqliteError) {
    return new LibsqlError(err.message, err.code, err.rawCode, err);
  }
  return err;
}

function closedError(): LibsqlError {
  return new LibsqlError('The client is closed', 'CLIENT_CLOSED');
}

/** An argument as the driver takes it (@libsql/client's conversion for intMode "number"). */
function valueToSql(value: InValue | undefined): unknown {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      throw new RangeError('Only finite numbers (not Infinity or NaN) can be passed as arguments');
    }
    return value;
  }
  if (typeof value === 'bigint') {
    if (value < MIN_INTEGER || value > MAX_INTEGER) {
      throw new RangeError(
        'bigint is too large to be represented as a 64-bit integer and passed as argument',
      );
    }
    return value;
  }
  if (typeof value === 'string') return textToSql(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof ArrayBuffer) return Buffer.from(value);
  if (value instanceof Date) return value.valueOf();
  if (value === undefined) {
    throw new TypeError('undefined cannot be passed as argument to the database');
  }
  return value;
}

/**
 * Text holding a NUL character (U+0000) is bound as its UTF-8 bytes. SQLite stores such text
 * whole, but the driver reads a text value only up to its first NUL, so "before\u0000after"
 * would read back as "before" (issue 13). Bytes are read back whole and, in a column declared
 * as text, decoded again (`textFromSql`), so every read answers exactly what was written.
 */
function textToSql(value: string): string | Buffer {
  return value.includes('\0') ? Buffer.from(value, 'utf8') : value;
}

/** True for a declared column type with SQLite's text affinity (TEXT, VARCHAR, CLOB, …). */
function isTextType(type: string | null | undefined): boolean {
  return type != null && /CHAR|CLOB|TEXT/i.test(type);
}

/** Indexes of the columns of `types` declared as text. */
function textColumnsOf(types: readonly (string | null | undefined)[]): number[] {
  const indexes: number[] = [];
  types.forEach((type, i) => {
    if (isTextType(type)) indexes.push(i);
  });
  return indexes;
}

/** A raw row with the bytes of its text columns (text that held a NUL) decoded as text. */
function textFromSql(row: unknown[], textColumns: readonly number[]): unknown[] {
  for (const i of textColumns) {
    const value = row[i];
    if (value instanceof Buffer) row[i] = value.toString('utf8');
  }
  return row;
}

/** A direct read's arguments, with text holding a NUL as its bytes (`textToSql`). */
function rawArgs(args: unknown[]): unknown[] {
  for (const value of args) {
    if (typeof value === 'string' && value.includes('\0')) {
      return args.map((v) => (typeof v === 'string' ? textToSql(v) : v));
    }
  }
  return args;
}

function argsToSql(args: InArgs | undefined): unknown[] | Record<string, unknown> {
  if (args === undefined) return [];
  if (Array.isArray(args)) return args.map(valueToSql);
  const named: Record<string, unknown> = {};
  for (const name in args) {
    const key = name[0] === '@' || name[0] === '$' || name[0] === ':' ? name.substring(1) : name;
    named[key] = valueToSql(args[name]);
  }
  return named;
}

/** A value read from the driver (safe integers on) as @libsql/client answers it. */
function valueFromSql(value: unknown): Value {
  if (typeof value === 'bigint') {
    if (value < MIN_SAFE || value > MAX_SAFE) {
      throw new RangeError(
        'Received integer which cannot be safely represented as a JavaScript number',
      );
    }
    return Number(value);
  }
  if (value instanceof Buffer) {
    // The bytes alone, as an ArrayBuffer (a copy only if the Buffer is a view of a larger one).
    return value.byteOffset === 0 && value.byteLength === value.buffer.byteLength
      ? (value.buffer as ArrayBuffer)
      : (value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength) as ArrayBuffer);
  }
  return value as Value;
}

/** Where a row keeps its values by index (see `rowPrototype`). */
const VALUES = Symbol('row values');

/**
 * The prototype of the rows of one statement: `length` and the values by index, read from the
 * row's own array. A row then needs one property per column name (enumerable, as
 * @libsql/client's), not two defined one by one: building rows was a visible part of a read.
 */
function rowPrototype(count: number): object {
  const proto = {};
  Object.defineProperty(proto, 'length', { value: count });
  for (let i = 0; i < count; ++i) {
    Object.defineProperty(proto, i, {
      get(this: { [VALUES]: unknown[] }) {
        return this[VALUES][i];
      },
    });
  }
  return proto;
}

/** A row as @libsql/client builds it: values by index (not enumerable) and by column name. */
function rowFromSql(raw: unknown[], columns: readonly string[], proto: object): Row {
  const row = Object.create(proto) as Record<PropertyKey, unknown>;
  Object.defineProperty(row, VALUES, { value: raw });
  for (let i = 0; i < raw.length; ++i) {
    const value = valueFromSql(raw[i]);
    raw[i] = value;
    const column = columns[i] as string;
    // A repeated name keeps its first value; `length` and index-like names stay those.
    if (Object.hasOwn(row, column) || Object.hasOwn(proto, column)) continue;
    if (column === '__proto__') {
      // Assignment would set the row's prototype instead.
      Object.defineProperty(row, column, {
        value,
        enumerable: true,
        configurable: true,
        writable: true,
      });
    } else {
      row[column] = value;
    }
  }
  return row as unknown as Row;
}

function valueToJson(value: unknown): unknown {
  if (typeof value === 'bigint') return `${value}`;
  if (value instanceof ArrayBuffer) return Buffer.from(value).toString('base64');
  return value;
}

/** The ResultSet @libsql/client answers (with the same toJSON). */
class LocalResultSet implements ResultSet {
  constructor(
    readonly columns: string[],
    readonly columnTypes: string[],
    readonly rows: Row[],
    readonly rowsAffected: number,
    readonly lastInsertRowid: bigint | undefined,
  ) {}

  toJSON(): unknown {
    return {
      columns: this.columns,
      columnTypes: this.columnTypes,
      rows: this.rows.map((row) => Array.prototype.map.call(row, valueToJson)),
      rowsAffected: this.rowsAffected,
      lastInsertRowid: this.lastInsertRowid === undefined ? null : `${this.lastInsertRowid}`,
    };
  }
}

function transactionModeToBegin(mode: TransactionMode): string {
  if (mode === 'write') return 'BEGIN IMMEDIATE';
  if (mode === 'read') return 'BEGIN TRANSACTION READONLY';
  if (mode === 'deferred') return 'BEGIN DEFERRED';
  throw new RangeError(
    'Unknown transaction mode, supported values are "write", "read" and "deferred"',
  );
}

/**
 * What a kept statement must be run with again to be reused: the driver keeps the values
 * bound by the previous run, so a parameter left out would not be NULL but the previous
 * value. The same number of positional values (or the same names) binds every one again.
 */
function argsShape(values: unknown[] | Record<string, unknown>): number | string {
  return Array.isArray(values) ? values.length : Object.keys(values).join('\0');
}

function normalize(stmt: InStatement | [string, InArgs?]): { sql: string; args?: InArgs } {
  if (typeof stmt === 'string') return { sql: stmt };
  if (Array.isArray(stmt)) return { sql: stmt[0], args: stmt[1] };
  return stmt;
}

/**
 * Opens the local database at `path` (`:memory:` for a private in-memory one). Throws, as
 * @libsql/client does, when the file is not a database.
 */
export function openLocalClient(path: string): LocalClient {
  let db: Database.Database;
  try {
    db = new Database(path);
  } catch (err) {
    throw mapError(err);
  }
  try {
    return new LocalClient(db);
  } catch (err) {
    db.close();
    throw err;
  }
}

export class LocalClient implements Client {
  readonly protocol = 'file';
  closed = false;
  /** Raw rows on the same connection, for hot reads (see `RowReader`). */
  readonly rows: RowReader;

  #db: Database.Database | undefined;
  /** Statements of execute() and batches: safe integers, raw rows, known columns. */
  readonly #statements = new Map<string, Prepared>();
  /** Statements of `rows.all`: raw rows of plain numbers. */
  readonly #rawStatements = new Map<string, RawStatement>();
  /**
   * Statements of `rows.first`, only ever used with get(): libsql's get() does not reset a
   * statement before it runs, so after an all() on it, or after a get() that failed while
   * stepping, it would answer for the previous arguments. One whose get() failed is dropped.
   */
  readonly #firstStatements = new Map<string, RawStatement>();

  /** @internal Use openLocalClient(). */
  constructor(db: Database.Database) {
    this.#db = db;
    this.#execute('SELECT 1 AS checkThatTheDatabaseCanBeOpened', undefined);
    this.rows = {
      all: async (sql, args) => {
        const { statement, textColumns } = this.#raw(this.#rawStatements, sql, args.length);
        try {
          const rows = statement.all(rawArgs(args)) as unknown[][];
          if (textColumns.length > 0) for (const row of rows) textFromSql(row, textColumns);
          return rows;
        } catch (err) {
          this.#rawStatements.delete(sql);
          throw mapError(err);
        }
      },
      first: async (sql, args) => {
        const { statement, textColumns } = this.#raw(this.#firstStatements, sql, args.length);
        try {
          const row = statement.get(rawArgs(args)) as unknown[] | undefined;
          return row === undefined ? undefined : textFromSql(row, textColumns);
        } catch (err) {
          this.#firstStatements.delete(sql);
          throw mapError(err);
        }
      },
    };
  }

  async execute(stmtOrSql: InStatement | string, args?: InArgs): Promise<ResultSet> {
    const stmt = typeof stmtOrSql === 'string' ? { sql: stmtOrSql, args } : stmtOrSql;
    if (this.closed) throw closedError();
    return this.#execute(stmt.sql, stmt.args);
  }

  async batch(
    stmts: Array<InStatement | [string, InArgs?]>,
    mode: TransactionMode = 'deferred',
  ): Promise<ResultSet[]> {
    if (this.closed) throw closedError();
    return this.#inTransaction(transactionModeToBegin(mode), stmts);
  }

  async migrate(stmts: InStatement[]): Promise<ResultSet[]> {
    if (this.closed) throw closedError();
    this.#execute('PRAGMA foreign_keys=off', undefined);
    try {
      return this.#inTransaction(transactionModeToBegin('deferred'), stmts);
    } finally {
      this.#execute('PRAGMA foreign_keys=on', undefined);
    }
  }

  /** Runs `stmts` between `begin` and COMMIT; rolls back whatever is left open. */
  #inTransaction(begin: string, stmts: Array<InStatement | [string, InArgs?]>): ResultSet[] {
    const db = this.#open();
    try {
      this.#execute(begin, undefined);
      const results = stmts.map((stmt) => {
        if (!db.inTransaction) {
          throw new LibsqlError('The transaction has been rolled back', 'TRANSACTION_CLOSED');
        }
        const { sql, args } = normalize(stmt);
        return this.#execute(sql, args);
      });
      this.#execute('COMMIT', undefined);
      return results;
    } finally {
      if (db.inTransaction) this.#execute('ROLLBACK', undefined);
    }
  }

  /**
   * Refused: an interactive transaction would hold the one connection across awaits, so other
   * callers' statements would run inside it. Express the write as a batch.
   */
  async transaction(_mode?: TransactionMode): Promise<Transaction> {
    throw new LibsqlError(
      'Interactive transactions are not supported on a local store connection; use batch()',
      'TRANSACTION_UNSUPPORTED',
    );
  }

  async executeMultiple(sql: string): Promise<void> {
    if (this.closed) throw closedError();
    const db = this.#open();
    this.#forget(); // it may change the schema
    try {
      db.exec(sql);
    } catch (err) {
      throw mapError(err);
    } finally {
      if (db.inTransaction) this.#execute('ROLLBACK', undefined);
    }
  }

  /** Refused: a local database is not an embedded replica. */
  async sync(): Promise<Replicated> {
    throw new LibsqlError('A local database has no remote to sync with', 'SYNC_NOT_SUPPORTED');
  }

  /** Refused: a new connection would not have the PRAGMAs the store set on this one. */
  reconnect(): void {
    throw new LibsqlError(
      'A local store connection cannot reconnect; open the store again',
      'RECONNECT_NOT_SUPPORTED',
    );
  }

  /**
   * Closes the database. Prepared statements keep a native connection alive until they are
   * collected, so every kept statement is dropped first.
   */
  close(): void {
    this.closed = true;
    this.#forget();
    const db = this.#db;
    this.#db = undefined;
    db?.close();
  }

  #open(): Database.Database {
    if (this.#db === undefined) throw closedError();
    return this.#db;
  }

  #forget(): void {
    this.#statements.clear();
    this.#rawStatements.clear();
    this.#firstStatements.clear();
  }

  #prepared(sql: string, shape: number | string): Prepared {
    const kept = this.#statements.get(sql);
    if (kept !== undefined && kept.shape === shape) return kept;
    const statement = this.#open().prepare(sql);
    const reader = statement.reader;
    let columns: string[] = [];
    let columnTypes: string[] = [];
    if (reader) {
      statement.safeIntegers(true).raw(true);
      const definitions = statement.columns();
      columns = definitions.map((c) => c.name);
      columnTypes = definitions.map((c) => c.type ?? '');
    }
    const textColumns = textColumnsOf(columnTypes);
    const prepared: Prepared = {
      statement,
      reader,
      columns,
      columnTypes,
      textColumns,
      rowProto: rowPrototype(columns.length),
      shape,
    };
    if (NOT_KEPT.test(sql) && !KEPT_CONTROL.has(sql)) {
      if (SCHEMA_CHANGE.test(sql)) this.#forget();
    } else {
      if (kept === undefined && this.#statements.size >= MAX_STATEMENTS) this.#statements.clear();
      this.#statements.set(sql, prepared);
    }
    return prepared;
  }

  #raw(cache: Map<string, RawStatement>, sql: string, arity: number): RawStatement {
    const kept = cache.get(sql);
    if (kept !== undefined && kept.arity === arity) return kept;
    if (this.closed) throw closedError();
    let raw: RawStatement;
    try {
      const statement = this.#open().prepare(sql).raw(true).safeIntegers(false);
      const textColumns = statement.reader
        ? textColumnsOf(statement.columns().map((c) => c.type))
        : [];
      raw = { statement, arity, textColumns };
    } catch (err) {
      throw mapError(err);
    }
    if (kept === undefined && cache.size >= MAX_STATEMENTS) cache.clear();
    cache.set(sql, raw);
    return raw;
  }

  /** One statement, as @libsql/client's executeStmt runs it. */
  #execute(sql: string, args: InArgs | undefined): ResultSet {
    const values = argsToSql(args);
    let prepared: Prepared | undefined;
    try {
      prepared = this.#prepared(sql, argsShape(values));
      const { statement } = prepared;
      if (prepared.reader) {
        const { columns, textColumns, rowProto } = prepared;
        const raw = statement.all(values) as unknown[][];
        const rows = new Array<Row>(raw.length);
        for (let i = 0; i < raw.length; i++) {
          rows[i] = rowFromSql(textFromSql(raw[i] as unknown[], textColumns), columns, rowProto);
        }
        return new LocalResultSet(
          columns.slice(),
          prepared.columnTypes.slice(),
          rows,
          0,
          undefined,
        );
      }
      const info = statement.run(values);
      return new LocalResultSet([], [], [], info.changes, BigInt(info.lastInsertRowid));
    } catch (err) {
      // A statement whose execution failed is not trusted again.
      if (prepared !== undefined && this.#statements.get(sql) === prepared) {
        this.#statements.delete(sql);
      }
      throw mapError(err);
    }
  }
}
