// Workflow files as the reference implementation's users write them (a subset of the CNCF
// Serverless Workflow profile; see docs/workflows.md), read into the engine's model. Every
// spelling seen in real files is accepted (`id`/`name`, `transition`/`next`, the task in
// `task`, `prompt`, `agentTask` or `input.task`, `operation: agent.run`, …); anything the engine
// cannot run is a problem naming the state and the field, and all problems are reported at
// once. Expressions are parsed here, so a syntax error is found at sync, not at run time.
import {
  cronProblem,
  inputDepthProblem,
  MAX_RUN_TIMEOUT_SECONDS,
  parseFileDuration,
  readYaml,
  SCHEDULE_CATCH_UPS,
  SCHEDULE_OVERLAPS,
} from '@junction/config-templates';
import { WorkflowError } from './errors.js';
import {
  ExpressionSyntaxError,
  parseExpression,
  parseProgram,
  type Program,
} from './expressions/index.js';
import type {
  AgentState,
  ApprovalState,
  CronState,
  ForeachState,
  Graph,
  InjectState,
  ParallelState,
  RetryPolicy,
  State,
  StateBase,
  SwitchState,
  TimerState,
  TryState,
  WorkflowModel,
} from './model.js';

/** Where and why a definition is wrong. */
export interface DefinitionProblem {
  /** The state's id, or undefined for the workflow's own fields. */
  state?: string;
  field: string;
  message: string;
}

/** A workflow's schedule: its `cron` start state, or its top-level `schedule:` block. */
export interface CronTrigger {
  cron: string;
  /** IANA time zone the cron is read in; absent: the process's own. */
  timezone?: string;
  enabled: boolean;
  /** The input of every run it starts. */
  input: Record<string, unknown> | null;
  catchUp?: (typeof SCHEDULE_CATCH_UPS)[number];
  overlap?: (typeof SCHEDULE_OVERLAPS)[number];
}

/** Default time an approval waits for a decision: one hour, as the reference's. */
export const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 3600;
/** Longest approval wait and timer: thirty days. */
const MAX_WAIT_MS = 30 * 24 * 3600 * 1000;
/** Most concurrent iterations of a foreach. */
const MAX_CONCURRENCY = 50;

type Raw = Record<string, unknown>;

const isObject = (v: unknown): v is Raw => v !== null && typeof v === 'object' && !Array.isArray(v);

class Problems {
  readonly list: DefinitionProblem[] = [];
  add(state: string | undefined, field: string, message: string): void {
    this.list.push({ ...(state !== undefined ? { state } : {}), field, message });
  }
}

/**
 * A duration in a workflow file, in milliseconds (config-templates' `parseFileDuration`: `500ms`,
 * `1h30m`, `PT5M`, a number of seconds); undefined when it is none, or longer than 36500d.
 */
function parseDuration(value: unknown): number | undefined {
  const read = parseFileDuration(value);
  return read.ok ? read.ms : undefined;
}

function stateIdOf(raw: Raw): string | undefined {
  const id = raw.id ?? raw.name;
  return typeof id === 'string' && id.trim() !== '' ? id : undefined;
}

/** The state a state goes to next: `transition` wins over `next`, as in the reference. */
function nextOf(raw: Raw, id: string, problems: Problems): string | undefined {
  const next = raw.transition ?? raw.next;
  if (next === undefined || next === null) return undefined;
  if (typeof next === 'string' && next !== '') return next;
  if (isObject(next) && typeof next.nextState === 'string') return next.nextState;
  problems.add(
    id,
    raw.transition !== undefined ? 'transition' : 'next',
    'must be the id of a state',
  );
  return undefined;
}

