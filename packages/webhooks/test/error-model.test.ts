// The webhook port answers every code by its kind (@junction/errors), as REST does: the codes of
// the run door, the workflows, the store and its own. A store that cannot answer is one 503
// SERVICE_BUSY with Retry-After; a fault of the server a 500 whose message stays in the log.
import { describe, expect, it } from '@jest/globals';
import { AGENT_CORE_ERRORS, AgentCoreError } from '@junction/agent-core';
import { STORE_ERRORS, StoreError } from '@junction/store';
import { WORKFLOW_ERRORS, WorkflowError } from '@junction/workflows';
import { WEBHOOK_ERRORS, WebhookError } from '../src/errors.js';
import { HTTP_STATUS_BY_CODE, toHttpFailure } from '../src/http-errors.js';

const raised: Array<[string, Error & { kind: string }]> = [
  ...Object.keys(AGENT_CORE_ERRORS).map((c) => [c, new AgentCoreError(c as never, 'm')]),
  ...Object.keys(STORE_ERRORS).map((c) => [c, new StoreError(c as never, 'm')]),
  ...Object.keys(WORKFLOW_ERRORS).map((c) => [c, new WorkflowError(c as never, 'm')]),
  ...Object.keys(WEBHOOK_ERRORS).map((c) => [c, new WebhookError(c as never, 'm')]),
] as Array<[string, Error & { kind: string }]>;

describe('the webhook port answers every error code by its kind', () => {
  it('gives each code its status and keeps its code, and hides faults', () => {
    for (const [code, err] of raised) {
      const { status, body, headers } = toHttpFailure(err);
      if (err instanceof StoreError && err.kind === 'unavailable') {
        expect([code, status, body.error.code, headers]).toEqual([
          code,
          503,
          'SERVICE_BUSY',
          { 'Retry-After': '1' },
        ]);
      } else if (err.kind === 'internal') {
        expect([code, status, body.error.code]).toEqual([code, 500, 'INTERNAL_ERROR']);
      } else {
        expect([code, status, body.error.code]).toEqual([
          code,
          HTTP_STATUS_BY_CODE[code as keyof typeof HTTP_STATUS_BY_CODE],
          code,
        ]);
      }
    }
  });

  it('answers a run that cannot be a run with a 4xx, never a 500', () => {
    for (const code of [
      'AGENT_EXISTS',
      'RUN_ENDED',
      'TOOL_NOT_FOUND',
      'WORKFLOW_DISABLED',
      'INVALID_INPUT',
    ]) {
      const err =
        code === 'INVALID_INPUT'
          ? new StoreError('INVALID_INPUT', 'm')
          : code === 'WORKFLOW_DISABLED'
            ? new WorkflowError('WORKFLOW_DISABLED', 'm')
            : new AgentCoreError(code as never, 'm');
      const { status } = toHttpFailure(err);
      expect([code, status >= 400 && status < 500]).toEqual([code, true]);
    }
    expect(toHttpFailure(new WebhookError('BEARER_TOKEN_REQUIRED', 'm')).headers).toEqual({
      'WWW-Authenticate': 'Bearer realm="junction-webhook"',
    });
  });
});
