import type {
  Client,
  InArgs,
  InStatement,
  InValue,
  ResultSet,
  TransactionMode,
} from '@libsql/client';
import type { RowReader } from './direct-select.js';

/**
 * The one place text enters the store: every argument of every statement, on a local file
 * and on a server alike, passes through `wellFormedText` (see `wellFormedClient`).
 *
 * Why: UTF-8 cannot hold a lone surrogate (half a UTF-16 pair, "n\ud800"). Bound as text, the
 * driver writes U+FFFD for it; but inside a JSON argument JSON.stringify writes it as the
 * escape `\ud800`, and SQLite's JSON functions (json_each, which the group inserts of spans,
 * audit entries and events read) decode that escape into bytes that are not UTF-8. Reading
 * such a value back makes the libSQL driver panic, which aborts the process (exit 134) on
 * every later read of that row. A server refuses a lone surrogate in its JSON protocol.
 */

/** An escape of a surrogate (`\uD800`–`\uDFFF`), in any case. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;

/**
 * A surrogate escape with the whole run of backslashes before it, and the low half that follows
 * it written the same way, if any. Every run is an escape at some depth: one backslash in the
 * JSON text itself, two in JSON text held by one of its strings (which SQL may decode again:
 * spans keep their attributes as JSON text inside the row's JSON), four one level deeper, and
 * so on — so the run is kept and only what follows it changes.
 */
const ESCAPES = /(?<!\\)(\\+)u([dD][89a-fA-F][0-9a-fA-F]{2})((?:\1u[dD][c-fC-F][0-9a-fA-F]{2})?)/g;

/** True for the first half of a pair (U+D800–U+DBFF). */
function isHigh(hex: string): boolean {
  return /^[dD][89abAB]/.test(hex);
}

/** JSON text with every escape of a lone surrogate, at any depth, written as one of U+FFFD. */
function withoutLoneSurrogateEscapes(json: string): string {
  return json.replace(ESCAPES, (all, slashes: string, first: string, low: string) => {
    if (isHigh(first) && low !== '') return all; // a pair: a character UTF-8 holds
    const replacement = `${slashes}ufffd`;
    // A low half after a lone low half is lone too.
    return low === '' ? replacement : replacement + replacement;
  });
}

/** True when `text` is a JSON document (only asked of text that holds a surrogate escape). */
function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * `value` as UTF-8 holds it: each lone surrogate becomes U+FFFD, and so does each escape of
 * one in a JSON document (text that is not JSON keeps its backslashes as they are).
 */
export function wellFormedText(value: string): string {
  const wide = value as string & { isWellFormed(): boolean; toWellFormed(): string };
  const text = wide.isWellFormed() ? value : wide.toWellFormed();
  if (!SURROGATE_ESCAPE.test(text) || !isJson(text)) return text;
  return withoutLoneSurrogateEscapes(text);
}

function wellFormedValue<T>(value: T): T {
  return (typeof value === 'string' ? wellFormedText(value) : value) as T;
}

/** The arguments with every text made well-formed; the same object when nothing changed. */
function wellFormedArgList<T>(args: readonly T[]): readonly T[] {
  for (let i = 0; i < args.length; i++) {
    const value = args[i];
    if (typeof value === 'string' && wellFormedText(value) !== value) {
      return args.map(wellFormedValue);
    }
  }
  return args;
}

function wellFormedArgs(args: InArgs): InArgs {
  if (Array.isArray(args)) return wellFormedArgList(args) as InValue[];
  const named = args as Record<string, InValue>;
  return Object.fromEntries(Object.entries(named).map(([k, v]) => [k, wellFormedValue(v)]));
}

function wellFormedStatement(stmt: InStatement | [string, InArgs?]): InStatement {
  if (Array.isArray(stmt)) return wellFormedStatement({ sql: stmt[0], args: stmt[1] ?? [] });
  if (typeof stmt === 'string' || stmt.args === undefined) return stmt;
  return { sql: stmt.sql, args: wellFormedArgs(stmt.args) };
}

/** `client` whose every statement (execute, batch, migrate) binds only well-formed text. */
export function wellFormedClient(client: Client): Client {
  return new Proxy(client, {
    get(target, property) {
      if (property === 'execute') {
        return (stmt: InStatement | string, args?: InArgs): Promise<ResultSet> =>
          target.execute(
            wellFormedStatement(typeof stmt === 'string' ? { sql: stmt, args: args ?? [] } : stmt),
          );
      }
      if (property === 'batch') {
        return (
          stmts: Array<InStatement | [string, InArgs?]>,
          mode?: TransactionMode,
        ): Promise<ResultSet[]> => target.batch(stmts.map(wellFormedStatement), mode);
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function'
        ? (value as (...a: unknown[]) => unknown).bind(target)
        : value;
    },
  });
}

/** `rows` whose reads bind only well-formed text. */
export function wellFormedRows(rows: RowReader): RowReader {
  return {
    all: (sql, args) => rows.all(sql, wellFormedArgList(args) as unknown[]),
    first: (sql, args) => rows.first(sql, wellFormedArgList(args) as unknown[]),
  };
}
