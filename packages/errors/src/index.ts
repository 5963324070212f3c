// The one error model (docs/architecture.md, "Errors"). Every package declares each of its
// error codes once, with its kind — who can fix it — and throws errors that extend
// JunctionError. A surface answers by kind from one exhaustive table (HTTP statuses are here;
// the CLI's exit codes and MCP's fault are theirs), plus a short typed list of codes it answers
// otherwise. A new code is one line in its package's table, and every surface answers it.

/** Who can fix it: every error code has exactly one kind. */
export const ERROR_KINDS = [
  /** The caller's request or arguments: change them and try again. */
  'invalid',
  /** No credential, or a wrong one. */
  'unauthenticated',
  /** A credential (or an origin, an approver) that may not do this. */
  'forbidden',
  /** What the request names does not exist. */
  'not_found',
  /** The state does not allow it (it exists already, it ended, it was decided). */
  'conflict',
  /** Over a size limit. */
  'too_large',
  /** Understood, but what it names cannot do it as defined (an agent's tool is missing). */
  'unprocessable',
  /** The operator's configuration or files: fix them, then try again. */
  'misconfigured',
  /** Something the service needs cannot answer right now: try again shortly. */
  'unavailable',
  /** The service's own fault. */
  'internal',
] as const;

export type ErrorKind = (typeof ERROR_KINDS)[number];

/** A package's error codes, each with its kind: `{ AGENT_NOT_FOUND: 'not_found', … }`. */
export type ErrorCodes<C extends string = string> = Readonly<Record<C, ErrorKind>>;

/** The codes of a table, in the order they are declared. */
export function codesOf<C extends string>(codes: ErrorCodes<C>): readonly C[] {
  return Object.freeze(Object.keys(codes) as C[]);
}

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

/** Options every Junction error takes. */
export interface JunctionErrorOptions {
  cause?: unknown;
}

/**
 * The base of every error a Junction package throws: a stable upper-case `code`, its `kind`,
 * a message that says what to do, JSON-safe `details`, and the original `cause`.
 */
export class JunctionError<
  C extends string = string,
  D extends Record<string, unknown> = Record<string, unknown>,
> extends Error {
  readonly code: C;
  readonly kind: ErrorKind;
  readonly details: D;

  constructor(
    code: C,
    kind: ErrorKind,
    message: string,
    details: D,
    options: JunctionErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'JunctionError';
    this.code = code;
    this.kind = kind;
    this.details = details;
  }

  /** The JSON shape surfaces print. */
  toJSON(): { code: C; message: string; details: D } {
    return { code: this.code, message: this.message, details: this.details };
  }
}

/** A package's error class (see `errorClass`). */
export interface ErrorClass<C extends string, D extends Record<string, unknown>> {
  new (code: C, message: string, details?: D, options?: JunctionErrorOptions): JunctionError<C, D>;
}

/**
 * The error class of a package whose errors take `(code, message, details?, options?)`: its kind
 * read from the package's table, its name given.
 * `export const ThingError = errorClass('ThingError', THING_ERRORS);`
 * `export type ThingError = InstanceType<typeof ThingError>;`
 */
export function errorClass<
  C extends string,
  D extends Record<string, unknown> = Record<string, unknown>,
>(name: string, codes: ErrorCodes<C>): ErrorClass<C, D> {
  return class extends JunctionError<C, D> {
    constructor(code: C, message: string, details?: D, options?: JunctionErrorOptions) {
      super(code, codes[code], message, details ?? ({} as D), options);
      this.name = name;
    }
  };
}

const KINDS: ReadonlySet<string> = new Set(ERROR_KINDS);

/**
 * True for an error of any Junction package. Read by shape, not by class: a program may hold
 * two copies of a package (a bundle beside an installed one), whose classes differ.
 */
export function isJunctionError(err: unknown): err is JunctionError {
  if (!(err instanceof Error)) return false;
  const e = err as Partial<JunctionError>;
  return (
    typeof e.code === 'string' &&
    typeof e.kind === 'string' &&
    KINDS.has(e.kind) &&
    typeof e.details === 'object' &&
    e.details !== null
  );
}
