// GET /api/v1/environments.
import type { Request, RequestHandler, Response } from 'express';
import { PAGE_PARAMS, parseQuery } from '../query-params.js';
import type { RouteContext } from '../route-context.js';
import type { EnvironmentListBody } from '../schemas.js';
import { environmentBody } from '../views.js';

/** GET /api/v1/environments: a page of environments with their counts, by name. */
export function listEnvironments(ctx: RouteContext): RequestHandler {
  const { store } = ctx.deps;
  return async (req: Request, res: Response): Promise<void> => {
    const q = parseQuery(req.query as Record<string, unknown>, PAGE_PARAMS);
    // Environments are few (one per workspace folder): counted and paged in memory.
    const all = await store.environments.listWithCounts();
    const body: EnvironmentListBody = {
      items: all.slice(q.offset, q.offset + q.limit).map(environmentBody),
      total: all.length,
      limit: q.limit,
      offset: q.offset,
    };
    res.json(body);
  };
}