function stringField(raw: Raw, key: string, id: string, problems: Problems): string | undefined {
  const value = raw[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  problems.add(id, key, `must be a string, got ${JSON.stringify(value)?.slice(0, 60)}`);
  return undefined;
}

function program(
  source: unknown,
  mode: 'expression' | 'program',
  id: string,
  field: string,
  problems: Problems,
): Program | undefined {
  if (typeof source === 'boolean') source = source ? 'True' : 'False';
  if (typeof source !== 'string' || source.trim() === '') {
    problems.add(id, field, 'must be a Starlark expression, as a string');
    return undefined;
  }
  try {
    return mode === 'expression' ? parseExpression(source) : parseProgram(source);
  } catch (err) {
    if (err instanceof ExpressionSyntaxError) {
      problems.add(id, field, `${err.message} (line ${err.line}, column ${err.column})`);
      return undefined;
    }
    throw err;
  }
}

function retryOf(raw: unknown, id: string, problems: Problems): RetryPolicy | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isObject(raw)) {
    problems.add(id, 'retry', 'must be an object such as {max_attempts: 3, backoff: exponential}');
    return undefined;
  }
  const attempts = raw.max_attempts ?? raw.maxAttempts ?? 3;
  if (
    typeof attempts !== 'number' ||
    !Number.isInteger(attempts) ||
    attempts < 1 ||
    attempts > 20
  ) {
    problems.add(id, 'retry.max_attempts', 'must be a whole number from 1 to 20');
  }
  const backoff = raw.backoff ?? 'exponential';
  let initialMs = 1000;
  let multiplier = 2;
  if (backoff === 'fixed') multiplier = 1;
  else if (backoff !== 'exponential') {
    const ms = parseDuration(backoff);
    if (ms === undefined) {
      problems.add(
        id,
        'retry.backoff',
        'must be "exponential", "fixed" or a duration such as "5s"',
      );
    } else {
      initialMs = ms;
      multiplier = 1;
    }
  }
  const retryOn = raw.retry_on ?? raw.retryOn ?? [];
  if (!Array.isArray(retryOn) || retryOn.some((x) => typeof x !== 'string')) {
    problems.add(id, 'retry.retry_on', 'must be a list of strings (parts of error messages)');
  }
  return {
    maxAttempts: typeof attempts === 'number' ? attempts : 3,
    initialMs,
    multiplier,
    maxMs: 5 * 60_000,
    retryOn: Array.isArray(retryOn) ? (retryOn as string[]) : [],
  };
}

/** `$.a.b` or `a.b`: a path in the run context. */
function pathField(raw: Raw, key: string, id: string, problems: Problems): string | undefined {
  const value = stringField(raw, key, id, problems);
  if (value === undefined) return undefined;
  if (!/^(\$|\$\.)?[^\s]*$/.test(value)) problems.add(id, key, 'must be a path such as $.a.b');
  return value;
}

/**
 * The `operation` a state names, if any: `operation: agent.run`, or (the e2e files) an
 * `input.task` of `agent.run` / `human.approval`.
 */
function operationOf(raw: Raw): string | undefined {
  if (typeof raw.operation === 'string') return raw.operation;
  if (isObject(raw.input) && typeof raw.input.task === 'string') {
    const task = raw.input.task;
    if (/^(agent\.run|agent\.hierarchy\.run|human\.approval|tool\.call|custom\.run)$/.test(task)) {
      return task;
    }
  }
  return undefined;
}

function agentState(raw: Raw, base: StateBase, problems: Problems): AgentState {
  // The step's timeout is its run's: no longer than a run may take.
  if (base.timeoutMs !== undefined && Math.round(base.timeoutMs / 1000) > MAX_RUN_TIMEOUT_SECONDS) {
    problems.add(
      base.id,
      'timeout',
      `must be at most 24h (${MAX_RUN_TIMEOUT_SECONDS} s), the longest a run may take`,
    );
  }
  const input = isObject(raw.input) ? raw.input : {};
  const agent = raw.agent ?? input.agent;
  if (typeof agent !== 'string' || agent.trim() === '') {
    problems.add(base.id, 'agent', 'must name the agent to run (its name, or name@environment)');
  }
  const inputTask =
    typeof input.task === 'string' && !/^agent\.(hierarchy\.)?run$/.test(input.task)
      ? input.task
      : undefined;
  const task = [
    raw.task,
    raw.prompt,
    raw.agentTask,
    inputTask,
    input.agent_task,
    input.prompt,
  ].find((t) => typeof t === 'string' && t.trim() !== '') as string | undefined;
  const variables: Record<string, string> = {};
  const vars = input.variables ?? raw.variables;
  if (vars !== undefined) {
    if (!isObject(vars)) problems.add(base.id, 'input.variables', 'must be an object of strings');
    else
      for (const [k, v] of Object.entries(vars)) {
        variables[k] = typeof v === 'string' ? v : JSON.stringify(v);
      }
  }
  return {
    ...base,
    type: 'agent',
    agent: typeof agent === 'string' ? agent : '',
    task: task ?? '',
    variables,
  };
}

