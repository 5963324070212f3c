// GET /metrics: the spec §6.4 metrics in the Prometheus text format.
import { PROMETHEUS_CONTENT_TYPE } from '@junction/telemetry';
import type { Request, Response } from 'express';
import { defineRoute } from '../define-route.js';
import type { RouteContext } from '../route-context.js';

/** The content type of GET /metrics as documented (the answer adds `charset=utf-8`). */
const METRICS_MEDIA_TYPE = 'text/plain; version=0.0.4';

/**
 * Points the gauges the app cannot know better than the store at it, read at scrape time:
 * `scheduler_runs_pending` (schedules due and not yet fired), `database_size_bytes`, and `mcp_servers_active`
 * (deps.mcpServersActive, else the servers whose last sync connected).
 * `station_uptime_seconds` comes from the Metrics' own start time.
 */
export function wireGauges(ctx: RouteContext): void {
  const { metrics, store, mcpServersActive } = ctx.deps;
  metrics.setGaugeSource(
    'mcp_servers_active',
    mcpServersActive ?? ((): Promise<number> => store.mcpServers.count({ status: 'connected' })),
  );
  metrics.setGaugeSource('scheduler_runs_pending', () => store.schedules.countDue());
  metrics.setGaugeSource('database_size_bytes', () => store.sizeBytes());
}

/** GET /metrics. A failing gauge source is left out of the scrape; the rest still renders. */
export const getMetricsRoute = defineRoute({
  operationId: 'getMetrics',
  method: 'get',
  path: '/metrics',
  summary: 'Prometheus metrics',
  description:
    'The spec §6.4 metrics in the Prometheus text format 0.0.4; gauges are read at scrape time. Needs the API key when keys are configured (Prometheus: `authorization: {credentials: <key>}`). Query parameters are ignored.',
  tag: 'service',
  auth: true,
  query: {},
  pathParams: [],
  responses: {
    200: { description: 'The metrics', body: { mediaType: METRICS_MEDIA_TYPE } },
  },
  handle(ctx) {
    const { metrics } = ctx.deps;
    return async (_req: Request, res: Response): Promise<void> => {
      const text = await metrics.renderPrometheus();
      res.set('Content-Type', PROMETHEUS_CONTENT_TYPE).set('Cache-Control', 'no-store').send(text);
    };
  },
});

/** The metrics routes. */
export const METRICS_ROUTES = [getMetricsRoute] as const;
