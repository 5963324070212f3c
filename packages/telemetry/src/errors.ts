import {
  codesOf,
  JunctionError,
  type ErrorCodes,
  type JunctionErrorOptions,
} from '@junction/errors';

/** Every code this package throws, with its kind (see @junction/errors). */
export const TELEMETRY_ERRORS = {
  TELEMETRY_INVALID_SAMPLER: 'misconfigured',
  TELEMETRY_INVALID_SAMPLER_ARG: 'misconfigured',
  TELEMETRY_INVALID_ENDPOINT: 'misconfigured',
  TELEMETRY_INVALID_EXPORTER: 'misconfigured',
  TELEMETRY_INVALID_HEADERS: 'misconfigured',
  TELEMETRY_CERTIFICATE_UNREADABLE: 'misconfigured',
  TELEMETRY_LOG_FILE_UNWRITABLE: 'misconfigured',
} as const satisfies ErrorCodes;

/** Stable codes of every error this package throws. */
export type TelemetryErrorCode = keyof typeof TELEMETRY_ERRORS;

/** Every code this package throws. */
export const TELEMETRY_ERROR_CODES = codesOf<TelemetryErrorCode>(TELEMETRY_ERRORS);

/** JSON-safe detail values carried by a TelemetryError. */
export type TelemetryErrorDetails = Record<string, string | number | boolean | null | string[]>;

/** Error thrown for bad telemetry configuration: a stable `code`, a message that says what to do, JSON-safe `details`. */
export class TelemetryError extends JunctionError<TelemetryErrorCode, TelemetryErrorDetails> {
  override readonly name = 'TelemetryError';

  constructor(
    code: TelemetryErrorCode,
    message: string,
    details: TelemetryErrorDetails = {},
    options: JunctionErrorOptions = {},
  ) {
    super(code, TELEMETRY_ERRORS[code], message, details, options);
  }
}
