// GET /api/v1/workflow-approvals, GET /api/v1/workflow-approvals/:approval_id,
// POST /api/v1/workflow-approvals/:approval_id/approve and …/reject.
import { hasControlCharacter } from '@junction/config-templates';
import { requireApproval } from '@junction/workflows';
import type { Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import { defineRoute } from '../define-route.js';
import {
  APPROVAL_LIST_PARAMS,
  NO_PARAMS,
  parsePathKey,
  parseQuery,
  pathKeySchema,
} from '../query-params.js';
import { validBody } from '../request-body.js';
import { badParams, notJson, tooLarge } from '../responses.js';
import { workflowsOf, type RouteContext } from '../route-context.js';
import type { PathParam, ResponseSpec } from '../route-spec.js';
import type { ApprovalAnswerBody, ApprovalListBody } from '../workflow-schemas.js';
import { approvalBody } from '../views.js';

/** Longest approval comment or rejection reason. */
const MAX_COMMENT_LENGTH = 4000;

const comment = (field: string): z.ZodString =>
  z.string({ error: `${field} must be a string` }).max(MAX_COMMENT_LENGTH, {
    error: `${field} must be at most ${MAX_COMMENT_LENGTH} characters`,
  });

const approver = z
  .string({ error: 'approver must be a string: who decides, e.g. "alice"' })
  .max(200, { error: 'approver must be at most 200 characters' })
  .refine((text) => text.trim().length > 0, { error: 'approver must not be empty' })
  .refine((text) => !hasControlCharacter(text), {
    error: 'approver must not contain control characters',
  })
  .describe("Who decides; must be one of the approval's approvers when it lists any");

/** The body of `POST /api/v1/workflow-approvals/{approval_id}/approve` (it may be left out). */
export const approveRequestSchema = z
  .strictObject({
    comment: comment('comment').optional().describe('Why it is approved'),
    approver: approver.optional(),
  })
  .describe('An approval decision');

/** The body of `POST /api/v1/workflow-approvals/{approval_id}/reject` (it may be left out). */
export const rejectRequestSchema = z
  .strictObject({
    reason: comment('reason').optional().describe('Why it is rejected'),
    approver: approver.optional(),
  })
  .describe('A rejection');

const approvalParam: PathParam = {
  name: 'approval_id',
  description: 'The approval id (e.g. appr-12-review)',
  schema: pathKeySchema,
};

const approvalNotFound: ResponseSpec = {
  description: 'APPROVAL_NOT_FOUND: no approval has this id',
  body: 'Error',
};

/** The answers of a decision on an approval; `field` is its text field (comment or reason). */
const decisionRefusals = (field: string): Record<number, ResponseSpec> => ({
  200: { description: 'The approval as decided; its run is due again', body: 'ApprovalAnswer' },
  400: {
    description: `INVALID_JSON: the body is not JSON; INVALID_BODY: ${field} or approver is not a string, too long, or a field is unknown (details.field names it); INVALID_PARAMETER: approval_id is malformed`,
    body: 'Error',
  },
  403: {
    description:
      'APPROVER_NOT_ALLOWED: the approval lists approvers and approver is none of them (details.approvers)',
    body: 'Error',
  },
  404: approvalNotFound,
  409: {
    description:
      'APPROVAL_DECIDED: it was decided before; details.approval shows the first decision. APPROVAL_WITHDRAWN: its workflow run was cancelled, so it was withdrawn (status cancelled)',
    body: 'Error',
  },
  410: {
    description:
      'APPROVAL_EXPIRED: its time ran out; it is timed_out and its run follows the timeout path',
    body: 'Error',
  },
  413: tooLarge,
  415: notJson,
});

/** GET /api/v1/workflow-approvals: a page of approvals, newest first, with their signed links. */
export const listApprovalsRoute = defineRoute({
  operationId: 'listApprovals',
  method: 'get',
  path: '/api/v1/workflow-approvals',
  summary: 'List approvals',
  description:
    'Human approvals of workflow runs, newest first, each with its signed view/approve/reject links on the webhook port.',
  tag: 'approvals',
  auth: true,
  needs: 'workflows',
  query: APPROVAL_LIST_PARAMS,
  pathParams: [],
  responses: {
    200: { description: 'A page of approvals', body: 'ApprovalList' },
    400: badParams('an unknown, repeated or malformed query parameter'),
  },
  handle(ctx) {
    const { store } = ctx.deps;
    const workflows = workflowsOf(ctx);
    return async (req: Request, res: Response): Promise<void> => {
      const q = parseQuery(req.query as Record<string, unknown>, APPROVAL_LIST_PARAMS);
      // One more than the page tells whether a next page exists (the store counts none).
      const approvals = await store.approvals.list({
        ...(q.status !== undefined ? { status: q.status } : {}),
        ...(q.workflow_run_id !== undefined ? { workflowRunId: q.workflow_run_id } : {}),
        limit: q.limit + 1,
        offset: q.offset,
      });
      const body: ApprovalListBody = {
        approvals: await Promise.all(
          approvals.slice(0, q.limit).map((approval) => approvalBody(approval, workflows)),
        ),
        limit: q.limit,
        offset: q.offset,
        has_more: approvals.length > q.limit,
      };
      res.json(body);
    };
  },
});

/** GET /api/v1/workflow-approvals/:approval_id. */
export const getApprovalRoute = defineRoute({
  operationId: 'getApproval',
  method: 'get',
  path: '/api/v1/workflow-approvals/:approval_id',
  summary: 'Get an approval',
  description: 'One approval with its signed links.',
  tag: 'approvals',
  auth: true,
  needs: 'workflows',
  query: NO_PARAMS,
  pathParams: [approvalParam],
  responses: {
    200: { description: 'The approval', body: 'ApprovalAnswer' },
    400: badParams('approval_id is malformed, or a query parameter was given'),
    404: approvalNotFound,
  },
  handle(ctx) {
    const { store } = ctx.deps;
    const workflows = workflowsOf(ctx);
    return async (req: Request, res: Response): Promise<void> => {
      const approvalId = parsePathKey(req.params.approval_id, 'approval_id');
      parseQuery(req.query as Record<string, unknown>, NO_PARAMS);
      const approval = await requireApproval(store, approvalId);
      const body: ApprovalAnswerBody = { approval: await approvalBody(approval, workflows) };
      res.json(body);
    };
  },
});

/** The approver and comment of a decision body (a rejection's `reason` is its comment). */
function decisionOf(
  decision: 'approved' | 'rejected',
  body: unknown,
): { comment?: string | undefined; approver?: string | undefined } {
  if (decision === 'approved') {
    return validBody(body, approveRequestSchema, '{"comment": "…", "approver": "alice"}');
  }
  const { reason, approver } = validBody(
    body,
    rejectRequestSchema,
    '{"reason": "…", "approver": "alice"}',
  );
  return { comment: reason, approver };
}

/**
 * POST …/approve and …/reject: the decision through the workflow door, the one way every
 * surface decides (once; by a listed approver; before it expires), audited with source `rest`.
 */
function decideApproval(ctx: RouteContext, decision: 'approved' | 'rejected'): RequestHandler {
  const workflows = workflowsOf(ctx);
  return async (req: Request, res: Response): Promise<void> => {
    const approvalId = parsePathKey(req.params.approval_id, 'approval_id');
    parseQuery(req.query as Record<string, unknown>, NO_PARAMS);
    const { comment, approver } = decisionOf(decision, req.body ?? {});
    const decided = await workflows.decide(approvalId, {
      decision,
      source: 'rest',
      ...(approver !== undefined ? { approver } : {}),
      ...(comment !== undefined ? { comment } : {}),
    });
    ctx.deps.logger.info('approval decided', {
      approval_id: decided.approvalId,
      workflow_run_id: decided.workflowRunId,
      status: decided.status,
      source: 'rest',
    });
    const answer: ApprovalAnswerBody = { approval: await approvalBody(decided, workflows) };
    res.json(answer);
  };
}

/** POST /api/v1/workflow-approvals/:approval_id/approve. */
export const approveApprovalRoute = defineRoute({
  operationId: 'approveApproval',
  method: 'post',
  path: '/api/v1/workflow-approvals/:approval_id/approve',
  summary: 'Approve',
  description:
    'Approves a pending approval, once, and makes its run due (audited with source rest). The body may be left out.',
  tag: 'approvals',
  auth: true,
  needs: 'workflows',
  query: NO_PARAMS,
  pathParams: [approvalParam],
  body: { schema: approveRequestSchema, optional: true },
  responses: decisionRefusals('comment'),
  handle: (ctx) => decideApproval(ctx, 'approved'),
});

/** POST /api/v1/workflow-approvals/:approval_id/reject. */
export const rejectApprovalRoute = defineRoute({
  operationId: 'rejectApproval',
  method: 'post',
  path: '/api/v1/workflow-approvals/:approval_id/reject',
  summary: 'Reject',
  description:
    'Rejects a pending approval, once, and makes its run due (audited with source rest); reason is kept as its comment. The body may be left out.',
  tag: 'approvals',
  auth: true,
  needs: 'workflows',
  query: NO_PARAMS,
  pathParams: [approvalParam],
  body: { schema: rejectRequestSchema, optional: true },
  responses: decisionRefusals('reason'),
  handle: (ctx) => decideApproval(ctx, 'rejected'),
});

/** The approval routes, in the order they are mounted and documented. */
export const APPROVAL_ROUTES = [
  listApprovalsRoute,
  getApprovalRoute,
  approveApprovalRoute,
  rejectApprovalRoute,
] as const;
