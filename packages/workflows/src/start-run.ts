// The one door for workflow runs, whoever starts them (CLI, REST, MCP, the scheduler): find
// the workflow, check the input against its inputSchema, and write the run with the definition
// it will follow; a worker takes it from there.
import { Ajv, type ValidateFunction } from 'ajv';
import { storedIdempotencyKey } from '@junction/agent-core/runs';
import type { Store, Workflow, WorkflowRun } from '@junction/store';
import { storedWorkflowOf } from './definition.js';
import { WorkflowError } from './errors.js';
import type { WorkflowReservation } from './workflow-workers.js';

export interface StartWorkflowDeps {
  store: Store;
  /** Told that a run is due, so an idle worker takes it at once. */
  due?: () => void;
  /** An idle worker of this process to hand the run to as it is written. */
  reserve?: () => WorkflowReservation | undefined;
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
  if (environmentId !== undefined) {
    const found = await store.workflows.getByWorkflowId(environmentId, key);
    if (found) return found;
  } else {
    // The `default` environment's, else the one environment that has it.
    const inDefault = await store.workflows.getByWorkflowIdIn('default', key);
    if (inDefault) return inDefault;
    const candidates = (await store.workflows.list()).filter((w) => w.workflowId === key);
    if (candidates.length === 1) return candidates[0] as Workflow;
    if (candidates.length > 1) {
      throw new WorkflowError(
        'WORKFLOW_AMBIGUOUS',
        `Workflow "${key}" exists in several environments; name one (environment).`,
        { workflow_id: key },
      );
    }
  }
  throw new WorkflowError(
    'WORKFLOW_NOT_FOUND',
    `No workflow "${key}"${request.environment ? ` in environment "${request.environment}"` : ''}; list them with \`junction workflow list\` (sync the environment after adding a file).`,
    { workflow_id: key },
  );
}

/** Deepest nesting a run's input may have. */
export const MAX_INPUT_DEPTH = 64;

/** How deep `value` nests, counting without recursion; stops counting past `limit`. */
function depthOf(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [at, depth] = stack.pop() as [unknown, number];
    if (at === null || typeof at !== 'object') continue;
    deepest = Math.max(deepest, depth);
    if (deepest > limit) return deepest;
    for (const child of Object.values(at)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * Checks `input`: a JSON object (or nothing), nested at most MAX_INPUT_DEPTH deep, with no key
 * named `__proto__` or `constructor` at its top, and fitting the workflow's inputSchema;
 * WORKFLOW_INPUT_INVALID naming the field otherwise.
 */
export function checkInput(schema: Record<string, unknown> | undefined, input: unknown): void {
  const refuse = (field: string, reason: string): never => {
    throw new WorkflowError(
      'WORKFLOW_INPUT_INVALID',
      `The workflow input is not valid: ${field} ${reason}.`,
      { field, reason },
    );
  };
  if (
    input !== undefined &&
    (input === null || typeof input !== 'object' || Array.isArray(input))
  ) {
    refuse('input', 'must be a JSON object, such as {"ticket": "T-1"}');
  }
  if (depthOf(input, MAX_INPUT_DEPTH) > MAX_INPUT_DEPTH) {
    refuse('input', `is nested more than ${MAX_INPUT_DEPTH} levels deep`);
  }
  for (const key of ['__proto__', 'constructor']) {
    if (input !== undefined && Object.hasOwn(input as object, key))
      refuse(`input.${key}`, 'is a name no input may use; rename it');
  }
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
  const model = storedWorkflowOf(
    workflow.definition,
    workflow.path ?? workflow.workflowId,
    workflow.workflowId,
  );
  const input = request.input ?? {};
  checkInput(model.inputSchema, input);
  const now = deps.now?.() ?? new Date();
  const key =
    request.idempotency_key === undefined
      ? null
      : storedIdempotencyKey(request.source, request.idempotency_key);
  if (key !== null) {
    const first = await store.workflowRuns.findByIdempotencyKey(key);
    if (first) return { run: first, replayed: true };
  }
  const reservation = deps.reserve?.();
  let run: WorkflowRun;
  try {
    run = await store.workflowRuns.create({
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
      ...(reservation ? { claimedBy: reservation.claim } : {}),
    });
  } catch (err) {
    reservation?.release();
    throw err;
  }
  if (reservation && run.workerId === reservation.claim.workerId) reservation.take(run);
  else {
    reservation?.release();
    deps.due?.();
  }
  return { run, replayed: false };
}
