// Every route of the REST surface in one list, built from the resource files under routes/:
// the router mounts it and the OpenAPI document is generated from it, so a route cannot exist
// without being documented. The order is the mounting order (a fixed path before a `:param`
// one beside it) and the order of the document's paths.
import type { RouteDefinition } from './define-route.js';
import { isServed, type ServedDeps } from './route-spec.js';
import { AGENT_ROUTES } from './routes/agents.js';
import { ENVIRONMENT_ROUTES } from './routes/environments.js';
import { HEALTH_ROUTES } from './routes/health.js';
import { MCP_SERVER_ROUTES } from './routes/mcp-servers.js';
import { METRICS_ROUTES } from './routes/metrics.js';
import { OPENAPI_ROUTES } from './routes/openapi.js';
import { RUN_ROUTES } from './routes/runs.js';
import { SCHEDULE_ROUTES } from './routes/schedules.js';
import { TRACE_ROUTES } from './routes/traces.js';
import { APPROVAL_ROUTES } from './routes/workflow-approvals.js';
import { WORKFLOW_RUN_ROUTES } from './routes/workflow-runs.js';
import { WORKFLOW_ROUTES } from './routes/workflows.js';

export const ROUTES = [
  ...AGENT_ROUTES,
  ...RUN_ROUTES,
  ...ENVIRONMENT_ROUTES,
  ...MCP_SERVER_ROUTES,
  ...TRACE_ROUTES,
  ...WORKFLOW_ROUTES,
  ...WORKFLOW_RUN_ROUTES,
  ...APPROVAL_ROUTES,
  ...SCHEDULE_ROUTES,
  ...OPENAPI_ROUTES,
  ...HEALTH_ROUTES,
  ...METRICS_ROUTES,
] as const;

/** The name of every operation of the route table. */
export type OperationId = (typeof ROUTES)[number]['operationId'];

/** The routes a router serves: those without a `needs`, and those whose dep it was given. */
export function servedRoutes(served: ServedDeps): RouteDefinition<OperationId>[] {
  return ROUTES.filter((route) => isServed(route, served));
}

/** The operations the trace viewer (port 16686) serves beside its page. */
export const TRACE_OPERATIONS: ReadonlySet<OperationId> = new Set<OperationId>(
  TRACE_ROUTES.map((route) => route.operationId),
);

/** The routes of a process that only works runs (`junction worker`): probes and scrapers. */
export const PROBE_OPERATIONS: ReadonlySet<OperationId> = new Set<OperationId>(
  [...HEALTH_ROUTES, ...METRICS_ROUTES].map((route) => route.operationId),
);
