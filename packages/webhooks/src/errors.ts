// One error family for the webhook surface. Each code is declared once with its kind
// (@junction/errors), by which http-errors.ts answers it; codes never change meaning.
import { codesOf, errorClass, type ErrorCodes } from '@junction/errors';

/** Every code this package raises, with its kind (see @junction/errors). */
export const WEBHOOK_ERRORS = {
  INVALID_JSON: 'invalid',
  INVALID_REQUEST: 'invalid',
  UNSUPPORTED_MEDIA_TYPE: 'invalid',
  PAYLOAD_TOO_LARGE: 'too_large',
  BEARER_TOKEN_REQUIRED: 'unauthenticated',
  INVALID_API_KEY: 'unauthenticated',
  METHOD_NOT_ALLOWED: 'invalid',
  ROUTE_NOT_FOUND: 'not_found',
  IDEMPOTENCY_KEY_INVALID: 'invalid',
  SERVICE_BUSY: 'unavailable',
  INTERNAL_ERROR: 'internal',
  OPTIONS_INVALID: 'internal',
  ORIGIN_NOT_ALLOWED: 'forbidden',
} as const satisfies ErrorCodes;

/** A stable, upper-case error code of this package. */
export type WebhookErrorCode = keyof typeof WEBHOOK_ERRORS;

/** Every code this package raises. */
export const WEBHOOK_ERROR_CODES = codesOf<WebhookErrorCode>(WEBHOOK_ERRORS);

/** A value that survives JSON.stringify unchanged. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };

/** A refusal or failure of the webhook surface: stable code, a message that says what to do, JSON-safe details. */
export const WebhookError = errorClass<WebhookErrorCode, Record<string, JsonValue>>(
  'WebhookError',
  WEBHOOK_ERRORS,
);
export type WebhookError = InstanceType<typeof WebhookError>;

/** True when err is a WebhookError (optionally with the given code). */
export function isWebhookError(err: unknown, code?: WebhookErrorCode): err is WebhookError {
  return err instanceof WebhookError && (code === undefined || err.code === code);
}
