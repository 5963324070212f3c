// How the webhook server answers any failure — by its code's kind (@junction/errors) — and the
// JSON handlers that make sure no failure ever leaves as an HTML page or with a secret in it.
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { AGENT_CORE_ERRORS, type AgentCoreErrorCode } from '@junction/agent-core';
import { bodyReadFailure, type BodyReadFailure } from '@junction/config-templates';
import { httpStatus, httpStatuses, isJunctionError, type ErrorCodes } from '@junction/errors';
import { isStoreError, STORE_ERRORS, type StoreErrorCode } from '@junction/store';
import { redactText, type Logger } from '@junction/telemetry';
import { WORKFLOW_ERRORS, type WorkflowErrorCode } from '@junction/workflows';
import {
  WEBHOOK_ERRORS,
  WebhookError,
  isWebhookError,
  type JsonValue,
  type WebhookErrorCode,
} from './errors.js';

/** Every code a webhook answer can carry: this surface's, the run door's, the workflows' and the store's. */
export type WebhookAnswerCode =
  | WebhookErrorCode
  | AgentCoreErrorCode
  | WorkflowErrorCode
  | StoreErrorCode;

const ANSWER_KINDS: ErrorCodes<WebhookAnswerCode> = {
  ...AGENT_CORE_ERRORS,
  ...WORKFLOW_ERRORS,
  ...STORE_ERRORS,
  ...WEBHOOK_ERRORS,
};

/** HTTP status of every code the webhook server answers with (by kind; see @junction/errors). */
export const HTTP_STATUS_BY_CODE = httpStatuses(ANSWER_KINDS);

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

const INTERNAL: HttpFailure = {
  status: 500,
  headers: {},
  body: { error: { code: 'INTERNAL_ERROR', message: INTERNAL_MESSAGE } },
};

const BUSY: HttpFailure = {
  status: 503,
  headers: { 'Retry-After': '1' },
  body: {
    error: {
      code: 'SERVICE_BUSY',
      message:
        'The run store is busy, restarting or did not answer; the run may not have been queued. Retry in a moment with the same Idempotency-Key, so a run that was queued is not queued twice.',
    },
  },
};

/** How a thrown value is answered: known codes keep their message; anything else is a 500 without details. */
export function toHttpFailure(err: unknown): HttpFailure {
  const body = bodyReadFailure(err);
  const known = body ? fromBodyFailure(body, err) : err;
  if (isJunctionError(known)) {
    // The store cannot answer now: one answer for every cause, with Retry-After.
    if (isStoreError(known) && known.kind === 'unavailable') return BUSY;
    const status = httpStatus(known.code, known.kind);
    // The server's own fault: its message may hold internals; it goes to the log instead.
    if (status === 500) return INTERNAL;
    const headers: Record<string, string> = {};
    if (known.kind === 'unauthenticated') {
      headers['WWW-Authenticate'] = 'Bearer realm="junction-webhook"';
    }
    if (status === 405 && Array.isArray(known.details.allow)) {
      headers.Allow = (known.details.allow as string[]).join(', ');
    }
    if (known.code === 'SERVICE_BUSY') headers['Retry-After'] = '1';
    // This surface's own messages are written for the caller; the others' are cleaned. The
    // store's details name its tables and columns, and stay in the log.
    const message = isWebhookError(known) ? known.message : redactText(known.message);
    const details = isStoreError(known) ? {} : (known.details as Record<string, JsonValue>);
    return {
      status,
      headers,
      body: {
        error: {
          code: known.code,
          message,
          ...(Object.keys(details).length > 0 ? { details } : {}),
        },
      },
    };
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
  return INTERNAL;
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
