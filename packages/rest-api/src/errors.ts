// Errors of the REST surface and the one table that maps every error code to an HTTP status.
import { isAgentCoreError, type AgentCoreErrorCode } from '@junction/agent-core';
import {
  bodyReadFailure,
  isConfigTemplatesError,
  type BodyReadFailure,
  type ConfigTemplatesErrorCode,
} from '@junction/config-templates';
import { isScheduleError, type ScheduleErrorCode } from '@junction/scheduler';
import { isStoreError, type StoreErrorCode } from '@junction/store';
import { mapStrings } from '@junction/telemetry';
import { isWorkflowError, type WorkflowErrorCode } from '@junction/workflows';
import type { ErrorResponse } from './schemas.js';

/** Codes raised by the REST surface itself (domain packages bring their own). */
export const REST_ERROR_CODES = [
  'INVALID_PARAMETER',
  'INVALID_BODY',
  'INVALID_JSON',
  'API_KEY_MISSING',
  'API_KEY_INVALID',
  'ROUTE_NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'DATABASE_UNAVAILABLE',
  'INTERNAL_ERROR',
  'TRACE_NOT_FOUND',
  'TOO_MANY_STREAMS',
] as const;

export type RestErrorCode = (typeof REST_ERROR_CODES)[number];

/** A refusal of the REST surface: a stable code, a message that says what to do, JSON-safe details. */
export class RestApiError extends Error {
  readonly code: RestErrorCode;
  readonly details: Record<string, unknown>;

  constructor(
    code: RestErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'RestApiError';
    this.code = code;
    this.details = details;
  }
}

/**
 * The status of every code a response can carry. Domain codes not listed here fall back by
 * family: an agent-core or config-templates refusal is 422 (the request was understood, the
 * agent cannot run as configured), anything unknown is a 500.
 */
/** Every code a REST answer can carry: this surface's and the domain's. */
export type RestAnswerCode =
  | RestErrorCode
  | AgentCoreErrorCode
  | StoreErrorCode
  | ConfigTemplatesErrorCode
  | WorkflowErrorCode
  | ScheduleErrorCode;

/** Every code of @junction/workflows, so a new one does not compile until it has a status. */
const WORKFLOW_STATUS: Readonly<Record<WorkflowErrorCode, number>> = {
  WORKFLOW_INVALID: 400,
  WORKFLOW_INPUT_INVALID: 400,
  APPROVER_NOT_ALLOWED: 403,
  APPROVAL_TOKEN_INVALID: 403,
  WORKFLOW_NOT_FOUND: 404,
  WORKFLOW_RUN_NOT_FOUND: 404,
  APPROVAL_NOT_FOUND: 404,
  WORKFLOW_AMBIGUOUS: 409,
  WORKFLOW_DISABLED: 409,
  WORKFLOW_RUN_ENDED: 409,
  APPROVAL_DECIDED: 409,
  APPROVAL_EXPIRED: 410,
  APPROVAL_WITHDRAWN: 409,
};

/** Every code of @junction/scheduler, so a new one does not compile until it has a status. */
const SCHEDULE_STATUS: Readonly<Record<ScheduleErrorCode, number>> = {
  SCHEDULE_INVALID: 400,
  SCHEDULE_NOT_FOUND: 404,
  SCHEDULE_TARGET_NOT_FOUND: 404,
  SCHEDULE_TARGET_AMBIGUOUS: 409,
  SCHEDULER_UNAVAILABLE: 503,
};

export const ERROR_STATUS: Readonly<Partial<Record<RestAnswerCode, number>>> = {
  INVALID_PARAMETER: 400,
  INVALID_BODY: 400,
  INVALID_JSON: 400,
  API_KEY_MISSING: 401,
  API_KEY_INVALID: 401,
  ROUTE_NOT_FOUND: 404,
  AGENT_NOT_FOUND: 404,
  RUN_NOT_FOUND: 404,
  RUN_ENDED: 409,
  ENVIRONMENT_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  DATABASE_UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
  TRACE_NOT_FOUND: 404,
  TOO_MANY_STREAMS: 503,
  // @junction/agent-core: the run request itself
  RUN_REQUEST_INVALID: 400,
  AGENT_AMBIGUOUS: 400,
  IDEMPOTENCY_KEY_REUSED: 422,
  // @junction/agent-core: the agent exists but cannot be run as the server is configured
  // (the operator's to fix; every surface answers these 503).
  MODEL_NOT_CONFIGURED: 503,
  MODEL_PROVIDER_UNKNOWN: 503,
  MODEL_API_KEY_MISSING: 503,
  MODEL_BASE_URL_MISSING: 503,
  AGENT_INVALID: 503,
  TOOL_NOT_FOUND: 422,
  TOOL_AMBIGUOUS: 422,
  SUB_AGENT_NOT_FOUND: 422,
  TEMPLATE_VARIABLE_MISSING: 422,
  // @junction/store
  NOT_FOUND: 404,
  CONFLICT: 409,
  INVALID_INPUT: 400,
  INVALID_REFERENCE: 422,
  // @junction/workflows
  ...WORKFLOW_STATUS,
  // @junction/scheduler
  ...SCHEDULE_STATUS,
};

