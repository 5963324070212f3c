// The REST surface as an express Router: auth, the routes of the route table (each mounted
// with the chain its definition gives), JSON 404 and 405, and one error handler that answers
// every failure in the same JSON shape.
import express, {
  type ErrorRequestHandler,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
  type Router,
} from 'express';
import { apiKeyAuth } from './api-key-auth.js';
import { routeHandlers } from './define-route.js';
import type { RestDeps } from './deps.js';
import { errorAnswer, RestApiError } from './errors.js';
import { createRouteContext } from './route-context.js';
import { ROUTES, servedRoutes, type OperationId } from './route-table.js';
import { wireGauges } from './routes/metrics.js';

/** Answers methods a path does not have: 405 with Allow; OPTIONS gets 204 with Allow. */
function methodNotAllowed(methods: readonly string[]): RequestHandler {
  const allow = [...new Set(methods.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m])))].join(
    ', ',
  );
  return (req, res, next): void => {
    res.set('Allow', allow);
    if (req.method === 'OPTIONS') {
      res.status(204).end();
      return;
    }
    next(
      new RestApiError(
        'METHOD_NOT_ALLOWED',
        `${req.method} is not allowed on ${req.path}; use ${allow}.`,
        { method: req.method, allow: allow.split(', ') },
      ),
    );
  };
}

/**
 * Builds the REST API of spec §4.3 / §4.4 / §6.4 as a Router: `/api/v1/agents`,
 * `/api/v1/agents/:agent_id`, `POST /api/v1/agents/:agent_id/queue`, `/api/v1/runs` (GET and POST),
 * `/api/v1/runs/:run_id`, `/api/v1/environments`, `/api/v1/schedules…`, `/api/v1/openapi.json`,
 * `/health`, `/metrics`;
 * with `deps.workflows`, also `/api/v1/workflows…`, `/api/v1/workflow-runs…` and
 * `/api/v1/workflow-approvals…` (without it those are not mounted: 404 ROUTE_NOT_FOUND).
 * It ends with a JSON 404 and a JSON error handler, so mount it last (or alone) on its
 * server. It sets the store-backed gauge sources of `deps.metrics`. It never listens.
 */
export function createRestRouter(
  input: RestDeps,
  options: { operations?: ReadonlySet<OperationId>; limit?: RequestHandler } = {},
): Router {
  const ctx = createRouteContext(input, ROUTES);
  const { logger, keys } = ctx.deps;
  // A router serving some operations only (the trace viewer's) leaves the gauges to the full one.
  if (options.operations === undefined) wireGauges(ctx);
  const router = express.Router({ caseSensitive: true, strict: false });

  router.use((req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      logger.debug('REST request', {
        method: req.method,
        path: req.path,
        status: res.statusCode,
        duration_ms: Number((process.hrtime.bigint() - started) / 1_000_000n),
      });
    });
    next();
  });

  // Before the key check, so guessing keys is limited too.
  if (options.limit) router.use(options.limit);

  if (keys?.required) {
    const auth = apiKeyAuth(keys);
    const open = new Set(ROUTES.filter((r) => !r.auth).map((r) => r.path));
    router.use((req: Request, res: Response, next: NextFunction) => {
      const path = req.path.length > 1 ? req.path.replace(/\/+$/, '') : req.path;
      if (open.has(path)) next();
      else auth(req, res, next);
    });
  }

  const routes = servedRoutes({ workflows: ctx.deps.workflows !== undefined }).filter(
    (route) => options.operations === undefined || options.operations.has(route.operationId),
  );
  const methodsByPath = new Map<string, string[]>();
  for (const route of routes) {
    methodsByPath.set(route.path, [
      ...(methodsByPath.get(route.path) ?? []),
      route.method.toUpperCase(),
    ]);
  }
  for (const [path, methods] of methodsByPath) {
    const chain = router.route(path);
    for (const route of routes.filter((r) => r.path === path)) {
      chain[route.method](...routeHandlers(route, ctx));
    }
    chain.all(methodNotAllowed(methods));
  }

  router.use((req: Request, _res: Response, next: NextFunction) => {
    const path = req.path.length > 200 ? `${req.path.slice(0, 200)}…` : req.path;
    next(
      new RestApiError(
        'ROUTE_NOT_FOUND',
        `No route ${req.method} ${path}. GET /api/v1/openapi.json describes the API.`,
        { method: req.method, path },
      ),
    );
  });

  const onError: ErrorRequestHandler = (err: unknown, req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const answer = errorAnswer(err, { maxBodyBytes: ctx.deps.maxBodyBytes, clean: ctx.clean });
    if (answer.fault) {
      logger.error('REST request failed', {
        method: req.method,
        path: req.path,
        status: answer.status,
        code: (err as { code?: unknown }).code,
        error: ctx.clean(err instanceof Error ? err.message : String(err)),
      });
    }
    if (answer.headers !== undefined) res.set(answer.headers);
    res.status(answer.status).json(answer.body);
  };
  router.use(onError);
  return router;
}
