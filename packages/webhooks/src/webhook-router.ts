// The inbound routes of the webhook server (port 8587): POST /execute, GET /runs/:run_id and,
// when workflows are served, the approval URLs — the list of webhook-routes.ts.
// Factories only: `createWebhookApp` serves them flat on an app, `createWebhookRouter` for mounting.
// Each route is its chain and nothing more: on a busy server every extra routing layer is paid
// per request.
import express, { type RequestHandler, type Router } from 'express';
import { mountRoutes } from './define-route.js';
import { webhookErrorHandler, webhookNotFoundHandler } from './http-errors.js';
import { createWebhookContext, webhookLogger, type WebhookRouterDeps } from './webhook-context.js';
import { WEBHOOK_ROUTES } from './webhook-routes.js';

/** Builds the router of POST /execute (when enabled), GET /runs/:run_id and the approval URLs (with `workflows`), ending in a JSON error handler. */
export function createWebhookRouter(deps: WebhookRouterDeps): Router {
  const logger = webhookLogger(deps);
  // Paths are matched exactly: `POST /EXECUTE` is not /execute (404), whatever express defaults to.
  const router = express.Router({ caseSensitive: true });
  mountRoutes(router, WEBHOOK_ROUTES, createWebhookContext(deps, logger));
  router.use(webhookErrorHandler(logger));
  return router;
}

/** What an app serves besides the webhook routes. */
export interface WebhookAppOptions {
  /** GET /health, answered without the API key (probes carry none). */
  health?: RequestHandler;
  /** Runs before everything else, /health included (the composition root's Host/Origin check). */
  guard?: RequestHandler;
  /** The rate limit (service-kit's), after /health; its refusal is answered as any webhook error. */
  limit?: RequestHandler;
}

/**
 * An express app serving the webhook routes, with JSON answers for unknown routes and faults.
 * The routes sit on the app itself, not in a mounted router or sub-app: on a busy server each
 * nesting level is paid on every request.
 */
export function createWebhookApp(
  deps: WebhookRouterDeps,
  options: WebhookAppOptions = {},
): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Paths are matched exactly: `POST /EXECUTE` is not /execute (404), whatever express defaults to.
  app.set('case sensitive routing', true);
  if (options.guard) app.use(options.guard);
  if (options.health) app.get('/health', options.health);
  if (options.limit) app.use(options.limit);
  const logger = webhookLogger(deps);
  mountRoutes(app, WEBHOOK_ROUTES, createWebhookContext(deps, logger));
  app.use(webhookNotFoundHandler());
  app.use(webhookErrorHandler(logger));
  return app;
}