/** Store codes that mean the database cannot answer now: 503, with a message that hides internals. */
const DATABASE_DOWN: ReadonlySet<string> = new Set([
  'STORE_OPEN_FAILED',
  'STORE_MIGRATION_FAILED',
  'STORE_CLOSED',
  'STORE_BUSY',
  'STORE_UNAVAILABLE',
]);

/** Domain codes that are the server's trouble, never the caller's: answered as a 500. */
const DOMAIN_SERVER_FAULTS: ReadonlySet<string> = new Set([
  'MCP_CONNECT_FAILED',
  'MCP_TIMEOUT',
  'MCP_SERVER_EXITED',
  'MCP_REQUEST_FAILED',
  'MCP_POOL_CLOSED',
  'CONFIG_UNREADABLE',
  'FILE_UNREADABLE',
]);

/** The body of every error response (the `Error` schema of the OpenAPI document). */
export type ErrorBody = ErrorResponse;

/** How an error is answered: status, body, and whether it is a fault worth logging. */
export interface ErrorAnswer {
  status: number;
  body: ErrorBody;
  /** True for 5xx answers: the server's fault, logged with the original error. */
  fault: boolean;
  /** Headers the answer carries (`Retry-After` on a database outage). */
  headers?: Record<string, string>;
}

function answer(
  status: number,
  code: string,
  message: string,
  details?: Record<string, unknown>,
): ErrorAnswer {
  const body: ErrorBody = { error: { code, message } };
  if (details !== undefined && Object.keys(details).length > 0) body.error.details = details;
  return { status, body, fault: status >= 500 };
}

const INTERNAL = (): ErrorAnswer =>
  answer(
    500,
    'INTERNAL_ERROR',
    'The server failed to answer this request. The cause is in the server log; retry, and report it if it persists.',
  );

const DATABASE = (): ErrorAnswer => ({
  ...answer(
    503,
    'DATABASE_UNAVAILABLE',
    'The database cannot answer right now (busy, closed or unreachable). Retry shortly; GET /health shows its state.',
  ),
  headers: { 'Retry-After': '1' },
});

/** HTTP errors raised by express and body-parser: bodies by the one rule (bodyReadFailure), then malformed URLs. */
function httpError(err: unknown, maxBodyBytes: number): ErrorAnswer | undefined {
  const body = bodyReadFailure(err);
  if (body) return bodyAnswer(body, maxBodyBytes);
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { status?: unknown; statusCode?: unknown };
  const status = typeof e.status === 'number' ? e.status : e.statusCode;
  if (status !== 400) return undefined;
  return err instanceof URIError
    ? answer(400, 'INVALID_PARAMETER', 'The URL contains malformed percent-encoding.')
    : answer(400, 'INVALID_PARAMETER', 'The request is malformed.');
}

/** A body that could not be read, in this surface's codes. */
function bodyAnswer(failure: BodyReadFailure, maxBodyBytes: number): ErrorAnswer {
  switch (failure.kind) {
    case 'too_large':
      return answer(
        413,
        'PAYLOAD_TOO_LARGE',
        `The request body is larger than the limit of ${maxBodyBytes} bytes. Send a shorter task.`,
        { limit_bytes: maxBodyBytes },
      );
    case 'not_json':
      return answer(
        400,
        'INVALID_JSON',
        'The request body is not valid JSON. Send a JSON object such as {"task": "..."}.',
      );
    case 'unsupported':
      return answer(415, 'UNSUPPORTED_MEDIA_TYPE', failure.message);
    case 'undecodable':
    case 'incomplete':
    case 'unreadable':
      return answer(400, 'INVALID_BODY', failure.message);
  }
}

/**
 * Turns anything thrown by a handler into its answer: REST refusals and domain errors keep
 * their code, message and details; store outages are 503 and real faults 500, both without
 * internals in the message. `clean` removes secrets from messages that are passed on.
 */
export function errorAnswer(
  err: unknown,
  options: { maxBodyBytes: number; clean: (text: string) => string },
): ErrorAnswer {
  if (err instanceof RestApiError) {
    return answer(ERROR_STATUS[err.code] ?? 500, err.code, err.message, err.details);
  }
  if (isStoreError(err)) {
    if (DATABASE_DOWN.has(err.code)) return DATABASE();
    const status = ERROR_STATUS[err.code];
    if (status === undefined) return INTERNAL();
    const details = mapStrings(err.details, options.clean) as Record<string, unknown>;
    return answer(status, err.code, options.clean(err.message), details);
  }
  if (isWorkflowError(err) || isScheduleError(err)) {
    const status = isWorkflowError(err) ? WORKFLOW_STATUS[err.code] : SCHEDULE_STATUS[err.code];
    const details = mapStrings(err.details, options.clean) as Record<string, unknown>;
    return answer(status, err.code, options.clean(err.message), details);
  }
  if (isAgentCoreError(err) || isConfigTemplatesError(err)) {
    if (DOMAIN_SERVER_FAULTS.has(err.code)) return INTERNAL();
    const status = ERROR_STATUS[err.code] ?? 422;
    const details = mapStrings(err.details, options.clean) as Record<string, unknown>;
    return answer(status, err.code, options.clean(err.message), details);
  }
  return httpError(err, options.maxBodyBytes) ?? INTERNAL();
}
