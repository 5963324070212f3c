// The answers of the trace routes, the MCP server list and the run stream, published under
// components/schemas of the OpenAPI document beside schemas.ts's.
import { z } from 'zod';

const timestamp = z.iso.datetime().describe('ISO 8601 UTC timestamp');
const attributes = z
  .record(z.string(), z.unknown())
  .describe('Attributes as plain JSON values (arrays and objects for OTLP arrays and key lists)');

export const SPAN_KINDS = [
  'unspecified',
  'internal',
  'server',
  'client',
  'producer',
  'consumer',
] as const;
export const SPAN_STATUSES = ['unset', 'ok', 'error'] as const;

export const traceSummarySchema = z
  .object({
    trace_id: z.string().describe('32 lowercase hex digits'),
    root_name: z.string().describe('Name of the span without a parent (else the earliest)'),
    root_service: z.string(),
    start_time: timestamp,
    duration_ms: z.number().describe('From the first span start to the last span end'),
    span_count: z.int().min(0),
    error_count: z.int().min(0).describe('Spans with status error'),
    services: z.array(z.string()),
    run_ids: z.array(z.int()).describe('Junction runs with spans in this trace'),
  })
  .describe('One trace found by a search');

export const traceListSchema = z
  .object({ traces: z.array(traceSummarySchema).describe('Newest first') })
  .describe('Traces matching the search');

export const spanEventSchema = z.object({
  name: z.string(),
  time: timestamp,
  time_us: z.number().describe('Microseconds since the epoch'),
  attributes,
});

export const spanSchema = z
  .object({
    trace_id: z.string(),
    span_id: z.string().describe('16 lowercase hex digits'),
    parent_span_id: z.string().nullable(),
    name: z.string(),
    kind: z.enum(SPAN_KINDS),
    service: z.string().describe('service.name of the resource that sent it'),
    scope: z.string().nullable().describe('Instrumentation scope name'),
    start_time: timestamp,
    start_us: z.number().describe('Microseconds since the epoch'),
    duration_ms: z.number(),
    status: z.enum(SPAN_STATUSES),
    status_message: z.string().nullable(),
    attributes,
    events: z.array(spanEventSchema).describe('Span events, exceptions among them'),
    resource: attributes,
    run_id: z.int().nullable().describe('The Junction run the span belongs to'),
  })
  .describe('One span');

export const traceSchema = z
  .object({
    trace_id: z.string(),
    spans: z.array(spanSchema).describe('By start time'),
  })
  .describe('Every stored span of one trace');

export const traceServicesSchema = z
  .object({
    services: z.array(
      z.object({ name: z.string(), operations: z.array(z.string()).describe('Span names') }),
    ),
  })
  .describe('Services and span names with stored spans, for the search form');

export const mcpServerSchema = z
  .object({
    id: z.int().min(1),
    name: z.string(),
    environment: z.string(),
    transport: z.enum(['stdio', 'http', 'sse']),
    status: z
      .enum(['connected', 'error', 'never synced'])
      .describe('As the last sync of its environment found it'),
    last_synced_at: timestamp.nullable(),
    error: z.string().nullable().describe('Why the last sync could not use it'),
    tools: z.array(z.object({ name: z.string(), description: z.string().nullable() })),
  })
  .describe('An MCP server of an environment with its tools');

export const mcpServerListSchema = z
  .object({ mcp_servers: z.array(mcpServerSchema) })
  .describe('MCP servers by environment and name');

export type TraceSummaryBody = z.infer<typeof traceSummarySchema>;
export type TraceListBody = z.infer<typeof traceListSchema>;
export type SpanBody = z.infer<typeof spanSchema>;
export type TraceBody = z.infer<typeof traceSchema>;
export type TraceServicesBody = z.infer<typeof traceServicesSchema>;
export type McpServerBody = z.infer<typeof mcpServerSchema>;
export type McpServerListBody = z.infer<typeof mcpServerListSchema>;
