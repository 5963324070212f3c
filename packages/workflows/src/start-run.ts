// The one door for workflow runs, whoever starts them (CLI, REST, MCP, the scheduler): find
// the workflow, check the input against its inputSchema, and write the run with the definition
// it will follow; a worker takes it from there.
import { Ajv, type ValidateFunction } from 'ajv';
import { storedIdempotencyKey } from '@junction/agent-core/runs';
import { inputDepthProblem } from '@junction/config-templates';
import type { Store, Workflow, WorkflowRun } from '@junction/store';
import { activeTraceParent, withSpan, type Tracer } from '@junction/telemetry';
import { storedWorkflowOf } from './definition.js';
import { WorkflowError } from './errors.js';
import type { WorkflowModel } from './model.js';
import { newTraceParent, type RandomBytes, type WorkflowReservation } from './workflow-workers.js';

/** What starting a workflow run reads and writes: the workflow (by environment) and its runs. */
export type StartWorkflowStore = Pick<Store, 'environments' | 'workflows' | 'workflowRuns'>;

export interface StartWorkflowDeps {
  store: StartWorkflowStore;
  /** Told that a run is due, so an idle worker takes it at once. */
  due?: () => void;
  /** An idle worker of this process to hand the run to as it is written. */
  reserve?: () => WorkflowReservation | undefined;
  now?: () => Date;
  /** Draws the ids of a new run's trace when there is no tracer (crypto's randomBytes by default). */
  random?: RandomBytes;
  /** Records the root span of a run started outside any trace. */
  tracer?: Tracer;
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
  /**
   * W3C traceparent the run's advances nest under. Default: the caller's active span (a
   * schedule's fire), else none (the run is a trace of its own).
   */
  trace_parent?: string;
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

/** How a workflow was found, when a later start may find it the same way in one statement. */
type FoundBy = { name: string } | { id: number };

/** Finds the workflow: in the environment named, else in `default`, else the one that has it. */
export async function findWorkflow(
  store: Pick<Store, 'environments' | 'workflows'>,
  request: Pick<StartWorkflowRequest, 'workflow_id' | 'environment' | 'environment_id'>,
): Promise<Workflow> {
  return (await resolveWorkflow(store, request)).workflow;
}

/** `findWorkflow`, saying how it was found by key in an environment (see `knownStarts`). */
async function resolveWorkflow(
  store: Pick<Store, 'environments' | 'workflows'>,
  request: Pick<StartWorkflowRequest, 'workflow_id' | 'environment' | 'environment_id'>,
): Promise<{ workflow: Workflow; foundBy?: FoundBy }> {
  const { workflow_id: id } = request;
  if (typeof id === 'number' || /^\d+$/.test(String(id))) {
    const row = await store.workflows.get(Number(id));
    if (row) return { workflow: row };
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
    if (found) {
      return {
        workflow: found,
        foundBy:
          request.environment_id === undefined && request.environment !== undefined
            ? { name: request.environment }
            : { id: environmentId },
      };
    }
  } else {
    // The `default` environment's, else the one environment that has it.
    const inDefault = await store.workflows.getByWorkflowIdIn('default', key);
    if (inDefault) return { workflow: inDefault, foundBy: { name: 'default' } };
    const candidates = (await store.workflows.list()).filter((w) => w.workflowId === key);
    if (candidates.length === 1) return { workflow: candidates[0] as Workflow };
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

/**
 * A workflow a start of this process found, by how it was asked for: the next start of it
 * checks the input against the model kept here and writes its run in one statement that
 * holds only while the workflow's row is still this one, enabled, with exactly this
 * definition text (`workflowRuns.createFromWorkflow`). When it is not, the start finds the
 * workflow again as the first did. So a start reads no workflow row and parses no definition
 * while the workflow stays as it is, and never starts from a definition that changed.
 */
interface KnownStart {
  workflow: { id: number; workflowId: string; definitionText: string; environment: FoundBy };
  /** The definition, parsed from that text (frozen: every run started from it shares it). */
  definition: Record<string, unknown>;
  model: WorkflowModel;
}

const knownStarts = new Map<string, KnownStart>();
/** Most workflows kept (all are dropped when it is full; the next starts find them again). */
const MAX_KNOWN_STARTS = 500;

/** Where a request's workflow is kept in `knownStarts`; undefined for a workflow asked for by row id. */
function knownStartKey(
  request: Pick<StartWorkflowRequest, 'workflow_id' | 'environment' | 'environment_id'>,
): string | undefined {
  const id = request.workflow_id;
  if (typeof id === 'number' || /^\d+$/.test(id)) return undefined;
  if (request.environment_id !== undefined) return `id:${request.environment_id}\u0000${id}`;
  return `name:${request.environment ?? 'default'}\u0000${id}`;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Keeps how `workflow` was found for the next start of the same request (see `KnownStart`). */
function rememberStart(
  request: Pick<StartWorkflowRequest, 'workflow_id' | 'environment' | 'environment_id'>,
  workflow: Workflow,
  foundBy: FoundBy | undefined,
): void {
  const key = knownStartKey(request);
  if (key === undefined || foundBy === undefined || !workflow.enabled) return;
  try {
    // The text the row holds (the store writes a definition as JSON.stringify does; were it
    // written otherwise, the next start's statement would not match and it would look again).
    const definitionText = JSON.stringify(workflow.definition);
    const definition = deepFreeze(JSON.parse(definitionText) as Record<string, unknown>);
    const model = storedWorkflowOf(
      definition,
      workflow.path ?? workflow.workflowId,
      workflow.workflowId,
    );
    if (knownStarts.size >= MAX_KNOWN_STARTS) knownStarts.clear();
    knownStarts.set(key, {
      workflow: {
        id: workflow.id,
        workflowId: workflow.workflowId,
        definitionText,
        environment: foundBy,
      },
      definition,
      model,
    });
  } catch {
    knownStarts.delete(key);
  }
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
  const deep = inputDepthProblem(input);
  if (deep !== undefined) refuse('input', deep);
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

/** True when `input` fits `model` (checkInput without the error). */
function fits(model: WorkflowModel, input: unknown): boolean {
  try {
    checkInput(model.inputSchema, input);
    return true;
  } catch {
    return false;
  }
}

/** Starts a run of a workflow; see the file comment. */
export async function startWorkflowRun(
  deps: StartWorkflowDeps,
  request: StartWorkflowRequest,
): Promise<{ run: WorkflowRun; replayed: boolean }> {
  // A run started inside a trace (a schedule's fire) nests under it. Any other starts a trace
  // of its own under a real root span, `workflow.start`, that every advance nests under; with
  // no tracer nothing is exported, so random ids that name no span do no harm.
  const inherited = request.trace_parent ?? activeTraceParent();
  if (inherited !== undefined || deps.tracer === undefined) {
    return startUnder(deps, request, inherited ?? newTraceParent(deps.random));
  }
  return withSpan(
    deps.tracer,
    SPAN_WORKFLOW_START,
    { 'workflow.id': String(request.workflow_id), 'workflow.source': request.source },
    async (span) => {
      // A span nobody records (no exporter, sampled out) is no parent: random ids then.
      const parent = span.isRecording() ? activeTraceParent()! : newTraceParent(deps.random);
      const started = await startUnder(deps, request, parent);
      span.setAttribute('workflow.run_id', started.run.id);
      return started;
    },
  );
}

/** The span a workflow run started outside any trace has as its root. */
export const SPAN_WORKFLOW_START = 'workflow.start';

async function startUnder(
  deps: StartWorkflowDeps,
  request: StartWorkflowRequest,
  traceParent: string,
): Promise<{ run: WorkflowRun; replayed: boolean }> {
  const { store } = deps;
  const input = request.input ?? {};
  const now = deps.now?.() ?? new Date();
  const key =
    request.idempotency_key === undefined
      ? null
      : storedIdempotencyKey(request.source, request.idempotency_key);
  // An idle worker of this process, taken once and handed the run as it is written.
  let reservation: WorkflowReservation | undefined;
  let reserved = false;
  const reserve = (): WorkflowReservation | undefined => {
    if (!reserved) {
      reserved = true;
      reservation = deps.reserve?.();
    }
    return reservation;
  };
  const handOver = (run: WorkflowRun): void => {
    if (reservation && run.workerId === reservation.claim.workerId) reservation.take(run);
    else {
      reservation?.release();
      deps.due?.();
    }
  };
  try {
    // A workflow started here before: its run written in one statement while it is unchanged.
    // An input that does not fit, a workflow that changed and a key already used are all
    // answered by the full look below, exactly as a first start is.
    const known = knownStarts.get(knownStartKey(request) ?? '');
    if (known !== undefined && fits(known.model, input)) {
      const claim = reserve();
      const run = await store.workflowRuns.createFromWorkflow({
        workflow: known.workflow,
        definition: known.definition,
        source: request.source,
        input,
        ...(known.model.timeoutMs !== undefined
          ? { timeoutAt: new Date(now.getTime() + known.model.timeoutMs) }
          : {}),
        idempotencyKey: key,
        traceParent,
        ...(claim ? { claimedBy: claim.claim } : {}),
      });
      if (run !== undefined) {
        handOver(run);
        return { run, replayed: false };
      }
    }
    const { workflow, foundBy } = await resolveWorkflow(store, request);
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
    checkInput(model.inputSchema, input);
    rememberStart(request, workflow, foundBy);
    if (key !== null) {
      const first = await store.workflowRuns.findByIdempotencyKey(key);
      if (first) {
        reservation?.release();
        return { run: first, replayed: true };
      }
    }
    const claim = reserve();
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
      traceParent,
      ...(claim ? { claimedBy: claim.claim } : {}),
    });
    handOver(run);
    return { run, replayed: false };
  } catch (err) {
    reservation?.release();
    throw err;
  }
}
