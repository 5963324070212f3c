import {
  codesOf,
  JunctionError,
  type ErrorCodes,
  type JunctionErrorOptions,
} from '@junction/errors';
import type { JsonValue } from './schema.js';

/** Every code a StoreError can carry, with its kind (see @junction/errors). */
export const STORE_ERRORS = {
  STORE_OPEN_FAILED: 'unavailable',
  STORE_MIGRATION_FAILED: 'unavailable',
  STORE_CLOSED: 'unavailable',
  STORE_BUSY: 'unavailable',
  STORE_UNAVAILABLE: 'unavailable',
  STORE_QUERY_FAILED: 'internal',
  NOT_FOUND: 'not_found',
  CONFLICT: 'conflict',
  INVALID_INPUT: 'invalid',
  INVALID_REFERENCE: 'unprocessable',
} as const satisfies ErrorCodes;

export type StoreErrorCode = keyof typeof STORE_ERRORS;

/** Every code a StoreError can carry; surfaces answer them by kind. */
export const STORE_ERROR_CODES = codesOf<StoreErrorCode>(STORE_ERRORS);

export type StoreErrorDetails = Record<string, JsonValue>;

/** The one error type the store throws: a stable code, an actionable message, JSON-safe details. */
export class StoreError extends JunctionError<StoreErrorCode, StoreErrorDetails> {
  override readonly name = 'StoreError';

  constructor(
    code: StoreErrorCode,
    message: string,
    details: StoreErrorDetails = {},
    options: JunctionErrorOptions = {},
  ) {
    super(code, STORE_ERRORS[code], message, details, options);
  }

  /** A plain object for logs and HTTP bodies; the cause is reduced to its message. */
  override toJSON(): {
    name: string;
    code: StoreErrorCode;
    message: string;
    details: StoreErrorDetails;
  } {
    return { name: this.name, code: this.code, message: this.message, details: this.details };
  }
}

/** True when `err` is a StoreError, optionally with the given code. */
export function isStoreError(err: unknown, code?: StoreErrorCode): err is StoreError {
  return err instanceof StoreError && (code === undefined || err.code === code);
}

// drizzle wraps driver errors in DrizzleQueryError; the libSQL code sits somewhere down the cause chain.
/**
 * A libSQL server answers a constraint failure with the primary code only (`SQLITE_CONSTRAINT`);
 * SQLite's own message names the kind, so the extended code a local file gives is read from it.
 */
function extendedCode(code: string, message: string): string {
  if (code !== 'SQLITE_CONSTRAINT') return code;
  if (/\bUNIQUE constraint failed\b/.test(message)) return 'SQLITE_CONSTRAINT_UNIQUE';
  if (/\bFOREIGN KEY constraint failed\b/.test(message)) return 'SQLITE_CONSTRAINT_FOREIGNKEY';
  if (/\bNOT NULL constraint failed\b/.test(message)) return 'SQLITE_CONSTRAINT_NOTNULL';
  if (/\bCHECK constraint failed\b/.test(message)) return 'SQLITE_CONSTRAINT_CHECK';
  return code;
}

function driverCode(err: unknown): { code: string; message: string } | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    const code: unknown = (current as Error & { code?: unknown }).code;
    if (typeof code === 'string' && (code.startsWith('SQLITE_') || code === 'CLIENT_CLOSED')) {
      return { code: extendedCode(code, current.message), message: current.message };
    }
    current = current.cause;
  }
  return undefined;
}

/**
 * Error codes of the network, undici and the libSQL client that mean the database server cannot
 * be reached now (down, restarting, a connection lost); retrying later can succeed.
 */
const UNREACHABLE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'HRANA_WEBSOCKET_ERROR',
]);

/** A server's answer that it cannot serve now (a proxy or the server itself restarting). */
const UNAVAILABLE_STATUS = /\bHTTP status 50[234]\b/;

/** True when `err` says the database server cannot be reached now, not that a query is wrong. */
function isUnreachable(err: unknown): boolean {
  let current = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined;
  // Duck-typed: errors from fetch may come from another realm (a test's VM context).
  for (let depth = 0; depth < 6 && current !== null && typeof current === 'object'; depth++) {
    if (typeof current.code === 'string' && UNREACHABLE_CODES.has(current.code)) return true;
    const message = String(current.message ?? '');
    if (message === 'fetch failed' || UNAVAILABLE_STATUS.test(message)) return true;
    current = current.cause as typeof current;
  }
  return false;
}

