// Public API of @junction/webhook-server: start the app in-process (tests, embedding). The
// container entry point is dist/main.js. Every name is exported on purpose.
export { SERVICE_NAME, startWebhookServer } from './webhook-server.js';
export type { StartOptions, WebhookServer } from './webhook-server.js';
export { DEFAULT_HEALTH_TIMEOUT_MS, createHealthRoute } from './health-route.js';
export type { HealthRouteDeps, WebhookHealthBody } from './health-route.js';
export { WEBHOOK_SERVER_ERROR_CODES, WebhookServerError } from './webhook-server-error.js';
export type { WebhookServerErrorCode } from './webhook-server-error.js';
export {
  APP_VARIABLES,
  DEFAULT_DRAIN_SECONDS,
  MAX_DRAIN_SECONDS,
  drainSecondsOf,
} from './app-settings.js';
