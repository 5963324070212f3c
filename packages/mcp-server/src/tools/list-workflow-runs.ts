import { z } from 'zod';
import { WORKFLOW_RUN_STATUSES, type Store, type WorkflowRunFilter } from '@junction/store';
import { pageArgs, workflowRefArg } from '../arguments.js';
import { requireWorkflows, workflowNotFound } from '../lookups.js';
import { defineTool } from '../tool-kit.js';
import { workflowRunView } from '../workflow-views.js';

const DEFAULT_LIMIT = 20;

/**
 * The runs a workflow argument names: a row id from list_workflows names that workflow; any
 * other value is the id in the file, in every environment (runs of a workflow whose file is
 * gone keep it). WORKFLOW_NOT_FOUND when it names no workflow and no run.
 */
async function runsOf(
  store: Pick<Store, 'workflows' | 'workflowRuns'>,
  ref: string | number,
): Promise<Pick<WorkflowRunFilter, 'workflowId' | 'workflowKey'>> {
  if (typeof ref === 'number' || /^\d+$/.test(ref)) {
    const row = await store.workflows.get(Number(ref));
    if (row) return { workflowId: row.id };
  }
  const key = String(ref);
  const known = (await store.workflows.list()).some((w) => w.workflowId === key);
  if (!known && (await store.workflowRuns.list({ workflowKey: key, limit: 1 })).length === 0) {
    throw workflowNotFound(ref);
  }
  return { workflowKey: key };
}

export const listWorkflowRunsTool = defineTool({
  name: 'list_workflow_runs',
  title: 'List workflow runs',
  description:
    'Lists workflow runs, newest first, with status, current step, input, output, error and timing. Filter by ' +
    `workflow_id (from list_workflows) and by status (${WORKFLOW_RUN_STATUSES.join(', ')}); page with limit ` +
    "and offset. Use get_workflow_run for one run's steps and approvals.",
  shape: {
    workflow_id: workflowRefArg(
      'workflow_id',
      'Only runs of this workflow: its id in the file (workflow_id from list_workflows) or its id.',
    ).optional(),
    status: z
      .enum(WORKFLOW_RUN_STATUSES, {
        error: `status must be one of ${WORKFLOW_RUN_STATUSES.join(', ')}`,
      })
      .optional()
      .describe('Only runs with this status.'),
    ...pageArgs(DEFAULT_LIMIT),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    requireWorkflows(ctx.deps);
    const { store } = ctx.deps;
    const limit = args.limit ?? DEFAULT_LIMIT;
    const offset = args.offset ?? 0;
    const runs = await store.workflowRuns.list({
      ...(args.workflow_id !== undefined ? await runsOf(store, args.workflow_id) : {}),
      ...(args.status !== undefined ? { status: args.status } : {}),
      limit,
      offset,
    });
    return {
      data: {
        workflow_runs: runs.map((r) => workflowRunView(r, (value) => ctx.redact(value))),
        limit,
        offset,
      },
    };
  },
});