/** The message of the deepest cause (`connect ECONNREFUSED …` rather than `fetch failed`). */
function innermostMessage(err: unknown): string {
  let message = String((err as { message?: unknown } | undefined)?.message ?? err);
  let current = (err as { cause?: unknown } | undefined)?.cause;
  // Duck-typed, as in isUnreachable.
  for (let depth = 0; depth < 6 && current !== null && typeof current === 'object'; depth++) {
    const next = current as { message?: unknown; cause?: unknown };
    if (typeof next.message === 'string' && next.message !== '') message = next.message;
    current = next.cause;
  }
  return message;
}

/**
 * The error of a store call that got no answer within its deadline (`database_timeout_ms`).
 * `sent`: whether the statement had gone to the server (it may still be applied there) or was
 * never sent (it waited too long for its turn): only an unsent write is safe to repeat.
 */
export function storeDeadlineError(
  operation: string,
  timeoutMs: number,
  sent: boolean,
): StoreError {
  return new StoreError(
    'STORE_UNAVAILABLE',
    `Cannot ${operation}: the database did not answer within ${timeoutMs} ms. Retry shortly; check that the libSQL server (sqld) is running and not overloaded, or raise database_timeout_ms if it is only slow.`,
    { operation, timeoutMs, sent },
  );
}

/** True when a STORE_UNAVAILABLE call is known never to have reached the database. */
export function storeCallUnsent(err: unknown): boolean {
  return isStoreError(err, 'STORE_UNAVAILABLE') && err.details.sent === false;
}

/** Turns any error thrown by a query into a StoreError that says what went wrong during `operation`. */
export function toStoreError(err: unknown, operation: string): StoreError {
  if (err instanceof StoreError) return err;
  const driver = driverCode(err);
  const reason = driver?.message ?? (err instanceof Error ? err.message : String(err));
  const details: StoreErrorDetails = { operation, reason };
  if (driver) details.sqliteCode = driver.code;
  const code = driver?.code ?? '';
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return new StoreError(
      'CONFLICT',
      `Cannot ${operation}: a row with the same key already exists (${reason}). Use a different name or update the existing row.`,
      details,
      { cause: err },
    );
  }
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
    return new StoreError(
      'INVALID_REFERENCE',
      `Cannot ${operation}: it refers to a row that does not exist. Check the ids you passed.`,
      details,
      { cause: err },
    );
  }
  if (code.startsWith('SQLITE_CONSTRAINT')) {
    return new StoreError(
      'INVALID_INPUT',
      `Cannot ${operation}: the values break a constraint (${reason}). Fix the input and retry.`,
      details,
      { cause: err },
    );
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new StoreError(
      'STORE_BUSY',
      `Cannot ${operation}: the database stayed locked by another process past the busy timeout. Retry, or raise busyTimeoutMs.`,
      details,
      { cause: err },
    );
  }
  if (driver === undefined && isUnreachable(err)) {
    const why = innermostMessage(err);
    // A refused connection never carried the statement; a reset or a lost answer may have.
    details.sent = !/ECONNREFUSED|ENOTFOUND|EAI_AGAIN/.test(why);
    return new StoreError(
      'STORE_UNAVAILABLE',
      `Cannot ${operation}: the database server cannot be reached (${why}). Retry shortly; check that the libSQL server (sqld) is running and reachable from here.`,
      details,
      { cause: err },
    );
  }
  if (code === 'CLIENT_CLOSED') {
    return new StoreError(
      'STORE_CLOSED',
      `Cannot ${operation}: the store is closed. Open it again with openStore().`,
      details,
      { cause: err },
    );
  }
  return new StoreError('STORE_QUERY_FAILED', `Cannot ${operation}: ${reason}`, details, {
    cause: err,
  });
}

/** The NOT_FOUND error for a missing row, phrased the same way everywhere. */
export function notFound(resource: string, key: string | number, hint?: string): StoreError {
  const suffix = hint ?? `List the ${resource}s to find the right one.`;
  return new StoreError('NOT_FOUND', `No ${resource} ${JSON.stringify(key)} exists. ${suffix}`, {
    resource,
    key,
  });
}
