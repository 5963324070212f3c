// Advancing one workflow run as far as it can go, durably. Each advance replays the run from
// its start against the step attempts the store holds: an attempt that ended is not run again
// (its stored output is used), one that began and did not end is resumed (an agent step waits
// on the run it already started), and a new one is written before it runs. A step that must
// wait — a timer, a retry's backoff, a person's decision — ends the advance: the run is
// released with the time it is due again (or none, for a person), holding no worker and no
// promise. Replay is exact because every value a later step reads comes from stored outputs,
// and the expressions are pure.
import { storedIdempotencyKey, type RunDoor } from '@junction/agent-core/runs';
import type { Approval, Run, RunReader, Store, WorkflowRun, WorkflowStep } from '@junction/store';
import type { Logger, Metrics, Tracer } from '@junction/telemetry';
import { activeTraceParent, recordSpanError, withSpan } from '@junction/telemetry';
import {
  copyJson,
  copyValue,
  getPath,
  initialContext,
  recordOutput,
  renderInContext,
  renderTemplate,
  scopeOf,
  type Context,
} from './context.js';
import { evaluate, isTruthy, type Value } from './expressions/index.js';
import type {
  AgentState,
  ApprovalState,
  ForeachState,
  Graph,
  ParallelState,
  State,
  TryState,
  WorkflowModel,
} from './model.js';

/** Span names of the engine. */
export const SPAN_WORKFLOW_RUN = 'workflow.run';
export const SPAN_WORKFLOW_STEP = 'workflow.step';

/** Steps that need nothing outside the run: computed at once, recorded with the next write. */
const PURE_TYPES: ReadonlySet<State['type']> = new Set(['inject', 'cron', 'transform', 'switch']);

/** Most times one state may be entered in one run (a switch looping back): a loop guard. */
const MAX_VISITS = 1000;
/** Most items a foreach goes through. */
const MAX_ITEMS = 10_000;

/**
 * What an advance reads and writes: step attempts, approvals, the audit log. Runs are only read
 * (a resumed agent step finds its run by key): agent steps start them through the run door.
 */
export type EngineStore = Pick<Store, 'workflowSteps' | 'approvals' | 'auditLog'> & {
  readonly runs: RunReader;
};

/** What the engine needs from the process around it. */
export interface EngineDeps {
  store: EngineStore;
  /** The one run door: agent steps start their runs through it. */
  runs: RunDoor;
  logger: Logger;
  tracer?: Tracer;
  /** `workflow_runs_total` and `workflow_steps_total` are counted on its meter. */
  metrics?: Metrics;
  now?: () => Date;
  /**
   * Hands a new approval over for its approval.requested webhook; awaited until handed over
   * (not until delivered). Without it nothing is sent.
   */
  onApprovalRequested?: (approval: Approval, run: WorkflowRun) => Promise<void> | void;
}

/** How far a piece of the workflow got. */
type Outcome =
  | { kind: 'done'; output: Value; merged: Value; next?: string }
  | { kind: 'blocked'; wakeAt: Date | null; approval: boolean }
  | { kind: 'failed'; error: string; status: 'failed' | 'timed_out' };

/** How an advance ended: the run finished, or it waits until `wakeAt` (null: for a person). */
export type AdvanceResult =
  | {
      kind: 'finished';
      status: 'completed' | 'failed' | 'timed_out';
      output?: Value;
      error?: string;
      /** The step it ended at: the last one entered. */
      currentStep?: string;
    }
  | { kind: 'waiting'; wakeAt: Date | null; approval: boolean; currentStep?: string };

const isObject = (v: unknown): v is Record<string, Value> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

function blockedTogether(outcomes: Outcome[]): Outcome | undefined {
  const failed = outcomes.find((o) => o.kind === 'failed');
  if (failed) return failed;
  const blocked = outcomes.filter(
    (o): o is Extract<Outcome, { kind: 'blocked' }> => o.kind === 'blocked',
  );
  if (blocked.length === 0) return undefined;
  const times = blocked.map((b) => b.wakeAt).filter((t): t is Date => t !== null);
  return {
    kind: 'blocked',
    wakeAt: times.length === 0 ? null : new Date(Math.min(...times.map((t) => t.getTime()))),
    approval: blocked.some((b) => b.approval),
  };
}

