// The one table from error codes to HTTP answers on the webhook server, and the JSON
// handlers that make sure no failure ever leaves as an HTML page or with a secret in it.
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { isAgentCoreError, type AgentCoreErrorCode } from '@junction/agent-core';
import { bodyReadFailure, type BodyReadFailure } from '@junction/config-templates';
import { isStoreError, type StoreErrorCode } from '@junction/store';
import { redactText, type Logger } from '@junction/telemetry';
import { isWorkflowError, type WorkflowErrorCode } from '@junction/workflows';
import { WebhookError, isWebhookError, type JsonValue, type WebhookErrorCode } from './errors.js';

/** Every code a webhook answer can carry: this surface's, the run door's, the workflows' and the store's. */
export type WebhookAnswerCode =
  | WebhookErrorCode
  | AgentCoreErrorCode
  | WorkflowErrorCode
  | StoreErrorCode;

/** HTTP status of every code the webhook server answers with; anything unlisted is a 500. */
export const HTTP_STATUS_BY_CODE: Readonly<Partial<Record<WebhookAnswerCode, number>>> = {
  // the caller's request
  INVALID_JSON: 400,
  INVALID_REQUEST: 400,
  RUN_REQUEST_INVALID: 400,
  AGENT_AMBIGUOUS: 400,
  IDEMPOTENCY_KEY_INVALID: 400,
  BEARER_TOKEN_REQUIRED: 401,
  INVALID_API_KEY: 401,
  APPROVAL_TOKEN_INVALID: 403,
  APPROVER_NOT_ALLOWED: 403,
  ORIGIN_NOT_ALLOWED: 403,
  ROUTE_NOT_FOUND: 404,
  ENVIRONMENT_NOT_FOUND: 404,
  AGENT_NOT_FOUND: 404,
  RUN_NOT_FOUND: 404,
  APPROVAL_NOT_FOUND: 404,
  WORKFLOW_RUN_NOT_FOUND: 404,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  APPROVAL_DECIDED: 409,
  APPROVAL_EXPIRED: 410,
  APPROVAL_WITHDRAWN: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IDEMPOTENCY_KEY_REUSED: 422,
  // the agent cannot run as the server is configured (the operator's to fix, not a crash)
  AGENT_INVALID: 503,
  MODEL_NOT_CONFIGURED: 503,
  MODEL_PROVIDER_UNKNOWN: 503,
  MODEL_API_KEY_MISSING: 503,
  MODEL_BASE_URL_MISSING: 503,
  // momentary trouble: retry
  SERVICE_BUSY: 503,
  STORE_BUSY: 503,
  STORE_CLOSED: 503,
  STORE_UNAVAILABLE: 503,
  // real faults
  INTERNAL_ERROR: 500,
};

/** The JSON error body every refusal carries. */
export interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, JsonValue> };
}

/** How a failure is answered. */
export interface HttpFailure {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
}

const INTERNAL_MESSAGE =
  'The webhook server failed while handling this request. Nothing was queued; retry later, and if it persists look for "webhook request failed" in the server log.';

/** A body that could not be read (config-templates' one rule), in this surface's codes. */
function fromBodyFailure(failure: BodyReadFailure, cause: unknown): WebhookError {
  switch (failure.kind) {
    case 'not_json':
      return new WebhookError(
        'INVALID_JSON',
        `The request body is not valid JSON (${failure.detail}). Send a JSON object such as {"agent_name": "assistant", "task": "..."}.`,
        {},
        { cause },
      );
    case 'too_large': {
      const size =
        failure.lengthBytes === null
          ? 'larger than the limit of'
          : `${failure.lengthBytes} bytes; the limit is`;
      return new WebhookError(
        'PAYLOAD_TOO_LARGE',
        `The request body is ${size} ${failure.limitBytes ?? '?'} bytes (webhook.max_body_bytes). Send a shorter task or fewer variables.`,
        { limit_bytes: failure.limitBytes },
        { cause },
      );
    }
    case 'unsupported':
      return new WebhookError('UNSUPPORTED_MEDIA_TYPE', failure.message, {}, { cause });
    case 'undecodable':
    case 'incomplete':
    case 'unreadable':
      return new WebhookError('INVALID_REQUEST', failure.message, {}, { cause });
  }
}

