// Workflows, their runs and step attempts as the REST API and the CLI show them: snake_case
// keys, ISO dates. `redact` removes secrets from inputs and outputs, `clean` from error text
// (identity when a surface shows its own process's data, as the CLI does).
import type { Workflow, WorkflowRun, WorkflowStep } from '@junction/store';

export interface ViewOptions {
  redact?: (value: unknown) => unknown;
  clean?: (text: string) => string;
}

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());
const same = <T>(value: T): T => value;

/** A workflow; `environment` is its environment's name. */
export function workflowView(workflow: Workflow, environment: string | null) {
  const { definition } = workflow;
  return {
    id: workflow.id,
    workflow_id: workflow.workflowId,
    name: workflow.name,
    environment,
    enabled: workflow.enabled,
    description: typeof definition.description === 'string' ? definition.description : '',
    version:
      definition.version === undefined || definition.version === null
        ? null
        : String(definition.version),
    path: workflow.path,
    states: Array.isArray(definition.states) ? definition.states.length : 0,
    created_at: workflow.createdAt.toISOString(),
    updated_at: workflow.updatedAt.toISOString(),
  };
}

/** A workflow run without its steps. */
export function workflowRunView(run: WorkflowRun, options: ViewOptions = {}) {
  const redact = options.redact ?? same;
  const clean = options.clean ?? same;
  return {
    id: run.id,
    workflow_id: run.workflowKey,
    workflow_name: run.workflowName,
    status: run.status,
    input: redact(run.input ?? null),
    output: redact(run.output ?? null),
    error: run.error === null ? null : clean(run.error),
    current_step: run.currentStep,
    source: run.source,
    created_at: run.createdAt.toISOString(),
    started_at: iso(run.startedAt),
    completed_at: iso(run.completedAt),
  };
}

/** One attempt of a step: `run_id` is the agent run an agent step started. */
export function workflowStepView(step: WorkflowStep, options: ViewOptions = {}) {
  const redact = options.redact ?? same;
  const clean = options.clean ?? same;
  return {
    id: step.id,
    name: step.stepName,
    path: step.path,
    attempt: step.attempt,
    type: step.type,
    status: step.status,
    output: redact(step.output ?? null),
    error: step.error === null ? null : clean(step.error),
    run_id: step.runId,
    approval_id: step.approvalId,
    started_at: iso(step.startedAt),
    completed_at: iso(step.completedAt),
  };
}
