// Finding what an argument names, with refusals that say which list tool gives valid ids.
import type {
  Agent,
  Approval,
  Environment,
  McpConfig,
  Run,
  RunReader,
  Store,
  Workflow,
  WorkflowRun,
} from '@junction/store';
import { AgentCoreError } from '@junction/agent-core';
import { WorkflowError, type WorkflowDoor } from '@junction/workflows';
import type { ResolvedDeps } from './deps.js';
import { McpServerError } from './errors.js';

/** What each id argument names: its error code, its field and the tool that lists valid ids. */
const KINDS = {
  environment: ['ENVIRONMENT_NOT_FOUND', 'environment_id', 'environment', 'list_environments'],
  agent: ['AGENT_NOT_FOUND', 'agent_id', 'agent', 'list_agents'],
  run: ['RUN_NOT_FOUND', 'run_id', 'run', 'list_runs'],
  config: ['CONFIG_NOT_FOUND', 'config_id', 'MCP config', 'list_mcp_configs'],
} as const;

/** `found`, or the NOT_FOUND refusal of `kind` naming the list tool with valid ids. */
function required<T>(found: T | undefined, kind: keyof typeof KINDS, id: number): T {
  if (found !== undefined) return found;
  const [code, field, noun, tool] = KINDS[kind];
  // "valid config ids": the field's name without `_id`.
  const ids = `${field.slice(0, -'_id'.length)} ids`;
  const message = `No ${noun} has id ${id}. Call ${tool} for valid ${ids}.`;
  if (code === 'CONFIG_NOT_FOUND') throw new McpServerError(code, message, { [field]: id });
  throw new AgentCoreError(code, message, { [field]: id });
}

/** The environment with this id, or ENVIRONMENT_NOT_FOUND. */
export async function requireEnvironment(
  store: Pick<Store, 'environments'>,
  id: number,
): Promise<Environment> {
  return required(await store.environments.get(id), 'environment', id);
}

/** The agent with this id, or AGENT_NOT_FOUND. */
export async function requireAgent(store: Pick<Store, 'agents'>, id: number): Promise<Agent> {
  return required(await store.agents.get(id), 'agent', id);
}

/** The run with this id, or RUN_NOT_FOUND. */
export async function requireRun(store: { readonly runs: RunReader }, id: number): Promise<Run> {
  return required(await store.runs.get(id), 'run', id);
}

/** The MCP config with this id, or CONFIG_NOT_FOUND. */
export async function requireConfig(
  store: Pick<Store, 'mcpConfigs'>,
  id: number,
): Promise<McpConfig> {
  return required(await store.mcpConfigs.get(id), 'config', id);
}

/** The workflow door, or WORKFLOWS_UNAVAILABLE when this server was built without one. */
export function requireWorkflows(deps: ResolvedDeps): WorkflowDoor {
  if (deps.workflows) return deps.workflows;
  throw new McpServerError(
    'WORKFLOWS_UNAVAILABLE',
    'Workflows are not available on this Junction MCP server: it was started without the workflow engine. ' +
      'Connect to `junction serve` or `junction stdio`, which run workflows.',
  );
}

/** The workflow run with this id, or WORKFLOW_RUN_NOT_FOUND. */
export async function requireWorkflowRun(
  store: Pick<Store, 'workflowRuns'>,
  id: number,
): Promise<WorkflowRun> {
  const run = await store.workflowRuns.get(id);
  if (run) return run;
  throw new WorkflowError(
    'WORKFLOW_RUN_NOT_FOUND',
    `No workflow run has id ${id}. Call list_workflow_runs for valid workflow run ids.`,
    { workflow_run_id: id },
  );
}

/** The approval with this id, or APPROVAL_NOT_FOUND. */
export async function requireApproval(
  store: Pick<Store, 'approvals'>,
  approvalId: string,
): Promise<Approval> {
  const approval = await store.approvals.get(approvalId);
  if (approval) return approval;
  throw new WorkflowError(
    'APPROVAL_NOT_FOUND',
    `No approval has id ${JSON.stringify(approvalId)}. Call list_workflow_approvals for valid approval ids.`,
    { approval_id: approvalId },
  );
}

/** WORKFLOW_NOT_FOUND for a workflow argument, naming the tool that lists valid ids. */
export function workflowNotFound(
  workflowId: string | number,
  environmentId?: number,
  cause?: unknown,
): WorkflowError {
  const where = environmentId !== undefined ? ` in environment ${environmentId}` : '';
  return new WorkflowError(
    'WORKFLOW_NOT_FOUND',
    `No workflow ${JSON.stringify(String(workflowId))}${where}. Call list_workflows for valid workflow ids (a new workflow file is stored by \`junction sync <environment>\`).`,
    {
      workflow_id: workflowId,
      ...(environmentId !== undefined ? { environment_id: environmentId } : {}),
    },
    cause !== undefined ? { cause } : undefined,
  );
}

/**
 * The workflow a workflow argument names by its row id (a number or a string of digits that is a
 * row id), else undefined (it is the id in a file). A row of another environment than
 * `environmentId` is refused (ARGUMENT_INVALID): a row id names that row whatever the environment.
 */
export async function workflowByRowId(
  store: Pick<Store, 'workflows'>,
  ref: string | number,
  environmentId?: number,
): Promise<Workflow | undefined> {
  if (typeof ref !== 'number' && !/^\d+$/.test(ref)) return undefined;
  const row = await store.workflows.get(Number(ref));
  if (row && environmentId !== undefined && row.environmentId !== environmentId) {
    throw new McpServerError(
      'ARGUMENT_INVALID',
      `workflow_id ${row.id} is the workflow ${JSON.stringify(row.workflowId)} of environment ${row.environmentId}, not of environment_id ${environmentId}. Give its id in the file, or leave out environment_id.`,
      { workflow_id: row.id, environment_id: environmentId },
    );
  }
  return row;
}
