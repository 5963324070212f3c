// GET /api/v1/traces, /api/v1/traces/:trace_id and /api/v1/trace-services: the traces kept
// in the store (Junction's own spans and those sent to its OTLP receiver).
import type { SpanRecord, TraceSummary } from '@junction/store';
import { mapStrings } from '@junction/telemetry';
import type { Request, Response } from 'express';
import { defineRoute } from '../define-route.js';
import { RestApiError } from '../errors.js';
import {
  NO_PARAMS,
  parseQuery,
  TRACE_ID_SCHEMA,
  TRACE_LIST_PARAMS,
  type TimeValue,
} from '../query-params.js';
import { badParams } from '../responses.js';
import {
  SPAN_KINDS,
  SPAN_STATUSES,
  type SpanBody,
  type TraceBody,
  type TraceListBody,
  type TraceServicesBody,
  type TraceSummaryBody,
} from '../trace-schemas.js';

const iso = (us: number): string => new Date(Math.floor(us / 1000)).toISOString();
const ms = (us: number): number => Math.round(us) / 1000;

function summaryBody(t: TraceSummary): TraceSummaryBody {
  return {
    trace_id: t.traceId,
    root_name: t.rootName,
    root_service: t.rootService,
    start_time: iso(t.startUs),
    duration_ms: ms(t.durationUs),
    span_count: t.spanCount,
    error_count: t.errorCount,
    services: t.services,
    run_ids: t.runIds,
  };
}

/** One span as answered; known secrets are taken out of every text in it. */
function spanBody(span: SpanRecord, clean: (text: string) => string): SpanBody {
  const texts = <T>(value: T): T => mapStrings(value, clean) as T;
  return {
    trace_id: span.traceId,
    span_id: span.spanId,
    parent_span_id: span.parentSpanId,
    name: span.name,
    kind: SPAN_KINDS[span.kind] ?? 'unspecified',
    service: span.serviceName,
    scope: span.scopeName,
    start_time: iso(span.startUs),
    start_us: span.startUs,
    duration_ms: ms(span.durationUs),
    status: SPAN_STATUSES[span.statusCode] ?? 'unset',
    status_message: span.statusMessage === null ? null : clean(span.statusMessage),
    attributes: texts(span.attributes),
    events: span.events.map((event) => ({
      name: event.name,
      time: iso(event.timeUs),
      time_us: event.timeUs,
      attributes: texts(event.attributes),
    })),
    resource: texts(span.resource),
    run_id: span.runId,
  };
}

/** GET /api/v1/traces: traces matching the search, newest first. */
export const listTracesRoute = defineRoute({
  operationId: 'listTraces',
  method: 'get',
  path: '/api/v1/traces',
  summary: 'Search stored traces',
  description:
    "Traces kept in the store (Junction's own spans and those sent to its OTLP receiver), newest first: a trace matches when one of its spans has the service, the span name (operation) or the run id; status error keeps traces with a span in error, ok those without.",
  tag: 'traces',
  auth: true,
  query: TRACE_LIST_PARAMS,
  pathParams: [],
  responses: {
    200: { description: 'The traces found', body: 'TraceList' },
    400: badParams('an unknown, repeated or malformed query parameter'),
  },
  handle(ctx) {
    const { store, now } = ctx.deps;
    const at = (value: TimeValue): Date =>
      value instanceof Date ? value : new Date(now().getTime() - value.agoMs);
    return async (req: Request, res: Response): Promise<void> => {
      const q = parseQuery(req.query as Record<string, unknown>, TRACE_LIST_PARAMS);
      const traces = await store.spans.searchTraces({
        ...(q.service !== undefined ? { service: q.service } : {}),
        ...(q.operation !== undefined ? { operation: q.operation } : {}),
        ...(q.run_id !== undefined ? { runId: q.run_id } : {}),
        ...(q.status !== undefined ? { status: q.status } : {}),
        ...(q.since !== undefined ? { since: at(q.since) } : {}),
        ...(q.until !== undefined ? { until: at(q.until) } : {}),
        limit: q.limit,
      });
      const body: TraceListBody = { traces: traces.map(summaryBody) };
      res.json(body);
    };
  },
});

/** GET /api/v1/traces/:trace_id: every stored span of the trace, by start time. */
export const getTraceRoute = defineRoute({
  operationId: 'getTrace',
  method: 'get',
  path: '/api/v1/traces/:trace_id',
  summary: 'Get a trace',
  description:
    'Every stored span of the trace by start time, with attributes, events (exceptions among them), status and the run each belongs to.',
  tag: 'traces',
  auth: true,
  query: NO_PARAMS,
  pathParams: [
    {
      name: 'trace_id',
      description: 'The trace id: 32 hexadecimal digits',
      schema: TRACE_ID_SCHEMA,
    },
  ],
  responses: {
    200: { description: 'The trace', body: 'Trace' },
    400: badParams('trace_id is not 32 hexadecimal digits, or a query parameter was given'),
    404: {
      description: 'TRACE_NOT_FOUND: no span of this trace is stored',
      body: 'Error',
    },
  },
  handle(ctx) {
    const { store } = ctx.deps;
    return async (req: Request, res: Response): Promise<void> => {
      parseQuery(req.query as Record<string, unknown>, NO_PARAMS);
      const raw = String(req.params.trace_id ?? '');
      if (!TRACE_ID_SCHEMA.safeParse(raw).success) {
        throw new RestApiError(
          'INVALID_PARAMETER',
          `trace_id must be 32 hexadecimal digits (got ${JSON.stringify(raw.slice(0, 64))}).`,
          { field: 'trace_id' },
        );
      }
      const traceId = raw.toLowerCase();
      const spans = await store.spans.trace(traceId);
      if (spans.length === 0) {
        throw new RestApiError(
          'TRACE_NOT_FOUND',
          `No spans of trace ${traceId} are stored (never received, or deleted by retention). GET /api/v1/traces searches the traces.`,
          { trace_id: traceId },
        );
      }
      const body: TraceBody = {
        trace_id: traceId,
        spans: spans.map((span) => spanBody(span, ctx.clean)),
      };
      res.json(body);
    };
  },
});

/** GET /api/v1/trace-services: services and span names with stored spans. */
export const listTraceServicesRoute = defineRoute({
  operationId: 'listTraceServices',
  method: 'get',
  path: '/api/v1/trace-services',
  summary: 'List traced services and operations',
  description: 'Services with stored spans and the span names of each, for a search form.',
  tag: 'traces',
  auth: true,
  query: NO_PARAMS,
  pathParams: [],
  responses: {
    200: { description: 'The services', body: 'TraceServices' },
    400: badParams('a query parameter was given'),
  },
  handle(ctx) {
    const { store } = ctx.deps;
    return async (req: Request, res: Response): Promise<void> => {
      parseQuery(req.query as Record<string, unknown>, NO_PARAMS);
      const body: TraceServicesBody = { services: await store.spans.services() };
      res.json(body);
    };
  },
});

/** The trace routes (the trace viewer serves these alone: TRACE_OPERATIONS). */
export const TRACE_ROUTES = [listTracesRoute, getTraceRoute, listTraceServicesRoute] as const;
