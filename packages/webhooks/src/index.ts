// Public API of @junction/webhooks: the inbound routes of the webhook server (as an app, or as a
// router with its JSON not-found and error handlers) and the outbound notifier. Every name is
// exported on purpose, one by one; the rest (errors, payload schemas, deliverWebhook) is internal.
export { createWebhookApp, createWebhookRouter } from './webhook-router.js';
export type { WebhookAppOptions } from './webhook-router.js';
export type { WebhookRouterDeps, WebhookStore } from './webhook-context.js';
export type { WebhookKeyRing } from './api-key.js';
export { webhookErrorHandler, webhookNotFoundHandler } from './http-errors.js';

export { createNotifier } from './notifier.js';
export type {
  Notifier,
  NotifierOptions,
  NotifierStore,
  SchedulerErrorDetails,
} from './notifier.js';
