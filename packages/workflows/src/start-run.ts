// The one door for workflow runs, whoever starts them (CLI, REST, MCP, the scheduler): find
// the workflow, check the input against its inputSchema, and write the run with the definition
// it will follow; a worker takes it from there.
import { Ajv, type ValidateFunction } from 'ajv';
import type { Store, Workflow, WorkflowRun } from '@junction/store';
import { workflowOf } from './definition.js';
import { WorkflowError } from './errors.js';

export interface StartWorkflowDeps {
  store: Store;
  /** Told that a run is due, so an idle worker takes it at once. */
  due?: () => void;
  now?: () => Date;
}

export interface StartWorkflowRequest {
  /** The workflow's id in its file (or its row id). */
  workflow_id: string | number;
  environment?: string;
  environment_id?: number;
  input?: unknown;
  /** Who starts it: cli, api, mcp, cron_scheduler, … */
  source: string;
  /** A second start with the same key (and source) answers the first run. */
  idempotency_key?: string;
}

const ajv = new Ajv({ allErrors: false, strict: false });
const validators = new Map<string, ValidateFunction>();

function validatorOf(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = validators.get(key);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    if (validators.size > 500) validators.clear();
    validators.set(key, validate);
  }
  return validate;
}

/** Finds the workflow: in the environment named, else in `default`, else the one that has it. */
export async function findWorkflow(
  store: Store,
  request: Pick<StartWorkflowRequest, 'workflow_id' | 'environment' | 'environment_id'>,
): Promise<Workflow> {
  const { workflow_id: id } = request;
  if (typeof id === 'number' || /^\d+$/.test(String(id))) {
    const row = await store.workflows.get(Number(id));
    if (row) return row;
  }
  const key = String(id);
  let environmentId = request.environment_id;
  if (environmentId === undefined && request.environment !== undefined) {
    const env = await store.environments.getByName(request.environment);
    if (!env) {
      throw new WorkflowError(
        'WORKFLOW_NOT_FOUND',
        `No environment is named "${request.environment}"; list them with \`junction env list\`.`,
        { environment: request.environment },
      );
    }
    environmentId = env.id;
  }
  const candidates = (await store.workflows.list()).filter(
    (w) =>
      w.workflowId === key && (environmentId === undefined || w.environmentId === environmentId),
  );
  if (candidates.length === 1) return candidates[0] as Workflow;
  if (candidates.length > 1) {
    const preferred = await store.environments.getByName('default');
    const inDefault = candidates.find((w) => w.environmentId === preferred?.id);
    if (inDefault) return inDefault;
    throw new WorkflowError(
      'WORKFLOW_AMBIGUOUS',
      `Workflow "${key}" exists in several environments; name one (environment).`,
      { workflow_id: key },
    );
  }
  throw new WorkflowError(
    'WORKFLOW_NOT_FOUND',
    `No workflow "${key}"${request.environment ? ` in environment "${request.environment}"` : ''}; list them with \`junction workflow list\` (sync the environment after adding a file).`,
    { workflow_id: key },
  );
}

/** Checks `input` against the workflow's inputSchema; WORKFLOW_INPUT_INVALID naming the field. */
export function checkInput(schema: Record<string, unknown> | undefined, input: unknown): void {
  if (schema === undefined) return;
  const validate = validatorOf(schema);
  if (validate(input ?? {})) return;
  const first = validate.errors?.[0];
  const missing =
    first?.keyword === 'required'
      ? (first.params as { missingProperty?: string }).missingProperty
      : undefined;
  const field = missing ?? (first?.instancePath.replace(/^\//, '').replace(/\//g, '.') || 'input');
  const message = missing !== undefined ? 'is required' : (first?.message ?? 'is not valid');
  throw new WorkflowError(
    'WORKFLOW_INPUT_INVALID',
    `The workflow input is not valid: ${field === 'input' ? 'input' : `input.${field}`} ${message} (see the workflow's inputSchema).`,
    { field, reason: message },
  );
}

/** Starts a run of a workflow; see the file comment. */
export async function startWorkflowRun(
  deps: StartWorkflowDeps,
  request: StartWorkflowRequest,
): Promise<{ run: WorkflowRun; replayed: boolean }> {
  const { store } = deps;
  const workflow = await findWorkflow(store, request);
  if (!workflow.enabled) {
    throw new WorkflowError(
      'WORKFLOW_DISABLED',
      `Workflow "${workflow.workflowId}" is disabled (its file is gone or failed to sync); fix the file and sync again.`,
      { workflow_id: workflow.workflowId },
    );
  }
  const model = workflowOf(
    workflow.definition,
    workflow.path ?? workflow.workflowId,
    workflow.workflowId,
  );
  const input = request.input ?? {};
  checkInput(model.inputSchema, input);
  const now = deps.now?.() ?? new Date();
  const key =
    request.idempotency_key === undefined ? null : `${request.source}:${request.idempotency_key}`;
  if (key !== null) {
    const first = await store.workflowRuns.findByIdempotencyKey(key);
    if (first) return { run: first, replayed: true };
  }
  const run = await store.workflowRuns.create({
    workflowId: workflow.id,
    workflowKey: workflow.workflowId,
    workflowName: workflow.name,
    environmentId: workflow.environmentId,
    definition: workflow.definition,
    source: request.source,
    input,
    ...(model.timeoutMs !== undefined
      ? { timeoutAt: new Date(now.getTime() + model.timeoutMs) }
      : {}),
    idempotencyKey: key,
  });
  deps.due?.();
  return { run, replayed: false };
}
