// One error family for the serving processes (junction serve, api-server, webhook-server):
// start-up failures an operator fixes by changing a setting, and the rate limit's refusal. The codes never change meaning.
import { codesOf, errorClass, type ErrorCodes } from '@junction/errors';

/** Every code this package raises, with its kind (see @junction/errors). */
export const SERVICE_ERRORS = {
  SETTING_INVALID: 'misconfigured',
  PORT_IN_USE: 'conflict',
  LISTEN_FAILED: 'internal',
  // A client over its rate_limit: answered 429 (an HTTP exception), try again later.
  RATE_LIMITED: 'unavailable',
} as const satisfies ErrorCodes;

/** A stable, upper-case error code of this package. */
export type ServiceErrorCode = keyof typeof SERVICE_ERRORS;

/** Every code this package raises. */
export const SERVICE_ERROR_CODES = codesOf<ServiceErrorCode>(SERVICE_ERRORS);

/** A start-up failure of a serving process: a stable code, a one-line message that says what to do, JSON-safe details. */
export const ServiceError = errorClass<ServiceErrorCode>('ServiceError', SERVICE_ERRORS);
export type ServiceError = InstanceType<typeof ServiceError>;
