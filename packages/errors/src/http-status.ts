// The HTTP status of an error: one table by kind, and the few codes answered otherwise.
import type { ErrorCodes, ErrorKind } from './kinds.js';

/**
 * The HTTP status of each kind (REST, the webhook port, MCP over HTTP): the one place that says
 * a model that cannot run, or any configuration the operator must fix, is a 503.
 */
export const HTTP_STATUS_BY_KIND: Readonly<Record<ErrorKind, number>> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unprocessable: 422,
  misconfigured: 503,
  unavailable: 503,
  internal: 500,
};

/** The codes HTTP answers with a status of their own rather than their kind's. */
const HTTP_STATUS_EXCEPTIONS: Readonly<Record<string, number>> = {
  METHOD_NOT_ALLOWED: 405,
  UNSUPPORTED_MEDIA_TYPE: 415,
  // An approval whose time ran out: gone for good, not merely in another state.
  APPROVAL_EXPIRED: 410,
  // A key reused with another request: understood, but it cannot be this run.
  IDEMPOTENCY_KEY_REUSED: 422,
  // A client over its rate limit: nothing is wrong but the pace (Retry-After says when).
  RATE_LIMITED: 429,
};

/** The HTTP status of an error with `code` of kind `kind`. */
export function httpStatus(code: string, kind: ErrorKind): number {
  return HTTP_STATUS_EXCEPTIONS[code] ?? HTTP_STATUS_BY_KIND[kind];
}

/** The HTTP status of every code of `codes` (a surface's table, for its documents and tests). */
export function httpStatuses<C extends string>(codes: ErrorCodes<C>): Readonly<Record<C, number>> {
  return Object.fromEntries(
    Object.entries<ErrorKind>(codes).map(([code, kind]) => [code, httpStatus(code, kind)]),
  ) as Record<C, number>;
}
