// The inbound routes of the webhook server (port 8587): POST /execute, GET /runs/:run_id and,
// when workflows are served, the approval URLs (approval-routes.ts).
// Factories only: `createWebhookApp` serves them flat on an app, `createWebhookRouter` for mounting.
import type { IncomingMessage } from 'node:http';
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { AgentCoreError } from '@junction/agent-core';
import type { RunDoor } from '@junction/agent-core/runs';
import type { Store } from '@junction/store';
import type { Logger } from '@junction/telemetry';
import type { WorkflowDoor } from '@junction/workflows';
import { apiKeyCheck, requireApiKey, type WebhookKeyRing } from './api-key.js';
import { addApprovalRoutes } from './approval-routes.js';
import { WebhookError } from './errors.js';
import { parseExecuteRequest } from './execute-request.js';
import { methodNotAllowed, webhookErrorHandler, webhookNotFoundHandler } from './http-errors.js';
import { idempotencyKeyOf } from './idempotency.js';
import { executeAccepted, runView } from './run-view.js';

/** Default limit of a POST /execute body: 1 MiB (config webhook.max_body_bytes). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** What the webhook router needs; the app builds these once. */
export interface WebhookRouterDeps {
  store: Store;
  /** The one door for runs: the run is written `queued` and a worker (here or elsewhere) takes it. */
  runs: Pick<RunDoor, 'submit'>;
  logger: Logger;
  /** config webhook.enabled: without it POST /execute does not exist (404 like any unknown route). */
  enabled: boolean;
  /**
   * config webhook.api_key / JUNCTION_WEBHOOK_API_KEY, held by service-kit's `keyRing`; when it
   * holds a key, every route needs `Authorization: Bearer <key>` — an approval URL carrying its
   * own signed `?token=` excepted.
   */
  keys?: WebhookKeyRing;
  /** Largest accepted body in bytes (config webhook.max_body_bytes). Default 1 MiB. */
  maxBodyBytes?: number;
  /** The door for workflow runs: with it the approval URLs (/workflow-approvals/…) are served; without it they are 404. */
  workflows?: WorkflowDoor;
  /** The clock of the approval page (whether an approval is past its expiry). */
  now?: () => Date;
}

const JSON_TYPE = /^application\/(?:json|[a-z0-9!#$&^_.-]+\+json)$/;

/** A 415 refusal unless the request says its body is JSON. */
function jsonTypeRefusal(req: IncomingMessage): WebhookError | undefined {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (JSON_TYPE.test(type)) return undefined;
  return new WebhookError(
    'UNSUPPORTED_MEDIA_TYPE',
    type === ''
      ? 'Content-Type is missing: send the body as JSON with "Content-Type: application/json".'
      : `Content-Type ${JSON.stringify(type)} is not accepted: send the body as JSON with "Content-Type: application/json".`,
    { content_type: type },
  );
}

/** The logger of the webhook routes and their error handler. */
function webhookLogger(deps: WebhookRouterDeps): Logger {
  return deps.logger.child({ component: 'webhook' });
}

/** Where the routes go: an app (flat, as `createWebhookApp` serves them) or a router. */
export type RouteTarget = Pick<Router, 'get' | 'post' | 'all'>;

/**
 * Adds POST /execute (when enabled), GET /runs/:run_id and the approval URLs (with a workflow
 * door) to `target`. Each route is one middleware plus its handler: on a busy server every extra
 * routing layer is paid per request.
 */
function addWebhookRoutes(target: RouteTarget, deps: WebhookRouterDeps, logger: Logger): void {
  const maxBodyBytes = deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1) {
    throw new WebhookError(
      'OPTIONS_INVALID',
      `maxBodyBytes must be a positive whole number of bytes; got ${String(maxBodyBytes)}.`,
    );
  }
  const keyRefusal = apiKeyCheck(deps.keys);

  if (deps.enabled) {
    const parseJson = express.json({ limit: maxBodyBytes, strict: false, type: () => true });
    // Key first, then type and size: an unauthenticated caller never gets its body read.
    const admit: RequestHandler = (req, res, next) => {
      const refusal = keyRefusal(req) ?? jsonTypeRefusal(req);
      if (refusal) next(refusal);
      else parseJson(req, res, next);
    };
    target.post('/execute', admit, async (req, res) => {
      await execute(deps, logger, req, res);
    });
    target.all('/execute', methodNotAllowed(['POST']));
  }

  target.get('/runs/:run_id', requireApiKey(deps.keys), async (req, res) => {
    const raw = String(req.params.run_id);
    const id = /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(id)) {
      throw new WebhookError(
        'INVALID_REQUEST',
        `run_id must be a whole number (the run_id POST /execute returned); got ${JSON.stringify(raw.slice(0, 40))}.`,
        { field: 'run_id' },
      );
    }
    const run = await deps.store.runs.get(id);
    if (!run) {
      throw new AgentCoreError(
        'RUN_NOT_FOUND',
        `No run has id ${id}. Use the run_id POST /execute returned, or list runs with \`junction runs list\`.`,
        { run_id: id },
      );
    }
    res.json({ run: runView(run) });
  });
  target.all('/runs/:run_id', methodNotAllowed(['GET', 'HEAD']));

  // Served whether or not /execute is enabled: an approval link must work wherever it was sent.
  if (deps.workflows) {
    addApprovalRoutes(
      target,
      {
        store: deps.store,
        workflows: deps.workflows,
        ...(deps.keys ? { keys: deps.keys } : {}),
        maxBodyBytes,
        now: deps.now ?? ((): Date => new Date()),
      },
      logger,
    );
  }
}

/** Builds the router of POST /execute (when enabled), GET /runs/:run_id and the approval URLs (with `workflows`), ending in a JSON error handler. */
export function createWebhookRouter(deps: WebhookRouterDeps): Router {
  const logger = webhookLogger(deps);
  // Paths are matched exactly: `POST /EXECUTE` is not /execute (404), whatever express defaults to.
  const router = express.Router({ caseSensitive: true });
  addWebhookRoutes(router, deps, logger);
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
  addWebhookRoutes(app, deps, logger);
  app.use(webhookNotFoundHandler());
  app.use(webhookErrorHandler(logger));
  return app;
}

async function execute(
  deps: WebhookRouterDeps,
  logger: Logger,
  req: Request,
  res: Response,
): Promise<void> {
  const body = parseExecuteRequest(req.body);
  const key = idempotencyKeyOf(req.get('idempotency-key'));
  const { run, agent, replayed } = await deps.runs.submit({
    agent_id: body.agent_id,
    agent_name: body.agent_name,
    environment: body.environment,
    task: body.task,
    variables: body.variables,
    source: 'webhook',
    idempotency_key: key,
  });
  const location = `${req.baseUrl}/runs/${run.id}`;
  if (replayed) {
    logger.info('webhook request replayed', { run_id: run.id, agent_name: run.agentName });
    res
      .status(202)
      .set('Idempotent-Replayed', 'true')
      .location(location)
      .json(executeAccepted(run));
    return;
  }
  logger.info('webhook run queued', {
    run_id: run.id,
    agent_id: agent.id,
    agent_name: agent.name,
    idempotent: key !== undefined,
  });
  res.status(202).location(location).json(executeAccepted(run));
}
