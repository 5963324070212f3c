// The base of every Junction error, a package's error class, and knowing one by its shape.
import { ERROR_KINDS, type ErrorCodes, type ErrorKind } from './kinds.js';

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
