// Public API of @junction/webhooks: the inbound router of the webhook server and outbound
// delivery. Every name is exported on purpose, one by one.
export { WEBHOOK_ERRORS, WEBHOOK_ERROR_CODES, WebhookError, isWebhookError } from './errors.js';
export type { JsonValue, WebhookErrorCode } from './errors.js';

export { DEFAULT_MAX_BODY_BYTES, createWebhookApp, createWebhookRouter } from './webhook-router.js';
export type { WebhookAppOptions, WebhookRouterDeps } from './webhook-router.js';
export type { WebhookKeyRing } from './api-key.js';
export {
  HTTP_STATUS_BY_CODE,
  toHttpFailure,
  webhookErrorHandler,
  webhookNotFoundHandler,
} from './http-errors.js';
export type { ErrorBody, HttpFailure } from './http-errors.js';
export { executeRequestSchema } from './execute-request.js';
export type { ExecuteRequest } from './execute-request.js';
export { executeAccepted, runView } from './run-view.js';
export type { ExecuteAccepted, RunView } from './run-view.js';

export {
  DEFAULT_WEBHOOK_DELAYS_MS,
  DEFAULT_WEBHOOK_TIMEOUT_MS,
  WEBHOOK_SENT,
  WEBHOOK_USER_AGENT,
  deliverWebhook,
} from './deliver-webhook.js';
export type { DeliverWebhookOptions, DeliveryResult } from './deliver-webhook.js';
export { DEFAULT_NOTIFIER_CLOSE_TIMEOUT_MS, createNotifier } from './notifier.js';
export type {
  NotificationEvent,
  Notifier,
  NotifierOptions,
  SchedulerErrorDetails,
} from './notifier.js';
export {
  MAX_FINAL_RESPONSE_CHARS,
  agentEventPayload,
  agentEventPayloadSchema,
  runEventOf,
  schedulerErrorPayloadSchema,
} from './notification-payloads.js';
export type { AgentEventPayload, SchedulerErrorPayload } from './notification-payloads.js';