function approvalState(raw: Raw, base: StateBase, problems: Problems): ApprovalState {
  const input = isObject(raw.input) ? raw.input : {};
  const message = [raw.message, raw.prompt, input.message, raw.approval_title].find(
    (m) => typeof m === 'string' && m.trim() !== '',
  );
  if (message === undefined) {
    problems.add(base.id, 'message', 'must say what the approver decides (message or prompt)');
  }
  const approvers = raw.approvers ?? input.approvers ?? [];
  if (!Array.isArray(approvers) || approvers.some((a) => typeof a !== 'string')) {
    problems.add(base.id, 'approvers', 'must be a list of names');
  }
  const timeout = raw.timeout_seconds ?? raw.timeoutSeconds ?? input.timeout_seconds;
  let timeoutSeconds = DEFAULT_APPROVAL_TIMEOUT_SECONDS;
  if (timeout !== undefined) {
    if (
      typeof timeout !== 'number' ||
      !Number.isInteger(timeout) ||
      timeout < 1 ||
      timeout * 1000 > MAX_WAIT_MS
    ) {
      problems.add(
        base.id,
        'timeout_seconds',
        'must be a whole number of seconds from 1 to 2592000 (30 days)',
      );
    } else timeoutSeconds = timeout;
  }
  const onRejected = raw.onRejected ?? raw.on_rejected ?? raw.onReject;
  const onTimeout = raw.onTimeout ?? raw.on_timeout;
  return {
    ...base,
    type: 'human_approval',
    message: typeof message === 'string' ? message : '',
    approvers: Array.isArray(approvers) ? (approvers as string[]) : [],
    timeoutSeconds,
    ...(typeof onRejected === 'string' ? { onRejected } : {}),
    ...(typeof onTimeout === 'string' ? { onTimeout } : {}),
  };
}

/** `value` when it is one of `allowed`; undefined when absent, and a problem when another. */
function choiceOf<T extends string>(
  value: unknown,
  allowed: readonly T[],
  state: string | undefined,
  field: string,
  problems: Problems,
): T | undefined {
  if (value === undefined || value === null) return undefined;
  if (allowed.includes(value as T)) return value as T;
  problems.add(state, field, `must be ${allowed.join(' or ')}, got ${JSON.stringify(value)}`);
  return undefined;
}

/**
 * The schedule a cron state (`state` its id) or the top-level block (`prefix` "schedule.")
 * declares, checked where it is written: a cron that fires, a known time zone, an input
 * mapping, known catch-up and overlap policies.
 */
function triggerOf(
  raw: Raw,
  state: string | undefined,
  prefix: string,
  problems: Problems,
): CronTrigger {
  const problem = cronProblem(raw.cron, raw.timezone);
  if (problem) problems.add(state, `${prefix}${problem.field}`, problem.message);
  if (raw.enabled !== undefined && typeof raw.enabled !== 'boolean') {
    problems.add(state, `${prefix}enabled`, 'must be true or false');
  }
  const input = raw.input ?? null;
  if (input !== null && !isObject(input)) {
    problems.add(state, `${prefix}input`, 'must be a mapping: the input of each run it starts');
  }
  const deep = inputDepthProblem(input);
  if (deep !== undefined) problems.add(state, `${prefix}input`, deep);
  const catchUp = choiceOf(
    raw.catch_up ?? raw.catchUp,
    SCHEDULE_CATCH_UPS,
    state,
    `${prefix}catch_up`,
    problems,
  );
  const overlap = choiceOf(raw.overlap, SCHEDULE_OVERLAPS, state, `${prefix}overlap`, problems);
  return {
    cron: typeof raw.cron === 'string' ? raw.cron : '',
    ...(typeof raw.timezone === 'string' ? { timezone: raw.timezone } : {}),
    enabled: raw.enabled !== false,
    input: isObject(input) ? input : null,
    ...(catchUp !== undefined ? { catchUp } : {}),
    ...(overlap !== undefined ? { overlap } : {}),
  };
}

