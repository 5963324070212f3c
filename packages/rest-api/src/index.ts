// Public API of @junction/rest-api. Every name is exported on purpose; nothing else is public.
export { createRestRouter } from './rest-router.js';
export { createRestApp } from './rest-app.js';
export type { RestAppOptions } from './rest-app.js';
export { DEFAULT_HEALTH_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES } from './deps.js';
export type { RestDeps } from './deps.js';
export { createOpenApiDocument } from './openapi-document.js';
export type { JsonObject, OpenApiOptions } from './openapi-document.js';
export { ERROR_STATUS, REST_ERRORS, REST_ERROR_CODES, RestApiError } from './errors.js';
export type { ErrorBody, RestErrorCode } from './errors.js';
export { DEFAULT_LIMIT, MAX_LIMIT } from './query-params.js';
export { SCHEDULER_STATES } from './schemas.js';
export { PROBE_OPERATIONS, TRACE_OPERATIONS } from './route-table.js';
export type { OperationId } from './route-table.js';
export type {
  McpServerListBody,
  SpanBody,
  TraceBody,
  TraceListBody,
  TraceServicesBody,
} from './trace-schemas.js';

export type {
  AgentBody,
  AgentListBody,
  EnvironmentBody,
  EnvironmentListBody,
  HealthBody,
  QueuedRunBody,
  QueueRequest,
  RunBody,
  RunDetailBody,
  RunEventBody,
  RunListBody,
  ScheduleBody,
  ScheduleListBody,
  SchedulerState,
  ScheduleRunAnswerBody,
  SetScheduleRequest,
  TracesHealthBody,
  QueueHealthBody,
  WorkersHealthBody,
  UnhealthyBody,
  ApprovalAnswerBody,
  ApprovalBody,
  ApprovalListBody,
  WorkflowBody,
  WorkflowDetailBody,
  WorkflowListBody,
  WorkflowRunAnswerBody,
  WorkflowRunBody,
  WorkflowRunDetailBody,
  WorkflowRunListBody,
  WorkflowStepBody,
} from './schemas.js';
