// Errors of the REST surface, and how any error is answered: by its code's kind and HTTP's
// few exceptions (@junction/errors), a store that cannot answer and the server's own faults
// each with one answer that keeps internals out.
import { AGENT_CORE_ERRORS, type AgentCoreErrorCode } from '@junction/agent-core';
import {
  bodyReadFailure,
  CONFIG_TEMPLATES_ERRORS,
  type BodyReadFailure,
  type ConfigTemplatesErrorCode,
} from '@junction/config-templates';
import {
  codesOf,
  httpStatus,
  httpStatuses,
  isJunctionError,
  errorClass,
  type ErrorCodes,
} from '@junction/errors';
import { SCHEDULE_ERRORS, type ScheduleErrorCode } from '@junction/scheduler';
import { isStoreError, STORE_ERRORS, type StoreErrorCode } from '@junction/store';
import { mapStrings } from '@junction/telemetry';
import { WORKFLOW_ERRORS, type WorkflowErrorCode } from '@junction/workflows';
import type { ErrorResponse } from './schemas.js';

/** Codes raised by the REST surface itself (domain packages bring their own), with their kinds. */
export const REST_ERRORS = {
  INVALID_PARAMETER: 'invalid',
  INVALID_BODY: 'invalid',
  INVALID_JSON: 'invalid',
  API_KEY_MISSING: 'unauthenticated',
  API_KEY_INVALID: 'unauthenticated',
  ROUTE_NOT_FOUND: 'not_found',
  METHOD_NOT_ALLOWED: 'invalid',
  PAYLOAD_TOO_LARGE: 'too_large',
  UNSUPPORTED_MEDIA_TYPE: 'invalid',
  DATABASE_UNAVAILABLE: 'unavailable',
  INTERNAL_ERROR: 'internal',
  TRACE_NOT_FOUND: 'not_found',
  TOO_MANY_STREAMS: 'unavailable',
} as const satisfies ErrorCodes;

export type RestErrorCode = keyof typeof REST_ERRORS;

/** Codes raised by the REST surface itself. */
export const REST_ERROR_CODES = codesOf<RestErrorCode>(REST_ERRORS);

/** A refusal of the REST surface: a stable code, a message that says what to do, JSON-safe details. */
export const RestApiError = errorClass<RestErrorCode>('RestApiError', REST_ERRORS);
export type RestApiError = InstanceType<typeof RestApiError>;

/** Every code a REST answer can carry: this surface's and the domain's. */
export type RestAnswerCode =
  | RestErrorCode
  | AgentCoreErrorCode
  | StoreErrorCode
  | ConfigTemplatesErrorCode
  | WorkflowErrorCode
  | ScheduleErrorCode;

/** Every code a REST answer can carry, with its kind. */
const ANSWER_KINDS: ErrorCodes<RestAnswerCode> = {
  ...AGENT_CORE_ERRORS,
  ...CONFIG_TEMPLATES_ERRORS,
  ...STORE_ERRORS,
  ...WORKFLOW_ERRORS,
  ...SCHEDULE_ERRORS,
  ...REST_ERRORS,
};

/** The status of every code a REST answer can carry (the OpenAPI document lists them). */
export const ERROR_STATUS = httpStatuses(ANSWER_KINDS);

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
    return answer(httpStatus(err.code, err.kind), err.code, err.message, err.details);
  }
  if (isJunctionError(err)) {
    // The store cannot answer now: one answer for every cause, with Retry-After.
    if (isStoreError(err) && err.kind === 'unavailable') return DATABASE();
    // The server's own fault: its message may hold internals; it goes to the log instead.
    if (err.kind === 'internal') return INTERNAL();
    const details = mapStrings(err.details, options.clean) as Record<string, unknown>;
    return answer(httpStatus(err.code, err.kind), err.code, options.clean(err.message), details);
  }
  return httpError(err, options.maxBodyBytes) ?? INTERNAL();
}
