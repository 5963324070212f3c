// How workflows, their runs, steps and approvals look in the CLI's output and its --json.
import type { Approval, Workflow, WorkflowRun, WorkflowStep } from '@junction/store';

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

export function workflowView(w: Workflow, environment: string | null): Record<string, unknown> {
  const states = Array.isArray(w.definition.states) ? w.definition.states.length : 0;
  return {
    id: w.id,
    workflow_id: w.workflowId,
    name: w.name,
    environment,
    enabled: w.enabled,
    description: typeof w.definition.description === 'string' ? w.definition.description : '',
    version: w.definition.version === undefined ? null : String(w.definition.version),
    states,
    path: w.path,
    updated_at: iso(w.updatedAt),
  };
}

export function workflowRunView(r: WorkflowRun): Record<string, unknown> {
  return {
    id: r.id,
    workflow_id: r.workflowKey,
    workflow_name: r.workflowName,
    status: r.status,
    current_step: r.currentStep,
    source: r.source,
    input: r.input,
    output: r.output,
    error: r.error,
    created_at: iso(r.createdAt),
    started_at: iso(r.startedAt),
    completed_at: iso(r.completedAt),
  };
}

export function stepView(s: WorkflowStep): Record<string, unknown> {
  return {
    id: s.id,
    name: s.stepName,
    path: s.path,
    attempt: s.attempt,
    type: s.type,
    status: s.status,
    run_id: s.runId,
    approval_id: s.approvalId,
    output: s.output,
    error: s.error,
    started_at: iso(s.startedAt),
    completed_at: iso(s.completedAt),
  };
}

export function approvalRow(a: Approval): Record<string, unknown> {
  return {
    approval_id: a.approvalId,
    workflow_run_id: a.workflowRunId,
    step_name: a.stepName,
    status: a.status,
    message: a.message,
    approvers: a.approvers,
    decided_by: a.decidedBy,
    comment: a.comment,
    created_at: iso(a.createdAt),
    expires_at: iso(a.expiresAt),
  };
}

/** One line for a step attempt as it begins or ends. */
export function stepLine(s: WorkflowStep): string {
  const attempt = s.attempt > 1 ? ` (attempt ${s.attempt})` : '';
  const detail =
    s.error !== null
      ? `  — ${s.error.slice(0, 200)}`
      : s.runId !== null
        ? `  run ${s.runId}`
        : s.approvalId !== null
          ? `  approval ${s.approvalId}`
          : '';
  return `  step ${s.stepName}${attempt}  ${s.type}  ${s.status}${detail}`;
}

/** A JSON value as one short line. */
export function brief(value: unknown, max = 120): string {
  const text =
    value === null || value === undefined
      ? '-'
      : typeof value === 'string'
        ? value
        : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
