import type { Approval, WorkflowRun, WorkflowStep } from '@junction/store';
import type { WorkflowDoor } from '@junction/workflows';
import { idArg } from '../arguments.js';
import { requireWorkflowRun, requireWorkflows } from '../lookups.js';
import { defineTool } from '../tool-kit.js';
import { approvalWithLinks, workflowRunView, workflowStepView } from '../workflow-views.js';

/** Step attempts shown with a run; a longer run says how many there are in step_count. */
const MAX_STEPS = 1000;

/** One workflow run (as the door's inspect gives it) with its steps and approvals with links. */
export async function workflowRunDetail(
  door: WorkflowDoor,
  inspected: { run: WorkflowRun; steps: WorkflowStep[]; approvals: Approval[] },
  redact: (value: unknown) => unknown,
): Promise<Record<string, unknown>> {
  const { run, steps, approvals } = inspected;
  return {
    ...workflowRunView(run, redact),
    step_count: steps.length,
    steps: steps.slice(0, MAX_STEPS).map((s) => workflowStepView(s, redact)),
    approvals: await Promise.all(approvals.map((a) => approvalWithLinks(door, a))),
  };
}

export const getWorkflowRunTool = defineTool({
  name: 'get_workflow_run',
  title: 'Show a workflow run',
  description:
    'Shows one workflow run: status, current step, input, output or error, timing, each step attempt in the ' +
    'order it began (an agent step names its run_id, for inspect_run), and its approvals with their status and ' +
    'the view, approve and reject links. Call it again to follow a run that has not ended.',
  shape: {
    workflow_run_id: idArg(
      'workflow_run_id',
      'Id of the workflow run, a string of digits from start_workflow_run or list_workflow_runs.',
    ),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const door = requireWorkflows(ctx.deps);
    await requireWorkflowRun(ctx.deps.store, args.workflow_run_id);
    const inspected = await door.inspect(args.workflow_run_id);
    return { data: await workflowRunDetail(door, inspected, (value) => ctx.redact(value)) };
  },
});