/** An approval id from a run id and a step's place: URL-safe, unique, as the reference's `appr-<run>-<step>`. */
export function approvalIdOf(runId: number, path: string, attempt: number): string {
  const place = path.replace(/#1$/, '').replace(/[^A-Za-z0-9_-]+/g, '-');
  return `appr-${runId}-${place}${attempt > 1 ? `-a${attempt}` : ''}`;
}

/** The output of an agent step: the answer's JSON object when it is one, with the run's facts. */
export function agentOutput(run: Run): Value {
  const facts: Record<string, Value> = {
    response: run.finalResponse ?? '',
    run_id: run.id,
    agent_id: run.agentId,
    agent_name: run.agentName,
    step_count: run.stepsTaken,
  };
  const text = (run.finalResponse ?? '').trim();
  const fenced = /^```(?:json)?\s*([\s\S]*?)\s*```$/.exec(text);
  const body = fenced ? (fenced[1] as string) : text;
  // Only an object is merged: text that cannot be one is not parsed (a thrown parse error
  // costs more than the rest of a step).
  if (!body.startsWith('{')) return facts;
  try {
    const parsed = JSON.parse(body) as unknown;
    if (isObject(parsed)) return { ...facts, ...parsed };
  } catch {
    // Not JSON: the answer is text.
  }
  return facts;
}

/** One advance of one run by the worker holding it. */
export class Advance {
  readonly #deps: EngineDeps;
  readonly #run: WorkflowRun;
  readonly #model: WorkflowModel;
  readonly #signal: AbortSignal;
  readonly #attempts = new Map<string, WorkflowStep>();
  /**
   * Records not yet written: steps that need nothing outside the run (a replay would compute
   * them again exactly) and the ends of agent steps (a replay reads them from the runs). They
   * go to the store with the next durable record, or when the advance ends.
   */
  #pending: Parameters<Store['workflowSteps']['apply']>[1] = { inserts: [], updates: [] };
  /** Writes in flight, awaited before the advance hands its last records over. */
  readonly #writing = new Set<Promise<unknown>>();
  #currentStep: string | undefined;
  /** Starts the steps' spans: none when the run's own span records nothing (see `run`). */
  #stepTracer: Tracer | undefined;

  constructor(
    deps: EngineDeps,
    run: WorkflowRun,
    model: WorkflowModel,
    steps: WorkflowStep[],
    signal: AbortSignal,
  ) {
    this.#deps = deps;
    this.#run = run;
    this.#model = model;
    this.#signal = signal;
    for (const step of steps) this.#attempts.set(`${step.path}@${step.attempt}`, step);
  }

  #now(): Date {
    return this.#deps.now?.() ?? new Date();
  }

  /** Hands over the records gathered and not yet written (the worker writes them with the run's release or end). */
  async takePending(): Promise<Parameters<Store['workflowSteps']['apply']>[1]> {
    await Promise.all(this.#writing);
    return this.takePendingNow()!;
  }

  /** `takePending` when no write is in flight (the usual end of an advance), else undefined. */
  takePendingNow(): Parameters<Store['workflowSteps']['apply']>[1] | undefined {
    if (this.#writing.size > 0) return undefined;
    const pending = this.#pending;
    this.#pending = { inserts: [], updates: [] };
    return pending;
  }

  /** Writes the records gathered so far, with `extra` inserts, in one transaction. */
  async flush(
    extra: Parameters<Store['workflowSteps']['start']>[1][] = [],
  ): Promise<WorkflowStep[]> {
    const changes = {
      inserts: [...this.#pending.inserts, ...extra],
      updates: this.#pending.updates,
    };
    this.#pending = { inserts: [], updates: [] };
    const write = this.#deps.store.workflowSteps.apply(this.#run.id, changes).then((inserted) => {
      for (const row of inserted) this.#attempts.set(`${row.path}@${row.attempt}`, row);
      return inserted;
    });
    this.#writing.add(write);
    try {
      return await write;
    } finally {
      this.#writing.delete(write);
    }
  }

  /**
   * Advances the run. `recording`: whether the run's span records; when it does not, its steps'
   * spans are not started, since no sampler Junction offers would record them (they would share
   * its trace id and have it as parent: always_off, the ratio samplers and the parent-based ones
   * decide alike; always_on records the run's span). The agent runs then nest under the run's
   * span, in the same trace.
   */
  async run(recording = true): Promise<AdvanceResult> {
    this.#stepTracer = recording ? this.#deps.tracer : undefined;
    const ctx = initialContext(this.#run.input);
    const outcome = await this.#graph(
      this.#model.graph,
      ctx,
      '',
      (this.#run.input ?? {}) as Value,
      false,
    );
    const at = this.#currentStep !== undefined ? { currentStep: this.#currentStep } : {};
    if (outcome.kind === 'done')
      return { kind: 'finished', status: 'completed', output: outcome.output, ...at };
    if (outcome.kind === 'failed')
      return { kind: 'finished', status: outcome.status, error: outcome.error, ...at };
    return {
      kind: 'waiting',
      wakeAt: outcome.wakeAt,
      approval: outcome.approval,
      ...(this.#currentStep !== undefined ? { currentStep: this.#currentStep } : {}),
    };
  }

  /**
   * Runs a graph's states from its start, following next/transition (and file order in blocks).
   * `merge`: gather the outputs' keys (`merged`, what a branch or an iteration gives); the
   * run's own graph needs only its last output.
   */
  async #graph(
    graph: Graph,
    ctx: Context,
    prefix: string,
    input: Value,
    merge = true,
  ): Promise<Outcome> {
    const visits = new Map<string, number>();
    let id: string | undefined = graph.start;
    let last: Value = input;
    let merged: Value = null;
    while (id !== undefined) {
      if (this.#signal.aborted) throw this.#signal.reason;
      const state = graph.states.get(id);
      if (!state) return { kind: 'failed', status: 'failed', error: `no state "${id}" to go to` };
      const visit = (visits.get(id) ?? 0) + 1;
      visits.set(id, visit);
      if (visit > MAX_VISITS) {
        return {
          kind: 'failed',
          status: 'failed',
          error: `state "${id}" was entered more than ${MAX_VISITS} times; check the switch conditions for a loop that never ends`,
        };
      }
      const path: string = `${prefix}${id}#${visit}`;
      let stateInput = last;
      if (state.input !== undefined) {
        const picked = getPath(scopeOf(ctx, last), state.input);
        if (picked === undefined) {
          return {
            kind: 'failed',
            status: 'failed',
            error: `state "${id}": input ${state.input} names nothing in the run context`,
          };
        }
        stateInput = picked;
      }
      // A pure step without retries is computed here at once; the others (and a pure step
      // that failed, whose failure is written first) are awaited.
      const stepped: Outcome | Promise<Outcome> =
        state.retry === undefined && PURE_TYPES.has(state.type)
          ? this.#counted(state, this.#pureAttempt(state, ctx, stateInput, path, 1))
          : this.#state(state, ctx, stateInput, path);
      const outcome: Outcome = stepped instanceof Promise ? await stepped : stepped;
      if (outcome.kind !== 'done') return outcome;
      let output = outcome.output;
      if (state.output !== undefined)
        output =
          getPath(
            { result: output, ...(isObject(output) ? output : {}) },
            state.output.replace(/^\$\.?/, ''),
          ) ?? null;
      const resultPath = state.resultPath ?? (state.type === 'inject' ? 'ctx' : undefined);
      recordOutput(ctx, state.id, output, resultPath);
      last = output;
      if (merge)
        merged = isObject(output) ? { ...(isObject(merged) ? merged : {}), ...output } : output;
      const index = graph.inOrder.indexOf(id);
      id =
        outcome.next ??
        state.next ??
        (graph.block && !state.end ? graph.inOrder[index + 1] : undefined);
    }
    return { kind: 'done', output: last, merged };
  }

  /** A state, attempt after attempt as its retry allows. */
  #state(state: State, ctx: Context, input: Value, path: string): Promise<Outcome> {
    if (
      (state.retry?.maxAttempts ?? 1) <= 1 &&
      this.#deps.metrics === undefined &&
      !PURE_TYPES.has(state.type)
    ) {
      // One attempt, nothing to count: the attempt itself (no layer of promises around it).
      return withSpanIf(
        this.#stepTracer,
        SPAN_WORKFLOW_STEP,
        stepAttributes(this.#run.id, state, 1),
        () => this.#attempt(state, ctx, input, path, 1),
      );
    }
    return this.#stateAttempts(state, ctx, input, path);
  }

  /** `#state` with its retries, counting each attempt that ended. */
  async #stateAttempts(state: State, ctx: Context, input: Value, path: string): Promise<Outcome> {
    const max = state.retry?.maxAttempts ?? 1;
    for (let attempt = 1; ; attempt++) {
      // A step that needs nothing outside the run is computed at once, in a span of its own
      // that no other span nests under (no await, no active-span switch); the others in an
      // active span, so the agent runs they start nest under it.
      const outcome = PURE_TYPES.has(state.type)
        ? await this.#pureAttempt(state, ctx, input, path, attempt)
        : await withSpanIf(
            this.#stepTracer,
            SPAN_WORKFLOW_STEP,
            stepAttributes(this.#run.id, state, attempt),
            () => this.#attempt(state, ctx, input, path, attempt),
          );
      this.#counted(state, outcome);
      if (outcome.kind !== 'failed' || attempt >= max || !this.#retryable(state, outcome.error)) {
        return outcome;
      }
      // The wait before the next attempt is that attempt's row, due at a time: durable.
      const policy = state.retry!;
      const waitMs = Math.min(policy.maxMs, policy.initialMs * policy.multiplier ** (attempt - 1));
      const next = await this.#record(path, attempt + 1, state, {
        status: 'pending',
        wakeAt: new Date(this.#now().getTime() + waitMs),
      });
      if (next.status === 'pending' && next.wakeAt && next.wakeAt > this.#now()) {
        this.#currentStep = state.id;
        return { kind: 'blocked', wakeAt: next.wakeAt, approval: false };
      }
    }
  }

  /** Counts an attempt that ended in `workflow_steps_total`; answers `outcome` as it is. */
  #counted<T extends Outcome | Promise<Outcome>>(state: State, outcome: T): T {
    const { metrics } = this.#deps;
    if (metrics === undefined) return outcome;
    const count = (ended: Outcome): void => {
      if (ended.kind === 'blocked') return;
      workflowCounters(metrics)?.steps.add(1, {
        type: state.type,
        status: ended.kind === 'done' ? 'completed' : ended.status,
      });
    };
    if (outcome instanceof Promise) void outcome.then(count, () => undefined);
    else count(outcome as Outcome);
    return outcome;
  }

  /**
   * One attempt of a step that needs nothing outside the run (inject, cron, transform,
   * switch), in its span: its outcome at once, or a promise of it when it failed (the failure
   * is recorded before it is answered, as `#attempt` does).
   */
  #pureAttempt(
    state: State,
    ctx: Context,
    input: Value,
    path: string,
    attempt: number,
  ): Outcome | Promise<Outcome> {
    const span = this.#stepTracer?.startSpan(SPAN_WORKFLOW_STEP, {
      attributes: stepAttributes(this.#run.id, state, attempt),
    });
    let outcome: Outcome;
    try {
      outcome =
        this.#prior(state, path, attempt) ?? this.#pureStep(state, ctx, input, path, attempt);
    } catch (err) {
      if (span === undefined) return this.#failed(state, path, attempt, err);
      return this.#failed(state, path, attempt, err).then(
        (failed) => {
          span.end();
          return failed;
        },
        (error: unknown) => {
          recordSpanError(span, error);
          span.end();
          throw error;
        },
      );
    }
    span?.end();
    return outcome;
  }

  /** What a pure step gives (throws as its expressions do). */
  #pureStep(state: State, ctx: Context, input: Value, path: string, attempt: number): Outcome {
    this.#currentStep = state.id;
    switch (state.type) {
      case 'inject':
        return this.#pure(state, path, attempt, copyJson(state.data as Value));
      case 'cron':
        return this.#pure(state, path, attempt, input);
      case 'transform': {
        const value = evaluate(state.expression, scopeOf(ctx, input));
        return this.#pure(state, path, attempt, isObject(value) ? value : { result: value });
      }
      case 'switch':
        return this.#switch(state, ctx, input, path, attempt);
      default:
        throw new Error(`state "${state.id}" of type ${state.type} is not a pure step`);
    }
  }

  #retryable(state: State, error: string): boolean {
    const on = state.retry?.retryOn ?? [];
    return on.length === 0 || on.some((part) => error.includes(part));
  }

  /** The attempt row at `path`, written first if this is the first time it is met. */
  async #record(
    path: string,
    attempt: number,
    state: State,
    fields: Parameters<Store['workflowSteps']['start']>[1] extends infer F ? Partial<F> : never,
  ): Promise<WorkflowStep> {
    const key = `${path}@${attempt}`;
    const known = this.#attempts.get(key);
    if (known) return known;
    // Written with the records gathered before it, so attempts keep the order they began in.
    await this.flush([{ path, attempt, stepName: state.id, type: state.type, ...fields }]);
    const row =
      this.#attempts.get(key) ??
      (await this.#deps.store.workflowSteps.list(this.#run.id)).find(
        (r) => r.path === path && r.attempt === attempt,
      );
    if (row === undefined) throw new Error(`the record of step ${path} was not written`);
    this.#attempts.set(key, row);
    return row;
  }

  async #update(
    row: WorkflowStep,
    patch: Parameters<Store['workflowSteps']['update']>[1],
  ): Promise<WorkflowStep> {
    const updated = await this.#deps.store.workflowSteps.update(row.id, patch);
    this.#attempts.set(`${updated.path}@${updated.attempt}`, updated);
    return updated;
  }

  /** One attempt of a state. */
  async #attempt(
    state: State,
    ctx: Context,
    input: Value,
    path: string,
    attempt: number,
  ): Promise<Outcome> {
    const prior = this.#prior(state, path, attempt);
    if (prior !== undefined) return prior;
    this.#currentStep = state.id;
    try {
      switch (state.type) {
        case 'inject':
        case 'cron':
        case 'transform':
        case 'switch':
          return this.#pureStep(state, ctx, input, path, attempt);
        case 'timer':
          return await this.#timer(state, path, attempt);
        case 'agent':
          return await this.#agent(state, ctx, input, path, attempt);
        case 'human_approval':
          return await this.#approval(state, ctx, input, path, attempt);
        case 'parallel':
          return await this.#parallel(state, ctx, input, path, attempt);
        case 'foreach':
          return await this.#foreach(state, ctx, input, path, attempt);
        case 'try':
          return await this.#try(state, ctx, input, path, attempt);
      }
    } catch (err) {
      return this.#failed(state, path, attempt, err);
    }
  }

  /** The outcome of an attempt that already ended (a replay), or undefined. */
  #prior(state: State, path: string, attempt: number): Outcome | undefined {
    const prior = this.#attempts.get(`${path}@${attempt}`);
    if (prior === undefined) return undefined;
    if (prior.status === 'completed' && state.type !== 'human_approval') {
      const output = (prior.output ?? null) as Value;
      const next =
        state.type === 'switch' && isObject(output) && typeof output.next_state === 'string'
          ? output.next_state
          : undefined;
      return { kind: 'done', output, merged: output, ...(next !== undefined ? { next } : {}) };
    }
    if (prior.status === 'failed') {
      return {
        kind: 'failed',
        status: 'failed',
        error: prior.error ?? `state "${state.id}" failed`,
      };
    }
    return undefined;
  }

  /** An attempt that threw: recorded as failed (durably) and answered as its outcome. */
  async #failed(state: State, path: string, attempt: number, err: unknown): Promise<Outcome> {
    if (this.#signal.aborted) throw err;
    const error = `state "${state.id}": ${messageOf(err)}`;
    const row = await this.#record(path, attempt, state, { status: 'failed', error });
    if (row.status !== 'failed') await this.#update(row, { status: 'failed', error });
    return { kind: 'failed', status: 'failed', error };
  }

  /** A step that needs nothing outside the run: recorded once (with the next write), ended. */
  #pure(state: State, path: string, attempt: number, output: Value, next?: string): Outcome {
    const known = this.#attempts.get(`${path}@${attempt}`);
    if (known === undefined) {
      this.#pending.inserts.push({
        path,
        attempt,
        stepName: state.id,
        type: state.type,
        output,
        status: 'completed',
      });
    } else if (known.status !== 'completed') {
      this.#pending.updates.push({ id: known.id, patch: { status: 'completed', output } });
    }
    const done: Outcome = { kind: 'done', output, merged: output };
    if (next !== undefined) done.next = next;
    return done;
  }

  #switch(
    state: Extract<State, { type: 'switch' }>,
    ctx: Context,
    input: Value,
    path: string,
    attempt: number,
  ): Outcome {
    let extra: Record<string, Value> = {};
    if (state.dataPath !== undefined) {
      const value = getPath(scopeOf(ctx, input), state.dataPath);
      if (value === undefined)
        throw new Error(`dataPath ${state.dataPath} names nothing in the run context`);
      extra = { ...(isObject(value) ? value : {}), _value: value, result: value, val: value };
    }
    const scope = scopeOf(ctx, input, extra);
    for (const condition of state.conditions) {
      if (isTruthy(evaluate(condition.if, scope))) {
        return this.#pure(
          state,
          path,
          attempt,
          { matched_condition: condition.source, next_state: condition.next },
          condition.next,
        );
      }
    }
    if (state.defaultNext === undefined)
      throw new Error('no condition matched and there is no defaultNext');
    return this.#pure(
      state,
      path,
      attempt,
      { matched_condition: 'default', next_state: state.defaultNext },
      state.defaultNext,
    );
  }

  async #timer(
    state: Extract<State, { type: 'timer' }>,
    path: string,
    attempt: number,
  ): Promise<Outcome> {
    const row = await this.#record(path, attempt, state, {
      status: 'running',
      wakeAt: new Date(this.#now().getTime() + state.durationMs),
    });
    const due = row.wakeAt ?? this.#now();
    if (due > this.#now()) return { kind: 'blocked', wakeAt: due, approval: false };
    const output = {
      duration_ms: state.durationMs,
      started_at: row.startedAt?.toISOString() ?? null,
      resumed_at: this.#now().toISOString(),
    };
    await this.#update(row, { status: 'completed', output });
    return { kind: 'done', output, merged: output };
  }

  async #agent(
    state: AgentState,
    ctx: Context,
    input: Value,
    path: string,
    attempt: number,
  ): Promise<Outcome> {
    const task =
      state.task.trim() === ''
        ? `Execute workflow step "${state.id}" of workflow "${this.#model.name}".\n\nInput:\n${JSON.stringify(input, null, 2)}`
        : renderInContext(state.task, ctx, input);
    const variables: Record<string, string> = {};
    for (const [k, v] of Object.entries(state.variables)) {
      variables[k] = renderInContext(v, ctx, input);
    }
    const [agentName, environment] = state.agent.includes('@')
      ? (state.agent.split('@', 2) as [string, string])
      : [state.agent, undefined];
    // The run is submitted first, under a key of this attempt: a step resumed before its record
    // was written submits again and gets the same run. Its record is then written with the
    // records gathered so far, in one transaction.
    const key = `${agentRunKeyPrefix(this.#run.id)}${path}-${attempt}`;
    const row = this.#attempts.get(`${path}@${attempt}`);
    let runId = row?.runId ?? null;
    if (runId === null && row === undefined && this.#run.advances > 1) {
      // A resumed run whose record of this step was never written: its run, if it was
      // submitted, is found by its key (whatever its age), never submitted twice.
      runId =
        (await this.#deps.store.runs.findByIdempotencyKey(storedIdempotencyKey('workflow', key)))
          ?.id ?? null;
    }
    const startedAt = this.#now();
    if (runId === null) {
      const request: Parameters<RunDoor['submit']>[0] = {
        agent_name: agentName,
        task,
        source: 'workflow',
        idempotency_key: key,
      };
      if (environment !== undefined) request.environment = environment;
      else if (this.#run.environmentId !== null) request.environment_id = this.#run.environmentId;
      if (Object.keys(variables).length > 0) request.variables = variables;
      // The run's spans nest under this step's, whichever worker executes it.
      const traceParent = activeTraceParent();
      if (traceParent !== undefined) request.trace_parent = traceParent;
      if (state.timeoutMs !== undefined)
        request.timeout_seconds = Math.max(1, Math.round(state.timeoutMs / 1000));
      const { run } = await this.#deps.runs.submit(request, {
        origin: { workflowRunId: this.#run.id, workflowStep: path },
      });
      runId = run.id;
      if (row !== undefined) await this.#update(row, { runId });
    }
    // A new record goes with the next durable write (or the run's end): until then a resumed
    // run finds the step's run by its key, as above.
    const record =
      row === undefined
        ? {
            path,
            attempt,
            stepName: state.id,
            type: state.type,
            runId,
            status: 'running' as WorkflowStep['status'],
            input: { agent: state.agent, task, variables } as unknown,
            output: undefined as unknown,
            error: undefined as string | undefined,
            // Written later (with the next durable write): the times say when it really ran.
            startedAt,
            completedAt: undefined as Date | undefined,
          }
        : undefined;
    if (record) this.#pending.inserts.push(record);
    let run: Run;
    for (;;) {
      run = await this.#deps.runs.waitFor(runId, { timeoutMs: 30_000, signal: this.#signal });
      if (run.status !== 'queued' && run.status !== 'running') break;
      if (this.#signal.aborted) throw this.#signal.reason;
    }
    const ended = (end: {
      status: WorkflowStep['status'];
      output?: Value;
      error?: string;
    }): void => {
      const patch = { ...end, completedAt: run.completedAt ?? this.#now() };
      if (record) Object.assign(record, patch);
      else {
        const known = this.#attempts.get(`${path}@${attempt}`);
        if (known) this.#pending.updates.push({ id: known.id, patch });
      }
    };
    if (run.status === 'completed') {
      const output = agentOutput(run);
      ended({ status: 'completed', output });
      return { kind: 'done', output, merged: output };
    }
    const error = `state "${state.id}": agent run ${run.id} (${run.agentName}) ended ${run.status}: ${run.error ?? 'no reason given'}`;
    ended({ status: 'failed', error });
    return { kind: 'failed', status: run.status === 'timeout' ? 'timed_out' : 'failed', error };
  }

  async #approval(
    state: ApprovalState,
    ctx: Context,
    input: Value,
    path: string,
    attempt: number,
  ): Promise<Outcome> {
    const { store } = this.#deps;
    const approvalId = approvalIdOf(this.#run.id, path, attempt);
    const row = await this.#record(path, attempt, state, {
      status: 'waiting_approval',
      approvalId,
    });
    let approval = await store.approvals.get(approvalId);
    if (approval === undefined) {
      approval = await store.approvals
        .create({
          approvalId,
          workflowRunId: this.#run.id,
          stepName: state.id,
          stepPath: path,
          message: renderTemplate(state.message, scopeOf(ctx, input)),
          approvers: state.approvers,
          timeoutSeconds: state.timeoutSeconds,
        })
        .catch(async (err: unknown) => {
          // Created meanwhile by a worker that lost its lease: the same approval.
          const existing = await store.approvals.get(approvalId);
          if (existing) return existing;
          throw err;
        });
    }
    if (
      approval.status === 'pending' &&
      approval.expiresAt !== null &&
      approval.expiresAt <= this.#now()
    ) {
      await store.approvals.expireDue(this.#now());
      approval = (await store.approvals.get(approvalId)) ?? approval;
    }
    if (
      approval.status === 'pending' &&
      approval.notifiedAt === null &&
      this.#deps.onApprovalRequested
    ) {
      await this.#deps.onApprovalRequested(approval, this.#run);
      await store.approvals.markNotified(approvalId);
    }
    const decided = {
      approval_id: approval.approvalId,
      status: approval.status,
      approver: approval.decidedBy,
      comment: approval.comment,
    };
    switch (approval.status) {
      case 'pending':
        this.#currentStep = state.id;
        return { kind: 'blocked', wakeAt: approval.expiresAt, approval: true };
      case 'approved': {
        const output = { approved: true, ...decided };
        if (row.status !== 'approved') await this.#update(row, { status: 'approved', output });
        return { kind: 'done', output, merged: output };
      }
      case 'rejected': {
        const output = { approved: false, reason: approval.comment, ...decided };
        if (row.status !== 'rejected') await this.#update(row, { status: 'rejected', output });
        if (state.onRejected !== undefined)
          return { kind: 'done', output, merged: output, next: state.onRejected };
        return {
          kind: 'failed',
          status: 'failed',
          error: `approval ${approval.approvalId} was rejected${approval.decidedBy ? ` by ${approval.decidedBy}` : ''}${approval.comment ? `: ${approval.comment}` : ''}`,
        };
      }
      case 'cancelled':
        // Withdrawn with its run's cancel: the run has ended, nothing follows.
        return {
          kind: 'failed',
          status: 'failed',
          error: `approval ${approval.approvalId} was withdrawn: the workflow run was cancelled`,
        };
      case 'timed_out': {
        const output = { approved: false, ...decided };
        if (row.status !== 'timed_out') {
          await this.#update(row, { status: 'timed_out', output });
          // A timeout is a decision nobody made: audited like the others.
          void store.auditLog
            .record({
              source: 'workflow',
              action: 'approval_timed_out',
              arguments: { approval_id: approval.approvalId },
              outcome: 'success',
              details: { workflow_run_id: this.#run.id, step: state.id },
            })
            .catch(() => undefined);
        }
        if (state.onTimeout !== undefined)
          return { kind: 'done', output, merged: output, next: state.onTimeout };
        return {
          kind: 'failed',
          status: 'timed_out',
          error: `approval ${approval.approvalId} was not decided within ${approval.timeoutSeconds ?? state.timeoutSeconds} s`,
        };
      }
    }
  }

  async #parallel(
    state: ParallelState,
    ctx: Context,
    input: Value,
    path: string,
    attempt: number,
  ): Promise<Outcome> {
    const outcomes = await Promise.all(
      state.branches.map((branch, i) =>
        this.#graph(branch, copyValue(ctx), `${path}/${state.branchNames[i] ?? i}/`, input),
      ),
    );
    const stop = blockedTogether(outcomes);
    if (stop) return stop;
    const results = outcomes.map((o) =>
      o.kind === 'done' ? (isObject(o.merged) ? o.merged : o.output) : null,
    );
    const output: Value =
      state.aggregation === 'array'
        ? { results }
        : Object.fromEntries(results.map((r, i) => [state.branchNames[i] ?? `branch_${i}`, r]));
    return this.#pure(state, path, attempt, output);
  }

  async #foreach(
    state: ForeachState,
    ctx: Context,
    input: Value,
    path: string,
    attempt: number,
  ): Promise<Outcome> {
    const scope = scopeOf(ctx, input);
    const items =
      getPath(scope, state.itemsPath) ??
      (isObject(input) ? getPath(input, state.itemsPath) : undefined);
    if (!Array.isArray(items)) {
      throw new Error(
        `itemsPath ${state.itemsPath} must name a list in the run context; it names ${items === undefined ? 'nothing' : JSON.stringify(items).slice(0, 60)}`,
      );
    }
    if (items.length > MAX_ITEMS)
      throw new Error(
        `itemsPath ${state.itemsPath} holds ${items.length} items; the most is ${MAX_ITEMS}`,
      );
    const outcomes: Outcome[] = new Array(items.length);
    let nextIndex = 0;
    const lane = async (): Promise<void> => {
      while (nextIndex < items.length) {
        const i = nextIndex++;
        const copy = copyValue(ctx);
        copy[state.itemName] = copyValue(items[i] as Value);
        copy._index = i;
        copy._total = items.length;
        outcomes[i] = await this.#graph(state.iterator, copy, `${path}/${i}/`, items[i] as Value);
      }
    };
    await Promise.all(
      Array.from({ length: Math.min(state.maxConcurrency, Math.max(items.length, 1)) }, lane),
    );
    const stop = blockedTogether(outcomes);
    if (stop) return stop;
    const results = outcomes.map((o, i) => ({
      item: items[i] as Value,
      index: i,
      output: o.kind === 'done' ? (isObject(o.merged) ? o.merged : o.output) : null,
    }));
    return this.#pure(
      state,
      path,
      attempt,
      state.aggregation === 'array' ? results : { results, count: results.length },
    );
  }

  async #try(
    state: TryState,
    ctx: Context,
    input: Value,
    path: string,
    attempt: number,
  ): Promise<Outcome> {
    const tried = await this.#graph(state.try, ctx, `${path}/try/`, input);
    if (tried.kind === 'blocked') return tried;
    let output: Record<string, Value>;
    let failure: Outcome | undefined;
    if (tried.kind === 'done') {
      output = { block: 'try', try_output: tried.output };
    } else if (state.catch === undefined) {
      output = { block: 'try', try_error: tried.error };
      failure = tried;
    } else {
      ctx._error = tried.error;
      const caught = await this.#graph(state.catch, ctx, `${path}/catch/`, { error: tried.error });
      if (caught.kind === 'blocked') return caught;
      output = {
        block: 'catch',
        try_error: tried.error,
        ...(caught.kind === 'done'
          ? { catch_output: caught.output }
          : { catch_error: caught.error }),
      };
      if (caught.kind === 'failed') failure = caught;
    }
    if (state.finally !== undefined) {
      const after = await this.#graph(state.finally, ctx, `${path}/finally/`, output);
      if (after.kind === 'blocked') return after;
      if (after.kind === 'failed') return after;
      output.finally_output = after.output;
    }
    if (failure) return failure;
    return this.#pure(state, path, attempt, output);
  }
}

