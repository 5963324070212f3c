// The one error model (docs/architecture.md, "Errors"). Every package declares each of its
// error codes once, with its kind — who can fix it — and throws errors that extend
// JunctionError. A surface answers by kind from one exhaustive table (HTTP statuses are here;
// the CLI's exit codes and MCP's fault are theirs), plus a short typed list of codes it answers
// otherwise. A new code is one line in its package's table, and every surface answers it.

export { ERROR_KINDS, codesOf } from './kinds.js';
export type { ErrorCodes, ErrorKind } from './kinds.js';
export { httpStatus, httpStatuses } from './http-status.js';
export { JunctionError, errorClass, isJunctionError } from './junction-error.js';
export type { ErrorClass, JunctionErrorOptions } from './junction-error.js';
export { backoffDelay, retryWithBackoff } from './backoff.js';
export type { Backoff, RetryOptions } from './backoff.js';