const BLOCK_TYPES = new Set(['parallel', 'foreach', 'try']);

/** One state of `states[]` (or of a block), checked and normalised. */
function stateOf(
  raw: unknown,
  index: number,
  where: string,
  problems: Problems,
): State | undefined {
  if (!isObject(raw)) {
    problems.add(`${where}[${index}]`, 'state', 'must be an object with id (or name) and type');
    return undefined;
  }
  const id = stateIdOf(raw);
  if (id === undefined) {
    problems.add(`${where}[${index}]`, 'id', 'every state needs an id (or name)');
    return undefined;
  }
  const type = raw.type;
  if (typeof type !== 'string') {
    problems.add(
      id,
      'type',
      'must be one of agent, operation, inject, switch, transform, parallel, foreach, timer, try, human_approval, cron',
    );
    return undefined;
  }
  const base = baseOf(raw, id, problems);
  const runType = stateTypeOf(raw, type, id, problems);
  return runType === undefined ? undefined : typedStateOf(raw, runType, base, problems);
}

/** The fields every state may have (next, end, input, output, resultPath, timeout, retry). */
function baseOf(raw: Raw, id: string, problems: Problems): StateBase {
  const base: StateBase = { id };
  const next = nextOf(raw, id, problems);
  if (next !== undefined) base.next = next;
  if (raw.end === true) base.end = true;
  if (typeof raw.input === 'string') base.input = raw.input;
  const output = raw.output ?? raw.outputPath;
  if (typeof output === 'string') base.output = output;
  const resultPath = pathField(raw, 'resultPath', id, problems);
  if (resultPath !== undefined) base.resultPath = resultPath;
  if (raw.timeout !== undefined) {
    const ms = parseDuration(raw.timeout);
    if (ms === undefined || ms <= 0)
      problems.add(id, 'timeout', 'must be a duration such as "30s", "5m" or "PT1H"');
    else base.timeoutMs = ms;
  }
  const retry = retryOf(raw.retry, id, problems);
  if (retry !== undefined) base.retry = retry;
  return base;
}

/**
 * The state type an `operation` (`action`, `function`) state stands for, from the operation
 * it names; any other type as written. Undefined, with a problem, for an operation not run here.
 */
function stateTypeOf(raw: Raw, type: string, id: string, problems: Problems): string | undefined {
  if (type !== 'operation' && type !== 'action' && type !== 'function') return type;
  const operation = operationOf(raw);
  if (operation === 'agent.run' || operation === 'agent.hierarchy.run') return 'agent';
  if (operation === 'human.approval') return 'human_approval';
  problems.add(
    id,
    raw.operation !== undefined ? 'operation' : 'input.task',
    `${JSON.stringify(operation ?? null)} is not an operation Junction runs; use agent.run or human.approval`,
  );
  return undefined;
}

/** The state of `type` (every spelling of it), built from its own fields on top of `base`. */
function typedStateOf(
  raw: Raw,
  type: string,
  base: StateBase,
  problems: Problems,
): State | undefined {
  switch (type) {
    case 'agent':
      return agentState(raw, base, problems);
    case 'human_approval':
    case 'await':
      return approvalState(raw, base, problems);
    case 'inject':
    case 'set':
      return injectState(raw, base, problems);
    case 'switch':
      return switchState(raw, base, problems);
    case 'transform': {
      const expression = program(raw.expression, 'program', base.id, 'expression', problems);
      return expression ? { ...base, type: 'transform', expression } : undefined;
    }
    case 'timer':
    case 'sleep':
    case 'delay':
      return timerState(raw, base, problems);
    case 'parallel':
      return parallelState(raw, base, problems);
    case 'foreach':
      return foreachState(raw, base, problems);
    case 'try':
      return tryState(raw, base, problems);
    case 'cron':
    case 'schedule':
      return cronState(raw, base, problems);
    default:
      problems.add(
        base.id,
        'type',
        `${JSON.stringify(type)} is not a state type Junction runs; use agent, operation (agent.run, human.approval), inject, switch, transform, parallel, foreach, timer, try, human_approval or cron`,
      );
      return undefined;
  }
}

