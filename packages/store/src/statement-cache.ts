import { createRequire } from 'node:module';

interface NativeStatement {
  columns(): unknown[];
}
interface NativeDatabase {
  prepare(sql: string): NativeStatement;
}

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
  const caches = new WeakMap<NativeDatabase, Map<string, NativeStatement>>();
  Database.prototype.prepare = function cachedPrepare(
    this: NativeDatabase,
    sql: string,
  ): NativeStatement {
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
