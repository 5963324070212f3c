import express from 'express';
import type { Logger } from '@junction/telemetry';
import { webhookErrorHandler, webhookNotFoundHandler } from './http-errors.js';
import { createWebhookRouter, type WebhookRouterDeps } from './webhook-router.js';

/** An express app serving the webhook routes, with JSON answers for unknown routes and faults. */
export function createWebhookApp(deps: WebhookRouterDeps & { logger: Logger }): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(createWebhookRouter(deps));
  app.use(webhookNotFoundHandler());
  app.use(webhookErrorHandler(deps.logger));
  return app;
}
