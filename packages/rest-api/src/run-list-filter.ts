// The store filter of a run list query, shared by GET /api/v1/runs and its live stream.
import type { RunListFilter } from '@junction/store';
import { environmentFilter } from './environment-filter.js';
import type { QueryValues, RUN_LIST_PARAMS, TimeValue } from './query-params.js';
import type { RouteContext } from './route-context.js';

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