function injectState(raw: Raw, base: StateBase, problems: Problems): InjectState {
  const data = raw.data ?? (isObject(raw.input) ? raw.input.data : undefined);
  if (data === undefined || data === null)
    problems.add(base.id, 'data', 'must hold the data to inject');
  return { ...base, type: 'inject', data: data ?? null };
}

function switchState(raw: Raw, base: StateBase, problems: Problems): SwitchState {
  const id = base.id;
  const conditions: Array<{ if: Program; source: string; next: string }> = [];
  if (!Array.isArray(raw.conditions) && raw.defaultNext === undefined) {
    problems.add(id, 'conditions', 'must be a list of {if, next}');
  }
  (Array.isArray(raw.conditions) ? raw.conditions : []).forEach((c: unknown, i: number) => {
    if (!isObject(c) || typeof c.next !== 'string') {
      problems.add(id, `conditions[${i}]`, 'must be {if: <condition>, next: <state id>}');
      return;
    }
    const parsed = program(c.if ?? c.condition, 'expression', id, `conditions[${i}].if`, problems);
    if (parsed) conditions.push({ if: parsed, source: String(c.if ?? c.condition), next: c.next });
  });
  const defaultNext = raw.defaultNext ?? raw.default;
  const dataPath = pathField(raw, 'dataPath', id, problems);
  return {
    ...base,
    type: 'switch',
    conditions,
    ...(typeof defaultNext === 'string' ? { defaultNext } : {}),
    ...(dataPath !== undefined ? { dataPath } : {}),
  };
}

function timerState(raw: Raw, base: StateBase, problems: Problems): TimerState {
  const source = raw.duration ?? (isObject(raw.input) ? raw.input.duration : undefined);
  const ms = parseDuration(source);
  if (ms === undefined || ms > MAX_WAIT_MS) {
    problems.add(
      base.id,
      'duration',
      'must be a duration up to 30 days, such as "30s", "5m", "1h30m" or "PT5M"',
    );
  }
  return { ...base, type: 'timer', durationMs: ms ?? 0 };
}

function parallelState(raw: Raw, base: StateBase, problems: Problems): ParallelState | undefined {
  const id = base.id;
  if (!Array.isArray(raw.branches) || raw.branches.length === 0) {
    problems.add(id, 'branches', 'must be a list of branches, each with states (or an agent)');
    return undefined;
  }
  const join = isObject(raw.join) ? raw.join.mode : undefined;
  if (join !== undefined && join !== 'all')
    problems.add(id, 'join.mode', 'only "all" is supported');
  const aggregation = raw.outputAggregation;
  if (aggregation !== undefined && aggregation !== 'merge' && aggregation !== 'array') {
    problems.add(id, 'outputAggregation', 'must be merge or array');
  }
  const branches: Graph[] = [];
  const names: string[] = [];
  raw.branches.forEach((b: unknown, i: number) => {
    const name = isObject(b) ? (stateIdOf(b) ?? `branch_${i}`) : `branch_${i}`;
    names.push(name);
    const graph = blockOf(b, `${id}.branches[${i}]`, problems, name);
    if (graph) branches.push(graph);
  });
  return {
    ...base,
    type: 'parallel',
    branches,
    branchNames: names,
    aggregation: aggregation === 'array' ? 'array' : 'merge',
  };
}

