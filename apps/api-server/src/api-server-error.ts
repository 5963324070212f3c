/** Codes of the errors the api-server raises itself (the packages raise their own). */
export const API_SERVER_ERROR_CODES = ['SETTING_INVALID', 'PORT_IN_USE', 'LISTEN_FAILED'] as const;

export type ApiServerErrorCode = (typeof API_SERVER_ERROR_CODES)[number];

/** A start-up failure of the app: a stable code, a one-line message that says what to do, JSON-safe details. */
export class ApiServerError extends Error {
  override readonly name = 'ApiServerError';
  readonly code: ApiServerErrorCode;
  readonly details: Record<string, unknown>;

  constructor(
    code: ApiServerErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
    this.code = code;
    this.details = details;
  }
}
