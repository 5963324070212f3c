/** Codes of the errors the webhook-server raises itself (the packages raise their own). */
export const WEBHOOK_SERVER_ERROR_CODES = [
  'SETTING_INVALID',
  'PORT_IN_USE',
  'LISTEN_FAILED',
] as const;

export type WebhookServerErrorCode = (typeof WEBHOOK_SERVER_ERROR_CODES)[number];

/** A start-up failure of the app: a stable code, a one-line message that says what to do, JSON-safe details. */
export class WebhookServerError extends Error {
  override readonly name = 'WebhookServerError';
  readonly code: WebhookServerErrorCode;
  readonly details: Record<string, unknown>;

  constructor(
    code: WebhookServerErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
    this.code = code;
    this.details = details;
  }
}