function foreachState(raw: Raw, base: StateBase, problems: Problems): ForeachState | undefined {
  const id = base.id;
  const itemsPath = pathField(raw, 'itemsPath', id, problems);
  if (itemsPath === undefined)
    problems.add(id, 'itemsPath', 'must be the path of the list to go through');
  const itemName = raw.itemName ?? raw.itemVariable ?? 'item';
  if (typeof itemName !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(itemName)) {
    problems.add(id, 'itemName', 'must be a name such as item');
  }
  const concurrency = raw.maxConcurrency ?? 1;
  if (
    typeof concurrency !== 'number' ||
    !Number.isInteger(concurrency) ||
    concurrency > MAX_CONCURRENCY
  ) {
    problems.add(id, 'maxConcurrency', `must be a whole number up to ${MAX_CONCURRENCY}`);
  }
  // The dataflow examples' shorthand: the agent (and task) on the foreach state itself.
  const iterator =
    raw.iterator !== undefined
      ? raw.iterator
      : raw.agent !== undefined
        ? { agent: raw.agent, task: raw.task ?? raw.prompt, input: raw.input }
        : undefined;
  if (iterator === undefined) {
    problems.add(id, 'iterator', 'must hold the states run for each item (or name an agent)');
    return undefined;
  }
  const graph = blockOf(iterator, `${id}.iterator`, problems, `${id}_item`);
  const aggregation = raw.outputAggregation;
  return graph
    ? {
        ...base,
        type: 'foreach',
        itemsPath: itemsPath ?? '',
        itemName: typeof itemName === 'string' ? itemName : 'item',
        maxConcurrency: typeof concurrency === 'number' && concurrency > 0 ? concurrency : 1,
        iterator: graph,
        aggregation: aggregation === 'array' ? 'array' : 'object',
      }
    : undefined;
}

function tryState(raw: Raw, base: StateBase, problems: Problems): TryState | undefined {
  const id = base.id;
  const tryBlock = blockOf(raw.try, `${id}.try`, problems);
  const catchBlock =
    raw.catch === undefined ? undefined : blockOf(raw.catch, `${id}.catch`, problems);
  const finallyBlock =
    raw.finally === undefined ? undefined : blockOf(raw.finally, `${id}.finally`, problems);
  if (raw.try === undefined) problems.add(id, 'try', 'must hold the states to try');
  return tryBlock
    ? {
        ...base,
        type: 'try',
        try: tryBlock,
        ...(catchBlock ? { catch: catchBlock } : {}),
        ...(finallyBlock ? { finally: finallyBlock } : {}),
      }
    : undefined;
}

function cronState(raw: Raw, base: StateBase, problems: Problems): CronState {
  const trigger = triggerOf(raw, base.id, '', problems);
  return {
    ...base,
    type: 'cron',
    cron: trigger.cron,
    ...(trigger.timezone !== undefined ? { timezone: trigger.timezone } : {}),
    enabled: trigger.enabled,
    triggerInput: trigger.input,
  };
}

/**
 * A block of states (a parallel branch, a foreach iterator, a try/catch/finally block):
 * `{start?, states}`, or the agent shorthand `{agent, task?}` of the dataflow examples.
 */
function blockOf(
  raw: unknown,
  where: string,
  problems: Problems,
  name?: string,
): Graph | undefined {
  if (!isObject(raw)) {
    problems.add(where, 'states', 'must be a block {states: [...]} (or name an agent)');
    return undefined;
  }
  if (!Array.isArray(raw.states) && raw.agent !== undefined && !BLOCK_TYPES.has(String(raw.type))) {
    const id = name ?? stateIdOf(raw) ?? 'agent';
    const state = agentState({ ...raw, type: 'agent' }, { id }, problems);
    return { start: id, states: new Map([[id, state]]), inOrder: [id], block: true };
  }
  if (!Array.isArray(raw.states) || raw.states.length === 0) {
    problems.add(where, 'states', 'must be a non-empty list of states');
    return undefined;
  }
  return graphOf(
    raw.states,
    typeof raw.start === 'string' ? raw.start : undefined,
    where,
    problems,
    true,
  );
}

