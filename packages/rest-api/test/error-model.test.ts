// REST answers every code by its kind (@junction/errors): each code of every package it can
// meet, raised as its package raises it, gets the status of its kind (or HTTP's own for the few
// exceptions); a store that cannot answer is one 503 with Retry-After, and a fault of the server
// a 500 whose message stays in the log.
import { describe, expect, it } from '@jest/globals';
import { AGENT_CORE_ERRORS, AgentCoreError } from '@junction/agent-core';
import { CONFIG_TEMPLATES_ERRORS, ConfigTemplatesError } from '@junction/config-templates';
import { SCHEDULE_ERRORS, ScheduleError } from '@junction/scheduler';
import { STORE_ERRORS, StoreError } from '@junction/store';
import { WORKFLOW_ERRORS, WorkflowError } from '@junction/workflows';
import { ERROR_STATUS, errorAnswer, REST_ERRORS, RestApiError } from '../src/errors.js';

const SECRET = 'sk-in-a-message-1234567890';
const answerOf = (err: unknown) =>
  errorAnswer(err, { maxBodyBytes: 1000, clean: (t) => t.replaceAll(SECRET, '[REDACTED]') });

const raised: Array<[string, () => Error]> = [
  ...Object.keys(AGENT_CORE_ERRORS).map(
    (c) => [c, () => new AgentCoreError(c as never, `m ${SECRET}`)] as [string, () => Error],
  ),
  ...Object.keys(CONFIG_TEMPLATES_ERRORS).map(
    (c) => [c, () => new ConfigTemplatesError(c as never, `m ${SECRET}`)] as [string, () => Error],
  ),
  ...Object.keys(STORE_ERRORS).map(
    (c) => [c, () => new StoreError(c as never, `m ${SECRET}`)] as [string, () => Error],
  ),
  ...Object.keys(WORKFLOW_ERRORS).map(
    (c) => [c, () => new WorkflowError(c as never, `m ${SECRET}`)] as [string, () => Error],
  ),
  ...Object.keys(SCHEDULE_ERRORS).map(
    (c) => [c, () => new ScheduleError(c as never, `m ${SECRET}`)] as [string, () => Error],
  ),
  ...Object.keys(REST_ERRORS).map(
    (c) => [c, () => new RestApiError(c as never, 'm')] as [string, () => Error],
  ),
];

describe('REST answers every error code by its kind', () => {
  it('gives each code its status, keeps its code and message (cleaned), and hides faults', () => {
    for (const [code, make] of raised) {
      const err = make() as Error & { kind: string };
      const { status, body, headers } = answerOf(err);
      if (err instanceof StoreError && err.kind === 'unavailable') {
        expect([code, status, body.error.code, headers]).toEqual([
          code,
          503,
          'DATABASE_UNAVAILABLE',
          { 'Retry-After': '1' },
        ]);
      } else if (err.kind === 'internal' && !(err instanceof RestApiError)) {
        expect([code, status, body.error.code]).toEqual([code, 500, 'INTERNAL_ERROR']);
        expect(body.error.message).not.toContain('m ');
      } else {
        expect([code, status, body.error.code]).toEqual([
          code,
          ERROR_STATUS[code as keyof typeof ERROR_STATUS],
          code,
        ]);
        expect(body.error.message).not.toContain(SECRET);
      }
    }
  });

  it('answers the statuses clients and the OpenAPI document rely on', () => {
    const expected: Record<string, number> = {
      RUN_REQUEST_INVALID: 400,
      AGENT_AMBIGUOUS: 400,
      API_KEY_MISSING: 401,
      APPROVER_NOT_ALLOWED: 403,
      AGENT_NOT_FOUND: 404,
      METHOD_NOT_ALLOWED: 405,
      RUN_ENDED: 409,
      WORKFLOW_AMBIGUOUS: 409,
      SCHEDULE_TARGET_AMBIGUOUS: 409,
      APPROVAL_EXPIRED: 410,
      PAYLOAD_TOO_LARGE: 413,
      UNSUPPORTED_MEDIA_TYPE: 415,
      IDEMPOTENCY_KEY_REUSED: 422,
      TOOL_NOT_FOUND: 422,
      TEMPLATE_VARIABLE_MISSING: 422,
      INTERNAL_ERROR: 500,
      MODEL_API_KEY_MISSING: 503,
      AGENT_INVALID: 503,
      SCHEDULER_UNAVAILABLE: 503,
    };
    for (const [code, status] of Object.entries(expected)) {
      expect([code, ERROR_STATUS[code as keyof typeof ERROR_STATUS]]).toEqual([code, status]);
    }
  });
});
