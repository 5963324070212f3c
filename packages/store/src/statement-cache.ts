import { createRequire } from 'node:module';

interface NativeStatement {
  columns(): unknown[];
  raw(on?: boolean): NativeStatement;
  safeIntegers(on?: boolean): NativeStatement;
  all(args: unknown[]): unknown[][];
  get(args: unknown[]): unknown[] | undefined;
}
interface NativeDatabase {
  prepare(sql: string): NativeStatement;
}

/** Asked of a fresh client to find its native database (see `nativeReader`). */
const PROBE_SQL = 'SELECT 1 AS junction_native_probe';
let probed: NativeDatabase | undefined;
let unpatchedPrepare: ((this: NativeDatabase, sql: string) => NativeStatement) | undefined;

const MAX_STATEMENTS = 256;
let installed = false;

/**
 * Reuses prepared statements of local libSQL files. @libsql/client prepares every statement
 * again on every execution (and asks for its columns twice); on the run hot path that was the
 * largest single cost. A statement is used synchronously from prepare to its last row, so
 * reusing it is safe; each database keeps its own bounded cache, dropped when it closes.
 */
export function installStatementCache(): void {
  if (installed) return;
  installed = true;
  const fromClient = createRequire(createRequire(import.meta.url).resolve('@libsql/client'));
  const Database = fromClient('libsql') as { prototype: NativeDatabase };
  const prepare = Database.prototype.prepare;
  unpatchedPrepare = prepare;
  const caches = new WeakMap<NativeDatabase, Map<string, NativeStatement>>();
  Database.prototype.prepare = function cachedPrepare(
    this: NativeDatabase,
    sql: string,
  ): NativeStatement {
    // The probe asks which native database a client uses (see nativeReader).
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    if (sql === PROBE_SQL) probed = this;
    let cache = caches.get(this);
    if (!cache) {
      cache = new Map();
      caches.set(this, cache);
    }
    let statement = cache.get(sql);
    if (!statement) {
      statement = prepare.call(this, sql);
      // Interactive-transaction control statements are cheap and stateful; never keep them.
      if (!/^\s*(BEGIN|COMMIT|ROLLBACK|PRAGMA)/i.test(sql)) {
        const columns = statement.columns.bind(statement);
        let known: unknown[] | undefined;
        statement.columns = (): unknown[] => (known ??= columns());
        if (cache.size >= MAX_STATEMENTS) cache.clear();
        cache.set(sql, statement);
      }
    }
    return statement;
  };
}

/**
 * Raw rows straight from the native database of a local @libsql/client (a file or
 * `:memory:`), for hot reads that do not need its row objects: each SQL text is prepared once
 * in raw mode, and its rows come back as arrays of plain numbers, strings and nulls. Uses the
 * client's own connection (found by a probe query), so it sees exactly what the client sees.
 * Undefined when the client is not local or the statement cache is not installed.
 */
export interface NativeReader {
  /** Rows of `sql` as arrays of driver values. */
  all(sql: string, args: unknown[]): unknown[][];
  /** The first row of `sql` (one step, no row iterator), or undefined. */
  first(sql: string, args: unknown[]): unknown[] | undefined;
  /** Drops the statements and the handle, so closing the client really closes the file. */
  dispose(): void;
}

export function nativeReader(client: {
  execute(sql: string): Promise<unknown>;
}): NativeReader | undefined {
  if (!installed || !unpatchedPrepare) return undefined;
  probed = undefined;
  // execute() prepares synchronously before its first await, so the probe is seen at once.
  void client.execute(PROBE_SQL).catch(() => undefined);
  let db = probed as NativeDatabase | undefined;
  probed = undefined;
  if (!db) return undefined;
  const prepare = unpatchedPrepare;
  // `first` keeps statements of its own: libsql's get() does not reset a statement before it
  // runs, so after an all() on it, or after a get() that failed while stepping, it would
  // answer for the previous arguments. A statement whose get() failed is dropped for that.
  const statements = new Map<string, NativeStatement>();
  const firstStatements = new Map<string, NativeStatement>();
  const statementOf = (cache: Map<string, NativeStatement>, sql: string): NativeStatement => {
    if (!db) throw Object.assign(new Error('The client is closed'), { code: 'CLIENT_CLOSED' });
    let statement = cache.get(sql);
    if (!statement) {
      statement = prepare.call(db, sql).raw(true).safeIntegers(false);
      if (cache.size >= MAX_STATEMENTS) cache.clear();
      cache.set(sql, statement);
    }
    return statement;
  };
  return {
    all: (sql, args) => statementOf(statements, sql).all(args),
    first: (sql, args) => {
      const statement = statementOf(firstStatements, sql);
      try {
        return statement.get(args) ?? undefined;
      } catch (err) {
        firstStatements.delete(sql);
        throw err;
      }
    },
    dispose(): void {
      statements.clear();
      firstStatements.clear();
      db = undefined;
    },
  };
}
