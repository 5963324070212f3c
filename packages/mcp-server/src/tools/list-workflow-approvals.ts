import { z } from 'zod';
import { APPROVAL_STATUSES } from '@junction/store';
import { idArg, pageArgs } from '../arguments.js';
import { requireWorkflowRun, requireWorkflows } from '../lookups.js';
import { defineTool } from '../tool-kit.js';
import { approvalWithLinks } from '../workflow-views.js';

const DEFAULT_LIMIT = 50;

export const listWorkflowApprovalsTool = defineTool({
  name: 'list_workflow_approvals',
  title: 'List workflow approvals',
  description:
    'Lists the approvals workflow steps ask people for, newest first: approval_id, workflow run, step, message, ' +
    'approvers, status, expiry, and the view, approve and reject links to send to an approver. Give ' +
    'status=pending for the ones waiting for a decision (decide them with approve_workflow_step or ' +
    'reject_workflow_step); filter by workflow_run_id; page with limit and offset.',
  shape: {
    status: z
      .enum(APPROVAL_STATUSES, { error: `status must be one of ${APPROVAL_STATUSES.join(', ')}` })
      .optional()
      .describe('Only approvals with this status. Default: all.'),
    workflow_run_id: idArg(
      'workflow_run_id',
      'Only approvals of this workflow run (id from list_workflow_runs).',
    ).optional(),
    ...pageArgs(DEFAULT_LIMIT),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const door = requireWorkflows(ctx.deps);
    const { store } = ctx.deps;
    if (args.workflow_run_id !== undefined) await requireWorkflowRun(store, args.workflow_run_id);
    const limit = args.limit ?? DEFAULT_LIMIT;
    const offset = args.offset ?? 0;
    const approvals = await store.approvals.list({
      ...(args.status !== undefined ? { status: args.status } : {}),
      ...(args.workflow_run_id !== undefined ? { workflowRunId: args.workflow_run_id } : {}),
      limit,
      offset,
    });
    return {
      data: {
        approvals: await Promise.all(approvals.map((a) => approvalWithLinks(door, a))),
        limit,
        offset,
      },
    };
  },
});
