// GET /api/v1/runs, GET /api/v1/runs/:run_id and POST /api/v1/runs/:run_id/cancel.
import { AgentCoreError } from '@junction/agent-core';
import { runAttempts } from '@junction/agent-core/runs';
import type { RunListFilter } from '@junction/store';
import type { Request, RequestHandler, Response } from 'express';
import { environmentFilter } from '../environment-filter.js';
import {
  parsePathId,
  parseQuery,
  NO_PARAMS,
  RUN_DETAIL_PARAMS,
  RUN_LIST_PARAMS,
  type QueryValues,
  type TimeValue,
} from '../query-params.js';
import type { RouteContext } from '../route-context.js';
import type { RunBody, RunDetailBody, RunListBody } from '../schemas.js';
import { runBody, runEventBody } from '../views.js';

/** Events returned by a verbose run: the store's largest page. */
export const MAX_EVENTS = 10_000;

/** The store filter of a run list query (times relative to now are read now). */
export async function runListFilter(
  ctx: RouteContext,
  q: QueryValues<typeof RUN_LIST_PARAMS>,
): Promise<Omit<RunListFilter, 'limit' | 'offset'>> {
  const { store, now } = ctx.deps;
  const at = (value: TimeValue): Date =>
    value instanceof Date ? value : new Date(now().getTime() - value.agoMs);
  const environmentId = await environmentFilter(store, q);
  return {
    ...(q.status !== undefined ? { status: q.status } : {}),
    ...(q.agent !== undefined ? { agentName: q.agent } : {}),
    ...(q.agent_id !== undefined ? { agentId: q.agent_id } : {}),
    ...(environmentId !== undefined ? { environmentId } : {}),
    ...(q.source !== undefined ? { source: q.source } : {}),
    ...(q.min_duration !== undefined ? { minDurationMs: q.min_duration } : {}),
    ...(q.since !== undefined ? { since: at(q.since) } : {}),
    ...(q.until !== undefined ? { until: at(q.until) } : {}),
  };
}

/** GET /api/v1/runs: a page of runs, newest first, with the CLI's filters. */
export function listRuns(ctx: RouteContext): RequestHandler {
  const { store, pricing } = ctx.deps;
  return async (req: Request, res: Response): Promise<void> => {
    const q = parseQuery(req.query as Record<string, unknown>, RUN_LIST_PARAMS);
    const filter = await runListFilter(ctx, q);
    const [runs, total] = await Promise.all([
      store.runs.list({ ...filter, limit: q.limit, offset: q.offset }),
      store.runs.count(filter),
    ]);
    const body: RunListBody = {
      items: runs.map((run) => runBody(run, pricing)),
      total,
      limit: q.limit,
      offset: q.offset,
    };
    res.json(body);
  };
}

/** GET /api/v1/runs/:run_id: the run, its variables, and with ?verbose=true its events. */
export function getRun(ctx: RouteContext): RequestHandler {
  const { store } = ctx.deps;
  return async (req: Request, res: Response): Promise<void> => {
    const runId = parsePathId(req.params.run_id, 'run_id');
    const q = parseQuery(req.query as Record<string, unknown>, RUN_DETAIL_PARAMS);
    const run = await store.runs.get(runId);
    if (!run) {
      throw new AgentCoreError(
        'RUN_NOT_FOUND',
        `No run has id ${runId}. GET /api/v1/runs lists the runs.`,
        { run_id: runId },
      );
    }
    const [eventCount, attempts] = await Promise.all([
      store.runEvents.count(runId),
      runAttempts(store, run),
    ]);
    const body: RunDetailBody = {
      ...runBody(run, ctx.deps.pricing),
      variables: ctx.redact(run.variables) as Record<string, string>,
      attempts,
      event_count: eventCount,
    };
    if (q.verbose) {
      const events = await store.runEvents.list(runId, { limit: MAX_EVENTS });
      body.events = events.map((event) => runEventBody(event, ctx.redact));
    }
    res.json(body);
  };
}

/**
 * POST /api/v1/runs/:run_id/cancel: cancels through the run door; 200 with the run once it
 * ended, 202 while its worker is still stopping it.
 */
export function cancelRun(ctx: RouteContext): RequestHandler {
  return async (req: Request, res: Response): Promise<void> => {
    const runId = parsePathId(req.params.run_id, 'run_id');
    parseQuery(req.query as Record<string, unknown>, NO_PARAMS);
    const { run, ended } = await ctx.deps.runs.cancel(runId, { source: 'api' });
    ctx.deps.logger.info('run cancelled', { run_id: run.id, status: run.status, source: 'api' });
    const body: RunBody = runBody(run, ctx.deps.pricing);
    res.status(ended ? 200 : 202).json(body);
  };
}