function graphOf(
  rawStates: unknown[],
  start: string | undefined,
  where: string,
  problems: Problems,
  block: boolean,
): Graph | undefined {
  const states = new Map<string, State>();
  const order: string[] = [];
  rawStates.forEach((raw, i) => {
    const state = stateOf(raw, i, where, problems);
    if (!state) return;
    if (states.has(state.id))
      problems.add(state.id, 'id', 'is used by two states; ids must be unique');
    states.set(state.id, state);
    order.push(state.id);
  });
  const first = start ?? order[0];
  if (first === undefined) return undefined;
  if (start !== undefined && !states.has(start) && order.length === rawStates.length) {
    problems.add(
      undefined,
      block ? `${where}.start` : 'start',
      `names no state: ${JSON.stringify(start)}`,
    );
  }
  for (const state of states.values()) {
    const targets: Array<[string, string | undefined]> = [['next', state.next]];
    if (state.type === 'switch') {
      state.conditions.forEach((c, i) => targets.push([`conditions[${i}].next`, c.next]));
      targets.push(['defaultNext', state.defaultNext]);
    }
    if (state.type === 'human_approval') {
      targets.push(['onRejected', state.onRejected], ['onTimeout', state.onTimeout]);
    }
    for (const [field, target] of targets) {
      if (target !== undefined && !states.has(target) && order.length === rawStates.length) {
        problems.add(
          state.id,
          field,
          `names no state of this ${block ? 'block' : 'workflow'}: ${JSON.stringify(target)}`,
        );
      }
    }
  }
  return { start: first, states, inOrder: order, block };
}

/** The workflow in `source` (YAML or JSON text), or WORKFLOW_INVALID listing every problem. */
export function parseWorkflow(source: string, file: string, fallbackId?: string): WorkflowModel {
  const read = readYaml(source);
  if (!read.ok) {
    const where =
      read.problem.line !== undefined
        ? ` (line ${read.problem.line}, column ${read.problem.column})`
        : '';
    throw new WorkflowError(
      'WORKFLOW_INVALID',
      `Invalid workflow file ${file}: ${read.problem.reason}${where}.`,
      { file, problems: [{ field: 'file', message: read.problem.reason }] },
    );
  }
  return workflowOf(read.value, file, fallbackId);
}

const models = new Map<string, WorkflowModel>();
/** The same models by the definition object itself: a run started here holds its workflow's. */
const modelsByObject = new WeakMap<
  object,
  { fallbackId: string | undefined; model: WorkflowModel }
>();

/**
 * `workflowOf` for a stored definition, kept per definition text: a run's definition is read
 * (and its expressions parsed) once per process, not on every start or advance. A definition
 * object seen before is not even turned into text again.
 */
export function storedWorkflowOf(value: unknown, file: string, fallbackId?: string): WorkflowModel {
  const byObject = isObject(value) ? modelsByObject.get(value) : undefined;
  if (byObject !== undefined && byObject.fallbackId === fallbackId) return byObject.model;
  const key = `${fallbackId ?? ''}\u0000${JSON.stringify(value)}`;
  let model = models.get(key);
  if (model === undefined) {
    model = workflowOf(value, file, fallbackId);
    if (models.size >= 200) models.clear();
    models.set(key, model);
  }
  if (isObject(value)) modelsByObject.set(value, { fallbackId, model });
  return model;
}