/** How a thrown value is answered: known codes keep their message; anything else is a 500 without details. */
export function toHttpFailure(err: unknown): HttpFailure {
  const body = bodyReadFailure(err);
  const known = body ? fromBodyFailure(body, err) : err;
  if (isWebhookError(known)) {
    const status = HTTP_STATUS_BY_CODE[known.code] ?? 500;
    const headers: Record<string, string> = {};
    if (known.code === 'BEARER_TOKEN_REQUIRED' || known.code === 'INVALID_API_KEY') {
      headers['WWW-Authenticate'] = 'Bearer realm="junction-webhook"';
    }
    if (known.code === 'METHOD_NOT_ALLOWED' && Array.isArray(known.details.allow)) {
      headers.Allow = known.details.allow.join(', ');
    }
    if (status === 503 && known.code === 'SERVICE_BUSY') headers['Retry-After'] = '1';
    const message = status === 500 ? INTERNAL_MESSAGE : known.message;
    const code = status === 500 ? 'INTERNAL_ERROR' : known.code;
    const details =
      status === 500 || Object.keys(known.details).length === 0 ? undefined : known.details;
    return { status, headers, body: { error: { code, message, ...(details ? { details } : {}) } } };
  }
  if (isWorkflowError(known)) {
    const status = HTTP_STATUS_BY_CODE[known.code] ?? 500;
    if (status !== 500) {
      // Workflow details are JSON-safe by contract (an approval's view, ids, approvers).
      const details = known.details as Record<string, JsonValue>;
      return {
        status,
        headers: {},
        body: {
          error: {
            code: known.code,
            message: redactText(known.message),
            ...(Object.keys(details).length > 0 ? { details } : {}),
          },
        },
      };
    }
  }
  if (isAgentCoreError(known) || isStoreError(known)) {
    const status = HTTP_STATUS_BY_CODE[known.code] ?? 500;
    if (status !== 500) {
      const busy =
        known.code === 'STORE_BUSY' ||
        known.code === 'STORE_CLOSED' ||
        known.code === 'STORE_UNAVAILABLE';
      return {
        status,
        headers: busy ? { 'Retry-After': '1' } : {},
        body: {
          error: {
            code: busy ? 'SERVICE_BUSY' : known.code,
            message: busy
              ? 'The run store is busy, restarting or did not answer; the run may not have been queued. Retry in a moment with the same Idempotency-Key, so a run that was queued is not queued twice.'
              : redactText(known.message),
            ...(!busy && isAgentCoreError(known) && Object.keys(known.details).length > 0
              ? { details: known.details as Record<string, JsonValue> }
              : {}),
          },
        },
      };
    }
  }
  // Anything else the HTTP stack rejects as the client's fault (a malformed %-escape in the
  // path, …) carries a 4xx status: it is a bad request, never a 500.
  const status =
    (known as { status?: unknown; statusCode?: unknown } | null)?.status ??
    (known as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return {
      status: 400,
      headers: {},
      body: {
        error: {
          code: 'INVALID_REQUEST',
          message:
            'The request could not be read (malformed URL or headers). Check the path and try again.',
        },
      },
    };
  }
  return {
    status: 500,
    headers: {},
    body: { error: { code: 'INTERNAL_ERROR', message: INTERNAL_MESSAGE } },
  };
}

/** Writes a failure as JSON. */
export function sendFailure(res: Response, failure: HttpFailure): void {
  res.status(failure.status).set(failure.headers).json(failure.body);
}

/** The last handler of a webhook app or router: every error becomes a JSON body; 500s are logged (redacted). */
export function webhookErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const failure = toHttpFailure(err);
    if (failure.status >= 500) {
      const message = err instanceof Error ? err.message : String(err);
      logger.error('webhook request failed', {
        method: req.method,
        path: req.path,
        status: failure.status,
        code: failure.body.error.code,
        error: redactText(message),
      });
    }
    sendFailure(res, failure);
  };
}

/** A JSON 404 for paths no route claims (mount after every router of the webhook server). */
export function webhookNotFoundHandler(): RequestHandler {
  return (req, res) => {
    sendFailure(
      res,
      toHttpFailure(
        new WebhookError(
          'ROUTE_NOT_FOUND',
          `No route ${req.method} ${req.path} on the webhook server. Routes: POST /execute (when webhook.enabled is true), GET /runs/:run_id and the approval URLs under /workflow-approvals/ (when workflows are served).`,
          { method: req.method, path: req.path },
        ),
      ),
    );
  };
}

/** A handler answering 405 with Allow for a path whose other methods exist. */
export function methodNotAllowed(allow: readonly string[]): RequestHandler {
  return (req, res) => {
    sendFailure(
      res,
      toHttpFailure(
        new WebhookError(
          'METHOD_NOT_ALLOWED',
          `${req.method} is not allowed on ${req.path}; use ${allow.join(' or ')}.`,
          { allow: [...allow] },
        ),
      ),
    );
  };
}
