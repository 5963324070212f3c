// Store rows shaped as the REST API answers them: snake_case keys, ISO dates, ids as numbers.
// Each function's return type is inferred from the zod schema the OpenAPI document publishes.
import { agentView } from '@junction/agent-core/agents';
import { isoOrNull as iso, runView, type Pricing } from '@junction/agent-core/runs';
import type {
  Agent,
  Approval,
  EnvironmentSummary,
  Run,
  RunEvent,
  Store,
  Workflow,
  WorkflowRun,
  WorkflowStep,
} from '@junction/store';
import {
  approvalView,
  workflowRunView,
  workflowStepView,
  workflowView,
  type WorkflowDoor,
} from '@junction/workflows';
import type { AgentBody, EnvironmentBody, RunBody, RunEventBody } from './schemas.js';
import type {
  ApprovalBody,
  WorkflowBody,
  WorkflowRunBody,
  WorkflowStepBody,
} from './workflow-schemas.js';

/** An agent as every surface shows it (agent-core's agentView, checked against the schema). */
export async function agentBody(
  store: Pick<Store, 'environments' | 'tools' | 'agents' | 'schedules'>,
  agent: Agent,
): Promise<AgentBody> {
  return agentView(store, agent);
}

/** A run, with the same fields as `junction runs list --json` (agent-core's runView), priced by `pricing`. */
export function runBody(run: Run, pricing: Pricing): RunBody {
  return runView(run, pricing);
}

/** One run event; `redact` removes secret-looking keys from the payload. */
export function runEventBody(event: RunEvent, redact: (value: unknown) => unknown): RunEventBody {
  return {
    seq: event.seq,
    type: event.type,
    duration_ms: event.durationMs,
    created_at: event.createdAt.toISOString(),
    payload: redact(event.payload ?? null),
  };
}

/** An environment with its counts, as `junction env list --json` shows them. */
export function environmentBody(env: EnvironmentSummary): EnvironmentBody {
  return {
    id: env.id,
    name: env.name,
    agents: env.agents,
    mcp_configs: env.mcpConfigs,
    mcp_servers: env.servers,
    tools: env.tools,
    last_synced_at: iso(env.lastSyncedAt),
  };
}

/** A workflow (the workflows package's view, checked against the schema). */
export function workflowBody(workflow: Workflow, environment: string | null): WorkflowBody {
  return workflowView(workflow, environment);
}

/** A workflow run; `redact` and `clean` remove secrets from its input, output and error. */
export function workflowRunBody(
  run: WorkflowRun,
  redact: (value: unknown) => unknown,
  clean: (text: string) => string,
): WorkflowRunBody {
  return workflowRunView(run, { redact, clean });
}

/** One step attempt of a workflow run. */
export function workflowStepBody(
  step: WorkflowStep,
  redact: (value: unknown) => unknown,
  clean: (text: string) => string,
): WorkflowStepBody {
  return workflowStepView(step, { redact, clean });
}

/** An approval as every surface shows it (the workflows package's approvalView) with its signed links. */
export async function approvalBody(
  approval: Approval,
  workflows: Pick<WorkflowDoor, 'links'>,
): Promise<ApprovalBody> {
  const view = approvalView(approval) as Omit<
    ApprovalBody,
    'view_url' | 'approve_url' | 'reject_url'
  >;
  return { ...view, ...(await workflows.links(approval.approvalId)) };
}
