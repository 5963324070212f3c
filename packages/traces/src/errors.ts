// The trace receiver's errors: each code declared once with its kind (@junction/errors), by
// which the receiver answers it. OTLP exporters retry a 503 after its Retry-After.
import { codesOf, errorClass, httpStatuses, type ErrorCodes } from '@junction/errors';

/** Every code a refusal of the receiver carries, with its kind. */
export const TRACES_ERRORS = {
  INVALID_OTLP: 'invalid',
  INVALID_REQUEST: 'invalid',
  NOT_FOUND: 'not_found',
  METHOD_NOT_ALLOWED: 'invalid',
  PAYLOAD_TOO_LARGE: 'too_large',
  UNSUPPORTED_MEDIA_TYPE: 'invalid',
  STORE_UNAVAILABLE: 'unavailable',
  INTERNAL_ERROR: 'internal',
} as const satisfies ErrorCodes;

/** A stable, upper-case error code of this package. */
export type TracesErrorCode = keyof typeof TRACES_ERRORS;

/** Every code this package raises. */
export const TRACES_ERROR_CODES = codesOf<TracesErrorCode>(TRACES_ERRORS);

/** The HTTP status of every code (405 and 415 are HTTP's own, the rest by kind). */
export const TRACES_HTTP_STATUS = httpStatuses(TRACES_ERRORS);

/** JSON-safe values for error details. */
export type DetailValue = string | number | boolean | null;

/**
 * A refusal of the trace receiver, or a body that is not an OTLP trace export request
 * (INVALID_OTLP, its `details.path` saying where it broke): stable code, a message that says
 * what to do, JSON-safe details.
 */
export const TracesError = errorClass<TracesErrorCode, Record<string, DetailValue>>(
  'TracesError',
  TRACES_ERRORS,
);
export type TracesError = InstanceType<typeof TracesError>;
