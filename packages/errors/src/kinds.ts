// Who can fix an error: its kind, and a package's table of codes and kinds.

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
