import { z } from 'zod';
import { runRequestFields } from '@junction/agent-core/runs';
import type { Approval, WorkflowRun } from '@junction/store';
import { WORKFLOW_RUN_ENDED } from '@junction/store';
import { isWorkflowError, type WorkflowDoor } from '@junction/workflows';
import { idArg, workflowInputArg, workflowRefArg } from '../arguments.js';
import {
  requireEnvironment,
  requireWorkflows,
  workflowByRowId,
  workflowNotFound,
} from '../lookups.js';
import { defineTool, type ToolContext } from '../tool-kit.js';
import { workflowRunView } from '../workflow-views.js';
import { workflowRunDetail } from './get-workflow-run.js';

/** Starts the run; WORKFLOW_NOT_FOUND worded for MCP (which tool lists valid ids). */
async function start(
  door: WorkflowDoor,
  request: Parameters<WorkflowDoor['start']>[0],
): Promise<{ run: WorkflowRun; replayed: boolean }> {
  try {
    return await door.start(request);
  } catch (err) {
    if (isWorkflowError(err, 'WORKFLOW_NOT_FOUND'))
      throw workflowNotFound(request.workflow_id, request.environment_id, err);
    throw err;
  }
}

/** Follows the run, telling a client that asked for progress of each step as it begins and ends. */
function follow(door: WorkflowDoor, run: WorkflowRun, ctx: ToolContext): Promise<WorkflowRun> {
  let events = 0;
  return door.follow(run.id, {
    timeoutMs: ctx.deps.workflowWaitMs,
    signal: ctx.signal,
    onStep: (step) => {
      events += 1;
      void ctx.progress(events, `workflow run ${run.id}: step ${step.stepName} ${step.status}`);
    },
  });
}

/**
 * What the caller can do next, given where the run is after the wait of `waitMs` (the wait the
 * server gives, not the time measured: a slow machine must not change the answer).
 */
function afterWait(run: WorkflowRun, approvals: readonly Approval[], waitMs: number): string {
  const what = `Workflow run ${run.id} of ${JSON.stringify(run.workflowKey)}`;
  if (run.status === 'completed') return `${what} completed.`;
  if (WORKFLOW_RUN_ENDED.includes(run.status))
    return `${what} ended ${run.status}: ${run.error ?? 'no error recorded'}.`;
  const pending = approvals.filter((a) => a.status === 'pending');
  if (run.status === 'waiting_approval' && pending.length > 0) {
    const ids = pending.map((a) => `${JSON.stringify(a.approvalId)} (step ${a.stepName})`);
    return (
      `${what} waits for approval ${ids.join(', ')}. Decide with approve_workflow_step or ` +
      'reject_workflow_step, or send an approver its approve_url and reject_url.'
    );
  }
  return `${what} is still ${run.status} after waiting ${Math.round(waitMs / 1000)} s; it keeps going. Call get_workflow_run with workflow_run_id "${run.id}" to follow it.`;
}

export const startWorkflowRunTool = defineTool({
  name: 'start_workflow_run',
  title: 'Start a workflow run',
  description:
    'Starts a run of a workflow (workflow_id from list_workflows) with an input object, checked against the ' +
    "workflow's input_schema. By default it answers at once with the workflow_run_id: follow the run with " +
    'get_workflow_run. With wait=true it follows the run for up to 55 seconds and answers its steps and state; ' +
    'when the run waits for a person, the answer names the approval to decide with approve_workflow_step or ' +
    'reject_workflow_step, with links to send to an approver. A second start with the same idempotency_key ' +
    'answers the first run instead of starting another.',
  shape: {
    workflow_id: workflowRefArg(
      'workflow_id',
      'The workflow: its id in the file (workflow_id from list_workflows, such as "incident-triage") or its id.',
    ),
    input: workflowInputArg
      .optional()
      .describe('The run input, a JSON object matching the workflow input_schema. Default {}.'),
    environment_id: idArg(
      'environment_id',
      'Environment of the workflow, when several environments have a workflow with that id.',
    ).optional(),
    idempotency_key: runRequestFields.idempotency_key
      .optional()
      .describe(
        'A key of yours (a UUID works well); a second start with it answers the first run.',
      ),
    wait: z
      .boolean({ error: 'wait must be true or false' })
      .optional()
      .describe(
        'true: follow the run for up to 55 seconds and answer its state, steps and approvals. Default false.',
      ),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
  async run(args, ctx) {
    const door = requireWorkflows(ctx.deps);
    const { store } = ctx.deps;
    const environmentId = args.environment_id;
    if (environmentId !== undefined) {
      await requireEnvironment(store, environmentId);
      await workflowByRowId(store, args.workflow_id, environmentId);
    }
    const { run, replayed } = await start(door, {
      workflow_id: args.workflow_id,
      ...(environmentId !== undefined ? { environment_id: environmentId } : {}),
      ...(args.input !== undefined ? { input: args.input } : {}),
      ...(args.idempotency_key !== undefined ? { idempotency_key: args.idempotency_key } : {}),
      source: 'mcp',
    });
    const redact = (value: unknown): unknown => ctx.redact(value);
    const followHint = `Call get_workflow_run with workflow_run_id "${run.id}" to follow it.`;
    if (args.wait !== true) {
      return {
        data: {
          ...workflowRunView(run, redact),
          replayed,
          message: replayed
            ? `This idempotency_key started workflow run ${run.id} before; no new run was started. ${followHint}`
            : `Workflow run ${run.id} of ${JSON.stringify(run.workflowKey)} was started. ${followHint}`,
        },
      };
    }
    let inspected: Awaited<ReturnType<WorkflowDoor['inspect']>>;
    try {
      await follow(door, run, ctx);
      inspected = await door.inspect(run.id);
    } catch (err) {
      // The run was started and goes on: never invite a retry that would start another.
      ctx.logger.warn('start_workflow_run could not follow its run', {
        workflow_run_id: run.id,
        error: ctx.redactText(err instanceof Error ? err.message : String(err)),
      });
      return {
        data: {
          ...workflowRunView(run, redact),
          replayed,
          message: `Workflow run ${run.id} was started, but following it failed. It keeps going: ${followHint}`,
        },
      };
    }
    return {
      data: {
        ...(await workflowRunDetail(door, inspected, redact)),
        replayed,
        message: afterWait(inspected.run, inspected.approvals, ctx.deps.workflowWaitMs),
      },
    };
  },
});
