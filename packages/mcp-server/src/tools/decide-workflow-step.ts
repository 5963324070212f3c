// approve_workflow_step and reject_workflow_step: one decision on a pending approval, through
// the workflow door (which checks approvers and expiry, decides once, and wakes the run).
import { z } from 'zod';
import { approvalView, decisionOutcome } from '@junction/workflows';
import { refArg } from '../arguments.js';
import { requireApproval, requireWorkflows } from '../lookups.js';
import { defineTool, type ToolAnswer, type ToolContext } from '../tool-kit.js';

/** Longest comment or reason kept with a decision. */
const MAX_COMMENT_LENGTH = 4000;

function commentArg(field: string, description: string): z.ZodOptional<z.ZodString> {
  return z
    .string({ error: `${field} must be a string` })
    .max(MAX_COMMENT_LENGTH, { error: `${field} must be at most ${MAX_COMMENT_LENGTH} characters` })
    .optional()
    .describe(description);
}

const approvalIdArg = refArg(
  'approval_id',
  'an approval id such as "appr-12-review" (see list_workflow_approvals)',
  'Id of the approval, such as "appr-12-review", from list_workflow_approvals or get_workflow_run.',
);

const approverArg = refArg(
  'approver',
  'a name such as "alice"',
  'Who decides. Required when the approval lists approvers: one of them (any case).',
).optional();

const WHEN_LISTED =
  'An approval is decided once: one already decided, timed out or withdrawn (its run was cancelled) is refused. When the approval lists ' +
  'approvers, say which one you are (approver).';

/** Decides through the door; `note` is the comment of an approval or the reason of a rejection. */
async function decide(
  ctx: ToolContext,
  decision: 'approved' | 'rejected',
  args: { approval_id: string; note: string | undefined; approver: string | undefined },
): Promise<ToolAnswer> {
  const door = requireWorkflows(ctx.deps);
  await requireApproval(ctx.deps.store, args.approval_id);
  const decided = await door.decide(args.approval_id, {
    decision,
    ...(args.approver !== undefined ? { approver: args.approver } : {}),
    ...(args.note !== undefined ? { comment: args.note } : {}),
    source: 'mcp',
  });
  const run = decided.workflowRunId;
  const next = decisionOutcome(decided, await door.get(run).catch(() => undefined));
  return {
    data: {
      approval: approvalView(decided),
      message: `Approval ${JSON.stringify(decided.approvalId)} (step ${decided.stepName}) was ${decision}. ${next} Call get_workflow_run with workflow_run_id "${run}" to follow it.`,
    },
  };
}

const annotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};

export const approveWorkflowStepTool = defineTool({
  name: 'approve_workflow_step',
  title: 'Approve a workflow step',
  description:
    'Approves a pending approval of a workflow step (approval_id from list_workflow_approvals or ' +
    `get_workflow_run): its workflow run goes on past the step. ${WHEN_LISTED}`,
  shape: {
    approval_id: approvalIdArg,
    comment: commentArg('comment', 'Why it is approved; kept with the decision.'),
    approver: approverArg,
  },
  annotations,
  run: (args, ctx) =>
    decide(ctx, 'approved', {
      approval_id: args.approval_id,
      note: args.comment,
      approver: args.approver,
    }),
});

export const rejectWorkflowStepTool = defineTool({
  name: 'reject_workflow_step',
  title: 'Reject a workflow step',
  description:
    'Rejects a pending approval of a workflow step (approval_id from list_workflow_approvals or ' +
    "get_workflow_run): its workflow run takes the step's onRejected path, or fails when it has none. " +
    `Give the reason. ${WHEN_LISTED}`,
  shape: {
    approval_id: approvalIdArg,
    reason: commentArg('reason', 'Why it is rejected; kept with the decision.'),
    approver: approverArg,
  },
  annotations,
  run: (args, ctx) =>
    decide(ctx, 'rejected', {
      approval_id: args.approval_id,
      note: args.reason,
      approver: args.approver,
    }),
});
