// GET /health of a process that serves no REST API (the webhook-server): what a probe needs to
// know, i.e. whether this process can reach the shared store. (The REST API has its own,
// richer /health.)
import type { Request, RequestHandler, Response } from 'express';
import { formatUptime } from '@junction/config-templates';
import type { Store } from '@junction/store';
import type { Logger, Redactor } from '@junction/telemetry';

/** Default longest wait for the database before /health answers 503. */
export const DEFAULT_HEALTH_TIMEOUT_MS = 3000;

export interface HealthRouteDeps {
  store: Pick<Store, 'ping'>;
  version: string;
  startedAt: Date;
  logger: Logger;
  /** Cleans secrets out of a database error before it is shown. */
  redactor?: Pick<Redactor, 'text'>;
  /** Longest wait for the database. Default 3 s. */
  timeoutMs?: number;
  /** Clock. Default `() => new Date()`. */
  now?: () => Date;
}

/** 200 `{status: "healthy", version, uptime, database: "ok"}`, or 503 `{status: "unhealthy", …, database: "<why>"}`. */
export interface WebhookHealthBody {
  status: 'healthy' | 'unhealthy';
  version: string;
  uptime: string;
  database: string;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`the database did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The handler of GET /health: pings the store, bounded by the timeout. */
export function createHealthRoute(deps: HealthRouteDeps): RequestHandler {
  const timeoutMs = deps.timeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS;
  const now = deps.now ?? ((): Date => new Date());
  const clean = (text: string): string => deps.redactor?.text(text) ?? text;
  return async (_req: Request, res: Response): Promise<void> => {
    const uptime = formatUptime(now().getTime() - deps.startedAt.getTime());
    res.set('Cache-Control', 'no-store');
    try {
      await withTimeout(deps.store.ping(), timeoutMs);
      const body: WebhookHealthBody = {
        status: 'healthy',
        version: deps.version,
        uptime,
        database: 'ok',
      };
      res.json(body);
    } catch (err) {
      const reason = clean(err instanceof Error ? err.message : String(err));
      deps.logger.warn('health check failed: the database cannot be reached', { error: reason });
      const body: WebhookHealthBody = {
        status: 'unhealthy',
        version: deps.version,
        uptime,
        database: reason,
      };
      res.status(503).json(body);
    }
  };
}
