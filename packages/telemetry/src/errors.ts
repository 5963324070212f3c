/** Stable codes of every error this package throws. */
export type TelemetryErrorCode =
  | 'TELEMETRY_INVALID_SAMPLER'
  | 'TELEMETRY_INVALID_SAMPLER_ARG'
  | 'TELEMETRY_INVALID_ENDPOINT'
  | 'TELEMETRY_INVALID_EXPORTER'
  | 'TELEMETRY_INVALID_HEADERS'
  | 'TELEMETRY_CERTIFICATE_UNREADABLE'
  | 'TELEMETRY_LOG_FILE_UNWRITABLE';

/** JSON-safe detail values carried by a TelemetryError. */
export type TelemetryErrorDetails = Record<string, string | number | boolean | null | string[]>;

/** Error thrown for bad telemetry configuration: a stable `code`, a message that says what to do, JSON-safe `details`. */
export class TelemetryError extends Error {
  override readonly name = 'TelemetryError';
  readonly code: TelemetryErrorCode;
  readonly details: TelemetryErrorDetails;

  constructor(
    code: TelemetryErrorCode,
    message: string,
    options: { details?: TelemetryErrorDetails; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details ?? {};
  }
}
