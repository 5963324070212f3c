import { idArg } from '../arguments.js';
import { requireWorkflowRun, requireWorkflows } from '../lookups.js';
import { defineTool } from '../tool-kit.js';
import { workflowRunView } from '../workflow-views.js';

export const cancelWorkflowRunTool = defineTool({
  name: 'cancel_workflow_run',
  title: 'Cancel a workflow run',
  description:
    'Cancels a workflow run that has not ended (pending, running or waiting for approval): it ends cancelled ' +
    'and takes no further step; an agent run its step waits on is cancelled too (as cancel_run does). A run ' +
    'that has ended cannot be cancelled (WORKFLOW_RUN_ENDED).',
  shape: {
    workflow_run_id: idArg(
      'workflow_run_id',
      'Id of the workflow run, a string of digits from start_workflow_run or list_workflow_runs.',
    ),
  },
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: false,
  },
  async run(args, ctx) {
    const door = requireWorkflows(ctx.deps);
    await requireWorkflowRun(ctx.deps.store, args.workflow_run_id);
    const run = await door.cancel(args.workflow_run_id, { source: 'mcp' });
    return {
      summary: `Cancelled workflow run ${run.id} of "${run.workflowKey}".`,
      data: workflowRunView(run, (value) => ctx.redact(value)),
    };
  },
});
