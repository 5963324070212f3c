// GET /api/v1/environments.
import type { Request, Response } from 'express';
import { defineRoute } from '../define-route.js';
import { PAGE_PARAMS, parseQuery } from '../query-params.js';
import { badParams } from '../responses.js';
import type { EnvironmentListBody } from '../schemas.js';
import { environmentBody } from '../views.js';

/** GET /api/v1/environments: a page of environments with their counts, by name. */
export const listEnvironmentsRoute = defineRoute({
  operationId: 'listEnvironments',
  method: 'get',
  path: '/api/v1/environments',
  summary: 'List environments',
  description:
    'Environments known to the store, by name, with agent, config, server and tool counts.',
  tag: 'environments',
  auth: true,
  query: PAGE_PARAMS,
  pathParams: [],
  responses: {
    200: { description: 'A page of environments', body: 'EnvironmentList' },
    400: badParams('an unknown, repeated or malformed query parameter'),
  },
  handle(ctx) {
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
  },
});

/** The environment routes. */
export const ENVIRONMENT_ROUTES = [listEnvironmentsRoute] as const;
