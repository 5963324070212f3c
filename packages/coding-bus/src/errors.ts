import { codesOf, errorClass, type ErrorCodes } from '@junction/errors';

/** Codes of the coding bus's failures, with their kinds (see @junction/errors). */
export const CODING_BUS_ERRORS = {
  NATS_SERVER_MISSING: 'misconfigured',
  NATS_SERVER_FAILED: 'internal',
  NATS_UNREACHABLE: 'unavailable',
} as const satisfies ErrorCodes;

export type CodingBusErrorCode = keyof typeof CODING_BUS_ERRORS;

/** Codes of the coding bus's failures. */
export const CODING_BUS_ERROR_CODES = codesOf<CodingBusErrorCode>(CODING_BUS_ERRORS);

/** A coding-bus failure: a stable code, a message that says what to do, JSON-safe details. */
export const CodingBusError = errorClass<CodingBusErrorCode>('CodingBusError', CODING_BUS_ERRORS);
export type CodingBusError = InstanceType<typeof CodingBusError>;
