// GET /health: liveness and readiness for probes (spec §4.4).
import type { Request, RequestHandler, Response } from 'express';
import { formatUptime } from '@junction/config-templates';
import { defineRoute } from '../define-route.js';
import type { RouteContext } from '../route-context.js';
import type {
  HealthBody,
  ManagementState,
  SchedulerState,
  TracesHealthBody,
  UnhealthyBody,
} from '../schemas.js';

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`the database did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * 200 `{status: "healthy", …, database: "ok"}` when the database answers within the health
 * timeout, else 503 `{status: "unhealthy", …, database: "<why>"}`. The scheduler state is
 * reported but does not decide the status: a process whose workers stopped still serves.
 */
function getHealth(ctx: RouteContext): RequestHandler {
  const {
    store,
    version,
    startedAt,
    now,
    scheduler: schedules,
    healthTimeoutMs,
    logger,
  } = ctx.deps;
  const managementOf = (): ManagementState => ctx.deps.management?.() ?? 'disabled';
  const tracesOf = (): TracesHealthBody =>
    ctx.deps.traces?.() ?? { export: 'nowhere', receiver: null, viewer: null };
  const common = () => ({
    management: managementOf(),
    traces: tracesOf(),
    workers: ctx.deps.workers?.() ?? { runs: 0, in_flight: 0, workflows: false },
    queue: ctx.deps.queue?.() ?? { bus: null, connected: false },
  });
  return async (_req: Request, res: Response): Promise<void> => {
    const uptime = formatUptime(now().getTime() - startedAt.getTime());
    const scheduler: SchedulerState = schedules?.status() ?? 'disabled';
    res.set('Cache-Control', 'no-store');
    try {
      const [agents, mcpServers] = await withTimeout(
        store.ping().then(() => Promise.all([store.agents.count(), store.mcpServers.count()])),
        healthTimeoutMs,
      );
      const body: HealthBody = {
        status: 'healthy',
        version,
        uptime,
        agents,
        mcp_servers: mcpServers,
        database: 'ok',
        scheduler,
        ...common(),
      };
      res.json(body);
    } catch (err) {
      const reason = ctx.clean(err instanceof Error ? err.message : String(err));
      logger.warn('health check failed: the database cannot be reached', { error: reason });
      const body: UnhealthyBody = {
        status: 'unhealthy',
        version,
        uptime,
        agents: null,
        mcp_servers: null,
        database: reason,
        scheduler,
        ...common(),
      };
      res.status(503).json(body);
    }
  };
}

/** GET /health: open to probes (no API key), its query ignored. */
export const getHealthRoute = defineRoute({
  operationId: 'getHealth',
  method: 'get',
  path: '/health',
  summary: 'Health',
  description:
    'Liveness and readiness: 200 when the database answers, 503 naming the failure when it does not. Never needs an API key. Query parameters are ignored.',
  tag: 'service',
  auth: false,
  query: {},
  pathParams: [],
  responses: {
    200: { description: 'Healthy', body: 'Health' },
    503: { description: 'The database cannot be reached', body: 'Unhealthy' },
  },
  handle: getHealth,
});

/** The health routes. */
export const HEALTH_ROUTES = [getHealthRoute] as const;
