// One error family for the webhook surface. The HTTP status of every code lives in one table
// (http-errors.ts); the codes themselves never change meaning.

/** Every code this package raises. */
export const WEBHOOK_ERROR_CODES = [
  'INVALID_JSON',
  'INVALID_REQUEST',
  'UNSUPPORTED_MEDIA_TYPE',
  'PAYLOAD_TOO_LARGE',
  'BEARER_TOKEN_REQUIRED',
  'INVALID_API_KEY',
  'METHOD_NOT_ALLOWED',
  'ROUTE_NOT_FOUND',
  'IDEMPOTENCY_KEY_INVALID',
  'SERVICE_BUSY',
  'INTERNAL_ERROR',
  'OPTIONS_INVALID',
  'ORIGIN_NOT_ALLOWED',
] as const;

/** A stable, upper-case error code of this package. */
export type WebhookErrorCode = (typeof WEBHOOK_ERROR_CODES)[number];

/** A value that survives JSON.stringify unchanged. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };

/** A refusal or failure of the webhook surface: stable code, a message that says what to do, JSON-safe details. */
export class WebhookError extends Error {
  readonly code: WebhookErrorCode;
  readonly details: Record<string, JsonValue>;

  constructor(
    code: WebhookErrorCode,
    message: string,
    details: Record<string, JsonValue> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'WebhookError';
    this.code = code;
    this.details = details;
  }

  /** The JSON shape logs print. */
  toJSON(): { code: string; message: string; details: Record<string, JsonValue> } {
    return { code: this.code, message: this.message, details: this.details };
  }
}

/** True when err is a WebhookError (optionally with the given code). */
export function isWebhookError(err: unknown, code?: WebhookErrorCode): err is WebhookError {
  return err instanceof WebhookError && (code === undefined || err.code === code);
}
