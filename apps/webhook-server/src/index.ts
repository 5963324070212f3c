// Public API of @junction/webhook-server: start the app in-process (tests, embedding). The
// container entry point is dist/main.js. Every name is exported on purpose.
export { SERVICE_NAME, startWebhookServer } from './webhook-server.js';
export type { StartOptions, WebhookServer } from './webhook-server.js';
// The start-up errors and the variables read besides those of docs/configuration.md
// (JUNCTION_DRAIN_SECONDS) come from @junction/service-kit, under the names this package has
// always exported.
export {
  SERVICE_ERROR_CODES as WEBHOOK_SERVER_ERROR_CODES,
  ServiceError as WebhookServerError,
  SERVICE_VARIABLES as APP_VARIABLES,
  DEFAULT_DRAIN_SECONDS,
  MAX_DRAIN_SECONDS,
  drainSecondsOf,
} from '@junction/service-kit';
export type { ServiceErrorCode as WebhookServerErrorCode } from '@junction/service-kit';
