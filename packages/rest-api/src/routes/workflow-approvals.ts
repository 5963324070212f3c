// GET /api/v1/workflow-approvals, GET /api/v1/workflow-approvals/:approval_id,
// POST /api/v1/workflow-approvals/:approval_id/approve and …/reject.
import { requireApproval } from '@junction/workflows';
import type { Request, RequestHandler, Response } from 'express';
import { APPROVAL_LIST_PARAMS, NO_PARAMS, parsePathKey, parseQuery } from '../query-params.js';
import { validBody } from '../request-body.js';
import { workflowsOf, type RouteContext } from '../route-context.js';
import {
  approveRequestSchema,
  rejectRequestSchema,
  type ApprovalAnswerBody,
  type ApprovalListBody,
} from '../schemas.js';
import { approvalBody } from '../views.js';

/** GET /api/v1/workflow-approvals: a page of approvals, newest first, with their signed links. */
export function listApprovals(ctx: RouteContext): RequestHandler {
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
}

/** GET /api/v1/workflow-approvals/:approval_id. */
export function getApproval(ctx: RouteContext): RequestHandler {
  const { store } = ctx.deps;
  const workflows = workflowsOf(ctx);
  return async (req: Request, res: Response): Promise<void> => {
    const approvalId = parsePathKey(req.params.approval_id, 'approval_id');
    parseQuery(req.query as Record<string, unknown>, NO_PARAMS);
    const approval = await requireApproval(store, approvalId);
    const body: ApprovalAnswerBody = { approval: await approvalBody(approval, workflows) };
    res.json(body);
  };
}

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
export function decideApproval(
  ctx: RouteContext,
  decision: 'approved' | 'rejected',
): RequestHandler {
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
