// The management client's errors: each code declared once with its kind (@junction/errors), by
// which every surface answers it (`junction auth login` exits 3, 2 or 1 for these three).
import { errorClass, type ErrorCodes } from '@junction/errors';

/** Every code this package raises, with its kind. */
export const MANAGEMENT_CLIENT_ERRORS = {
  /** No platform endpoint, or a setting of `management` that cannot be used. */
  MANAGEMENT_NOT_CONFIGURED: 'misconfigured',
  /** The platform answered and refused the registration key: retrying does not help. */
  MANAGEMENT_KEY_REFUSED: 'unauthenticated',
  /** The network, TLS or the platform kept the channel from being made. */
  MANAGEMENT_UNREACHABLE: 'unavailable',
} as const satisfies ErrorCodes;

/** A stable, upper-case error code of this package. */
export type ManagementClientErrorCode = keyof typeof MANAGEMENT_CLIENT_ERRORS;

/** A setting that cannot be used, or a channel that could not be made: code, message, details. */
export const ManagementClientError = errorClass<ManagementClientErrorCode, Record<string, string>>(
  'ManagementClientError',
  MANAGEMENT_CLIENT_ERRORS,
);
export type ManagementClientError = InstanceType<typeof ManagementClientError>;
