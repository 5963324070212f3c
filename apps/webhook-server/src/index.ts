// Public API of @junction/webhook-server: start the app in-process (tests, embedding). The
// container entry point is dist/main.js. Every name is exported on purpose.
export { startWebhookServer } from './webhook-server.js';
export type { StartOptions, WebhookServer } from './webhook-server.js';
