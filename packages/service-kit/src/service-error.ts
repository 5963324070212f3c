// One error family for the serving processes (junction serve, api-server, webhook-server):
// start-up failures an operator fixes by changing a setting. The codes never change meaning.

/** Every code this package raises. */
export const SERVICE_ERROR_CODES = ['SETTING_INVALID', 'PORT_IN_USE', 'LISTEN_FAILED'] as const;

/** A stable, upper-case error code of this package. */
export type ServiceErrorCode = (typeof SERVICE_ERROR_CODES)[number];

/** A start-up failure of a serving process: a stable code, a one-line message that says what to do, JSON-safe details. */
export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  readonly code: ServiceErrorCode;
  readonly details: Record<string, unknown>;

  constructor(
    code: ServiceErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
    this.code = code;
    this.details = details;
  }
}
