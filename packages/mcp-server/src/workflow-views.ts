// Workflows, their runs, steps and approvals as MCP clients see them: snake_case keys, ISO
// dates, ids as numbers (approval ids stay the strings they are). Inputs and outputs pass
// through the caller's redactor, as run variables do in inspect_run.
import type { Approval, Workflow, WorkflowRun, WorkflowStep } from '@junction/store';
import { approvalView, type WorkflowDoor } from '@junction/workflows';
import { iso } from './tool-kit.js';

type Redact = (value: unknown) => unknown;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** One line of list_workflows. */
export function workflowSummary(w: Workflow, environment: string | null): Record<string, unknown> {
  const d = w.definition;
  return {
    id: w.id,
    workflow_id: w.workflowId,
    name: w.name,
    description: typeof d.description === 'string' ? d.description : '',
    version: d.version === undefined || d.version === null ? null : String(d.version),
    environment_id: w.environmentId,
    environment,
    enabled: w.enabled,
    states: Array.isArray(d.states) ? d.states.length : 0,
    input_schema: isObject(d.inputSchema) ? d.inputSchema : null,
    path: w.path,
    updated_at: iso(w.updatedAt),
  };
}

/** A workflow run without its steps (list_workflow_runs, cancel_workflow_run). */
export function workflowRunView(r: WorkflowRun, redact: Redact): Record<string, unknown> {
  return {
    workflow_run_id: r.id,
    workflow_id: r.workflowKey,
    workflow_name: r.workflowName,
    environment_id: r.environmentId,
    status: r.status,
    current_step: r.currentStep,
    source: r.source,
    input: redact(r.input ?? null),
    output: redact(r.output ?? null),
    error: r.error,
    created_at: iso(r.createdAt),
    started_at: iso(r.startedAt),
    completed_at: iso(r.completedAt),
    duration_ms:
      r.startedAt && r.completedAt ? r.completedAt.getTime() - r.startedAt.getTime() : null,
  };
}

/** One attempt of a step: `run_id` is the agent run an agent step started. */
export function workflowStepView(s: WorkflowStep, redact: Redact): Record<string, unknown> {
  return {
    name: s.stepName,
    path: s.path,
    attempt: s.attempt,
    type: s.type,
    status: s.status,
    run_id: s.runId,
    approval_id: s.approvalId,
    output: redact(s.output ?? null),
    error: s.error,
    started_at: iso(s.startedAt),
    completed_at: iso(s.completedAt),
  };
}

/** An approval with its signed view, approve and reject URLs on the webhook port. */
export async function approvalWithLinks(
  door: WorkflowDoor,
  approval: Approval,
): Promise<Record<string, unknown>> {
  return { ...approvalView(approval), ...(await door.links(approval.approvalId)) };
}