/** The attributes of a step attempt's span. */
function stepAttributes(
  runId: number,
  state: State,
  attempt: number,
): Record<string, string | number> {
  return {
    'workflow.run_id': runId,
    'workflow.step': state.id,
    'workflow.step_type': state.type,
    'workflow.step_attempt': attempt,
  };
}

/** How the idempotency keys of a workflow run's agent runs begin (as sent; stored under the `workflow` source). */
function agentRunKeyPrefix(workflowRunId: number): string {
  return `wf-${workflowRunId}-`;
}

function withSpanIf<T>(
  tracer: Tracer | undefined,
  name: string,
  attributes: Record<string, string | number>,
  fn: () => Promise<T>,
): Promise<T> {
  return tracer === undefined ? fn() : withSpan(tracer, name, attributes, () => fn());
}

const counters = new WeakMap<Metrics, ReturnType<typeof makeCounters>>();

function makeCounters(metrics: Metrics) {
  return {
    runs: metrics.meter.createCounter('workflow_runs_total', {
      description: 'Workflow runs that ended, by workflow and status',
    }),
    steps: metrics.meter.createCounter('workflow_steps_total', {
      description: 'Workflow step attempts that ended, by state type and status',
    }),
  };
}

/** The workflow counters of a process's metrics (made once per Metrics). */
export function workflowCounters(
  metrics: Metrics | undefined,
): ReturnType<typeof makeCounters> | undefined {
  if (metrics === undefined) return undefined;
  let made = counters.get(metrics);
  if (made === undefined) {
    made = makeCounters(metrics);
    counters.set(metrics, made);
  }
  return made;
}