/** The workflow in an already-parsed definition (a stored one, or a request's). */
export function workflowOf(value: unknown, file: string, fallbackId?: string): WorkflowModel {
  const problems = new Problems();
  if (!isObject(value)) {
    throw invalid(file, [
      { field: 'file', message: 'must be a mapping with id, start and states' },
    ]);
  }
  const id = typeof value.id === 'string' && value.id.trim() !== '' ? value.id : fallbackId;
  if (id === undefined) problems.add(undefined, 'id', 'must be the workflow id, a string');
  else if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(id)) {
    problems.add(
      undefined,
      'id',
      'must be 1 to 128 letters, digits, ".", "-" or "_", starting with a letter or digit',
    );
  }
  const name = typeof value.name === 'string' && value.name.trim() !== '' ? value.name : (id ?? '');
  for (const key of ['inputSchema', 'outputSchema'] as const) {
    if (value[key] !== undefined && !isObject(value[key]))
      problems.add(undefined, key, 'must be a JSON Schema object');
  }
  if (!Array.isArray(value.states) || value.states.length === 0) {
    problems.add(undefined, 'states', 'must be a non-empty list of states');
    throw invalid(file, problems.list);
  }
  const start =
    typeof value.start === 'string'
      ? value.start
      : isObject(value.start) && typeof value.start.stateName === 'string'
        ? value.start.stateName
        : undefined;
  const graph = graphOf(value.states, start, 'states', problems, false);
  // A cron trigger as the start state is the scheduler's: a run starts at its next state.
  const first = graph?.states.get(graph.start);
  if (graph && first?.type === 'cron') {
    if (first.next === undefined) {
      problems.add(first.id, 'next', 'a cron trigger must name the state a run starts at');
    } else graph.start = first.next;
  }
  if (value.schedule !== undefined && value.schedule !== null) {
    if (!isObject(value.schedule)) {
      problems.add(undefined, 'schedule', 'must be a mapping such as {cron: "0 9 * * *"}');
    } else if (first?.type === 'cron') {
      problems.add(
        undefined,
        'schedule',
        `declare the schedule once: here or in the cron start state "${first.id}", not both`,
      );
    } else triggerOf(value.schedule, undefined, 'schedule.', problems);
  }
  let timeoutMs: number | undefined;
  const timeouts = value.timeouts;
  if (isObject(timeouts) && timeouts.workflowExecTimeout !== undefined) {
    const raw = isObject(timeouts.workflowExecTimeout)
      ? timeouts.workflowExecTimeout.duration
      : timeouts.workflowExecTimeout;
    timeoutMs = parseDuration(raw);
    if (timeoutMs === undefined)
      problems.add(undefined, 'timeouts.workflowExecTimeout', 'must be a duration');
  } else if (value.timeout !== undefined) {
    timeoutMs = parseDuration(value.timeout);
    if (timeoutMs === undefined)
      problems.add(undefined, 'timeout', 'must be a duration such as "1h"');
  }
  if (problems.list.length > 0 || !graph || id === undefined) throw invalid(file, problems.list);
  return {
    id,
    name,
    ...(typeof value.version === 'string' || typeof value.version === 'number'
      ? { version: String(value.version) }
      : {}),
    description: typeof value.description === 'string' ? value.description : '',
    ...(isObject(value.inputSchema) ? { inputSchema: value.inputSchema } : {}),
    ...(isObject(value.outputSchema) ? { outputSchema: value.outputSchema } : {}),
    graph,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  };
}

function invalid(file: string, problems: DefinitionProblem[]): WorkflowError {
  const lines = problems.map(
    (p) => `  ${p.state !== undefined ? `state "${p.state}": ` : ''}${p.field}: ${p.message}`,
  );
  return new WorkflowError(
    'WORKFLOW_INVALID',
    `Invalid workflow file ${file}:\n${lines.join('\n')}`,
    { file, problems },
  );
}

/**
 * The schedule of a workflow definition, for sync and the scheduler: its `cron` start state,
 * else its top-level `schedule:` block; undefined when it has neither. Read leniently: a
 * definition `workflowOf` refused may still yield one.
 */
export function cronTriggerOf(value: unknown): CronTrigger | undefined {
  if (!isObject(value) || !Array.isArray(value.states)) return undefined;
  const startId = typeof value.start === 'string' ? value.start : undefined;
  const first = (value.states as unknown[]).find(
    (s) => isObject(s) && (startId === undefined || stateIdOf(s) === startId),
  );
  const raw =
    isObject(first) && (first.type === 'cron' || first.type === 'schedule')
      ? first
      : isObject(value.schedule)
        ? value.schedule
        : undefined;
  if (raw === undefined || typeof raw.cron !== 'string') return undefined;
  return triggerOf(raw, undefined, '', new Problems());
}
