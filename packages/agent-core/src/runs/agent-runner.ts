import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setMaxListeners } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import {
  generateText,
  jsonSchema,
  Output,
  stepCountIs,
  streamText,
  type LanguageModel,
  type ModelMessage,
  type StepResult,
  type StopCondition,
  type ToolSet,
} from 'ai';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { parsePrompt, renderPrompt, type AgentDefinition } from '@junction/config-templates';
import type { Agent, Run, Store } from '@junction/store';
import { isStoreError } from '@junction/store';
import type { Logger, Metrics, Tracer } from '@junction/telemetry';
import {
  agentExecuteAttributes,
  collectSecretValues,
  createRedactor,
  isSecretKey,
  type Redactor,
  SPAN_AGENT_EXECUTE,
  recordSpanError,
  withSpan,
} from '@junction/telemetry';
import { AgentCoreError, isAgentCoreError } from '../errors.js';
import type { McpClientPool } from '../mcp/mcp-client-pool.js';
import { classifyProviderError } from '../models/model-errors.js';
import { storeWaitOf, whileStoreAway } from './store-retry.js';
import {
  modelSecrets,
  resolveModel,
  type ModelSettings,
  type ResolvedModel,
} from '../models/model-factory.js';
import { withModelTurns, type ModelTurn } from '../models/model-turns.js';
import { CANCELLED_MESSAGE, DEFAULT_LEASE_MS, RunCancelled, RunInterrupted } from './lease.js';
import {
  AttemptJournal,
  toolResumePolicy,
  type ResumeSettings,
  type ToolResumePolicy,
  type UnknownOutcomeAction,
} from './attempt-journal.js';
import {
  emptyJournal,
  readJournal,
  replayingModel,
  type RunJournal,
  type TurnAnswer,
} from './run-journal.js';
import { RunRecorder } from './run-recorder.js';
import { runNotFound, submitRun } from './submit-run.js';
import { isFinal } from './run-workers.js';
import { createModelCheck, type ModelCheck } from '../models/model-check.js';
import { exportedTask, withRunSecrets } from './task-redaction.js';
import {
  buildRunTools,
  subAgentToolName,
  loadToolWiring,
  type LocalTool,
  type ToolCallRecord,
  type ToolWiring,
} from './run-tools.js';

/** What a run reports as it goes (the CLI prints these live). */
export type RunProgressEvent =
  | { type: 'model_turn'; runId: number; turn: ModelTurn }
  | { type: 'tool_call'; runId: number; call: ToolCallRecord }
  | { type: 'sub_agent'; runId: number; childRunId: number; agent: string; status: string }
  /** A model call failed and is tried again after `delayMs` (a 429 or 5xx, a network error). */
  | { type: 'model_retry'; runId: number; attempt: number; delayMs: number; status: number | null }
  /** Progress a process-given tool reports while it works (a coding task's stream: `coding_event`). */
  | { type: 'tool_progress'; runId: number; eventType: string; payload: Record<string, unknown> };

/** What a tool provider knows of the run it gives tools to. */
export interface RunToolContext {
  run: Run;
  agent: Agent;
  definition: AgentDefinition;
  environment: string;
  /** The runner's tracer: a tool's own work (a coding task) is a span under its `tool.call`. */
  tracer: Tracer;
  /**
   * Records an event of this run (secrets redacted) and hands it to whoever watches the run
   * as a `tool_progress` event.
   */
  event(type: string, payload: Record<string, unknown>): void;
}

/** Gives runs tools beyond the agent's bindings (the coding tools), decided per run. */
export interface RunToolProvider {
  tools(context: RunToolContext): readonly LocalTool[] | Promise<readonly LocalTool[]>;
}

export interface AgentRunnerDeps {
  store: Store;
  pool: McpClientPool;
  logger: Logger;
  tracer: Tracer;
  metrics?: Metrics;
  /** ai_provider, ai_model, ai_base_url, ai_api_key from the config. */
  modelSettings: ModelSettings;
  /** Where API keys are read from; also the secrets redacted from records. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Per-run timeout when neither the caller nor the agent sets one. */
  defaultTimeoutMs: number;
  /** Retries of a transient provider error (429, 5xx, network) per model call. Default 3. */
  maxRetries?: number;
  /** Tool results and arguments longer than this are cut in run events. Default 8000. */
  maxEventChars?: number;
  /** A worker's hold on a run; renewed while the run goes. Default DEFAULT_LEASE_MS. */
  leaseMs?: number;
  /** Clock of run durations. Default `() => new Date()`. */
  now?: () => Date;
  /** Tools the process gives runs beyond each agent's own (see RunToolProvider). */
  toolProviders?: readonly RunToolProvider[];
  /** How a resumed run treats calls whose outcome is unknown (`runs.on_unknown_outcome`, `runs.tools`). */
  resume?: ResumeSettings;
  /** False only for bench/durable-step (see AttemptJournalOptions.writes). Default true. */
  journalWrites?: boolean;
}

export interface ExecuteOptions {
  /** The worker that claimed the run (its lease is renewed under this id). */
  workerId: string;
  /** Aborting cancels the run; abort with a `RunInterrupted` reason to requeue it instead. */
  signal?: AbortSignal;
  /** Overrides the run's own, the agent's and the config's timeout. */
  timeoutMs?: number;
  onEvent?: (event: RunProgressEvent) => void;
  /**
   * Told each time the run (or one of its sub-agents' runs) wrote events to the store, about
   * once a second while it goes: hosts following it read them then (RunBus.publishEvents).
   */
  onWritten?: (runId: number) => void;
  /**
   * The answer's text as it arrives (a person watching at a terminal): the run's model calls
   * are streamed. Not for a sub-agent's run, nor an agent with an output schema (those are
   * generated whole, as without it).
   */
  onText?: (delta: string) => void;
}

/** Abort reason of a run whose lease this worker no longer holds. */
export class LeaseLost extends Error {
  readonly runId: number;
  constructor(runId: number, workerId: string) {
    super(
      `worker ${workerId} no longer holds run ${runId}; another worker or recovery took it over`,
    );
    this.name = 'LeaseLost';
    this.runId = runId;
  }
}

const MAX_DEPTH = 5;

/**
 * How a sub-agent's call is resumed: it waits for its turn's fence (its run is keyed by the
 * call, so the call must be in the journal before the run is written), and is made again when
 * its outcome is unknown: that finds the run an earlier attempt started, never a second one.
 */
const SUB_AGENT_RESUME: ToolResumePolicy = { safe: false, action: 'retry' };

/** How often a resumed parent looks at a sub-agent's run that another worker executes. */
const CHILD_POLL_MS = 250;

/** A prompt file as a run reads it: its text (what a run pins) and its definition. */
interface PromptFile {
  source: string;
  def: AgentDefinition;
}

async function readPromptFile(file: string): Promise<PromptFile> {
  const source = await readFile(file, 'utf8');
  return { source, def: await parsePrompt(source, file) };
}

/** The answer of a turn with secrets taken out, as the journal keeps it. */
function redactedAnswer(answer: TurnAnswer, redactor: Redactor): TurnAnswer {
  return {
    ...answer,
    content: answer.content.map((part) => {
      if (part.type === 'text' || part.type === 'reasoning')
        return { ...part, text: redactor.text(part.text) };
      if (part.type === 'tool-call') return { ...part, input: redactor.text(part.input) };
      return part;
    }),
  };
}

/** The turns' token counts added up. */
function journalTokens(journal: RunJournal): { input: number; output: number } {
  let input = 0;
  let output = 0;
  for (const turn of journal.turns) {
    input += turn.usage.inputTokens.total ?? 0;
    output += turn.usage.outputTokens.total ?? 0;
  }
  return { input, output };
}

function cut(text: string, max: number): string {
  return text.length <= max
    ? text
    : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

function agentTimeoutMs(def: AgentDefinition): number | undefined {
  const raw = def.frontMatter.timeout_seconds;
  return typeof raw === 'number' && raw > 0 ? raw * 1000 : undefined;
}

/**
 * Executes claimed runs: renders the prompt file, exposes the agent's tools, loops model →
 * tools → model for at most max_steps turns under a timeout, and records every turn and
 * tool call. A run's failure is recorded on the run, not thrown.
 */
export class AgentRunner {
  readonly #deps: AgentRunnerDeps;
  /** Milliseconds now, from the injected clock. */
  readonly #now: () => number;
  /** Built once: redaction runs on every turn and tool call. */
  readonly #redactor: Redactor;
  /** Prompt files (text and parsed), reused while the file's size and mtime are unchanged. */
  readonly #prompts = new Map<string, { key: string; prompt: Promise<PromptFile> }>();
  /** Records of runs whose end this runner wrote (not one someone else had already written). */
  readonly #endedHere = new WeakSet<Run>();
  /** Redactors per tool wiring: the process's secrets plus the wiring's servers' (see #runRedactor). */
  readonly #wiringRedactors = new WeakMap<ToolWiring, Redactor>();
  /** Resolved models by model id (see #model). */
  readonly #models = new Map<string, ResolvedModel>();
  /** Tool bindings per agent, reused until the agent or its environment's last sync changes. */
  readonly #wiring = new Map<number, { key: string; wiring: Promise<ToolWiring> }>();
  /** How to stop each run executing here (sub-agents' too), by run id. */
  readonly #stops = new Map<number, AbortController>();
  /** The run door's model check, for sub-agents' runs (made on first use). */
  #checkModel: ModelCheck | undefined;

  constructor(deps: AgentRunnerDeps) {
    this.#deps = deps;
    const now = deps.now;
    this.#now = now ? (): number => now().getTime() : Date.now;
    const env = deps.env ?? process.env;
    this.#redactor = createRedactor([
      ...collectSecretValues(env),
      ...modelSecrets(deps.modelSettings, env),
    ]);
  }

  async #prompt(file: string): Promise<PromptFile> {
    // One metadata call per run: synchronous costs a few microseconds, where the promise form
    // goes through the thread pool and back, on every run's critical path.
    const info = statSync(file);
    const key = `${info.size}:${info.mtimeMs}`;
    const cached = this.#prompts.get(file);
    if (cached?.key === key) return cached.prompt;
    const prompt = readPromptFile(file);
    this.#prompts.set(file, { key, prompt });
    prompt.catch(() => this.#prompts.delete(file));
    return prompt;
  }

  /** Every provider's tools for this run, in the providers' order. */
  async #localTools(context: RunToolContext): Promise<LocalTool[]> {
    const out: LocalTool[] = [];
    for (const provider of this.#deps.toolProviders ?? [])
      out.push(...(await provider.tools(context)));
    return out;
  }

  #toolWiring(agent: Agent, syncedAt: Date | null | undefined): Promise<ToolWiring> {
    const key = `${agent.updatedAt.getTime()}:${syncedAt?.getTime() ?? 0}`;
    const cached = this.#wiring.get(agent.id);
    if (cached?.key === key) return cached.wiring;
    const wiring = loadToolWiring(this.#deps.store, agent);
    this.#wiring.set(agent.id, { key, wiring });
    wiring.catch(() => this.#wiring.delete(agent.id));
    return wiring;
  }

  /**
   * What a run's records are cleaned of: the process's secrets, the secret-named environment
   * values and the headers of the agent's tool servers (resolved from variables.yml at sync),
   * and the values of the run's secret-named variables — one rule for every value a tool could
   * echo back into an answer, an event or an error.
   */
  #runRedactor(wiring: ToolWiring, variables: Record<string, string>): Redactor {
    let forWiring = this.#wiringRedactors.get(wiring);
    if (!forWiring) {
      const values: string[] = [];
      for (const { server } of wiring.mcp) {
        for (const [name, value] of Object.entries(server.env ?? {})) {
          if (isSecretKey(name)) values.push(value);
        }
        for (const [name, value] of Object.entries(server.headers ?? {})) {
          if (isSecretKey(name)) values.push(value.replace(/^Bearer\s+/i, ''), value);
        }
      }
      forWiring =
        values.length === 0
          ? this.#redactor
          : createRedactor([...this.#redactor.secrets, ...values]);
      this.#wiringRedactors.set(wiring, forWiring);
    }
    return withRunSecrets(forWiring, variables);
  }

  /**
   * The model of an id, built once per id: settings and environment are fixed for the runner's
   * life, and building a provider client on every run sat on the run's critical path. A model
   * that cannot be resolved throws every time (nothing is kept for it).
   */
  #model(modelId: string | undefined): ResolvedModel {
    const key = modelId ?? '';
    let resolved = this.#models.get(key);
    if (!resolved) {
      resolved = resolveModel(modelId, this.#deps.modelSettings, this.#deps.env ?? process.env);
      if (this.#models.size >= 100) this.#models.clear();
      this.#models.set(key, resolved);
    }
    return resolved;
  }

  /**
   * True when `run` (a record execute returned) was ended by this runner; false when someone
   * else had ended or taken it (its lease was lost, recovery failed it): they report that end.
   */
  endedHere(run: Run): boolean {
    return this.#endedHere.has(run);
  }

  /** Runs a claimed (`running`) run to its end and returns the finished record. */
  async execute(run: Run, options: ExecuteOptions): Promise<Run> {
    return this.#execute(run, options, await this.#depthOf(run));
  }

  /** How deep a run is nested: 0 for a run of its own, 1 for a sub-agent's run of it, … */
  async #depthOf(run: Run): Promise<number> {
    let depth = 0;
    for (let parent = run.parentRunId; parent !== null && depth <= MAX_DEPTH; depth++) {
      parent = (await this.#deps.store.runs.get(parent))?.parentRunId ?? null;
    }
    return depth;
  }

  /**
   * Asks a run executing here to stop: its model call is aborted at once, a tool call in flight
   * returns first, and the run ends `cancelled` (a sub-agent's run too, ending its parent's tool
   * call with that). False when no such run executes here.
   */
  cancel(runId: number): boolean {
    const stop = this.#stops.get(runId);
    if (!stop) return false;
    if (!stop.signal.aborted) stop.abort(new RunCancelled());
    return true;
  }

  async #execute(run: Run, options: ExecuteOptions, depth: number): Promise<Run> {
    const { store, logger, tracer } = this.#deps;
    const started = this.#now();
    const found =
      run.agentId !== null ? await store.agents.getWithEnvironment(run.agentId) : undefined;
    const agent = found?.agent;
    const env = found?.environment;
    const environment = env?.name ?? '';
    const attrs = agentExecuteAttributes({
      runId: run.id,
      agentId: agent?.id ?? run.agentId ?? 0,
      agentName: run.agentName,
      environment,
      // The record keeps the task as sent (the model needs it); a trace is exported, so its
      // copy is cleaned by the rule of the run's records (docs/decisions.md, issue 31).
      task: exportedTask(run, this.#redactor),
      ...(agent?.model ? { model: agent.model } : {}),
      ...(agent?.maxSteps ? { maxSteps: agent.maxSteps } : {}),
    });
    const lease = this.#deps.leaseMs ?? DEFAULT_LEASE_MS;
    // Stops the run: its lease was lost (it stalled past the lease and another worker took it
    // over, or recovery failed it: no use running to an end that would be refused), or someone
    // asked it to stop (`cancel`). The abort reason tells which.
    const halt = new AbortController();
    const renew = setInterval(
      () => {
        void store.runs.renewLease(run.id, options.workerId, lease).then(
          (held) => {
            if (!held) halt.abort(new LeaseLost(run.id, options.workerId));
          },
          () => undefined,
        );
      },
      Math.max(1000, lease / 3),
    );
    renew.unref();
    this.#stops.set(run.id, halt);
    // Asked to stop before it started here (between its claim and now).
    if (run.cancelRequestedAt !== null) halt.abort(new RunCancelled());
    const signal = options.signal ? AbortSignal.any([options.signal, halt.signal]) : halt.signal;
    try {
      const finished = await withSpan(
        tracer,
        SPAN_AGENT_EXECUTE,
        attrs,
        async (span) => {
          const ended = await this.#loop(
            run,
            agent,
            environment,
            env?.lastSyncedAt,
            { ...options, signal },
            depth,
            span.spanContext().traceId,
          );
          // The loop answers a failure with the run's record, not a throw: the span says so too.
          span.setAttribute('run.status', ended.status);
          if (ended.status === 'error' || ended.status === 'timeout') {
            recordSpanError(span, new Error(ended.error ?? `the run ended ${ended.status}`));
          }
          return ended;
        },
        // A run a workflow step (or a schedule's fire, a platform request) started nests under
        // it, whichever worker executes it; every span inside carries this run's id.
        { parent: run.traceParent, runId: run.id },
      );
      if (halt.signal.reason instanceof LeaseLost && !this.#endedHere.has(finished)) {
        // Whoever took the run over (or recovery, which failed it) reports its end, not us.
        logger.warn('run stopped: its lease was lost', {
          agent_id: run.agentId,
          agent_name: run.agentName,
          run_id: run.id,
          worker_id: options.workerId,
          held_by: finished.workerId,
          run_status: finished.status,
        });
        return finished;
      }
      if (finished.status === 'queued') {
        // Interrupted by a graceful stop and put back: not an outcome (it will end elsewhere).
        logger.info('run re-queued', {
          agent_id: run.agentId,
          agent_name: run.agentName,
          run_id: run.id,
          run_status: finished.status,
        });
        return finished;
      }
      const ok = finished.status === 'completed';
      const durationMs = this.#now() - started;
      this.#deps.metrics?.recordRun({
        agentName: run.agentName,
        status: ok ? 'success' : 'error',
        durationSeconds: durationMs / 1000,
        steps: finished.stepsTaken,
      });
      const fields = {
        agent_id: run.agentId,
        agent_name: run.agentName,
        run_id: run.id,
        duration_ms: durationMs,
        status: ok ? 'success' : 'error',
        run_status: finished.status,
        steps_taken: finished.stepsTaken,
        // Written after the run's span ended: its trace is named here (see the logger).
        ...(finished.traceId ? { trace_id: finished.traceId } : {}),
      };
      if (ok) logger.info('run completed', fields);
      // Someone asked it to stop (Ctrl-C, a cancel): an outcome, not a failure to look into.
      else if (finished.status === 'cancelled')
        logger.info('run cancelled', { ...fields, status: 'cancelled' });
      else logger.error('run failed', { ...fields, error: finished.error });
      return finished;
    } finally {
      clearInterval(renew);
      this.#stops.delete(run.id);
    }
  }

  /**
   * A sub-agent's run, through the run door, keyed by the parent's call (its idempotency key):
   * written claimed by this worker and executed here. A resumed parent that asks for the same
   * call again gets the run an earlier attempt started — its result once it has ended (waiting
   * for it while another worker executes it, or executing it here when it waits in the queue) —
   * never a second run.
   */
  async #subAgentRun(
    parent: Run,
    child: { sub: Agent; task: string; variables: Record<string, string>; key: string | undefined },
    options: ExecuteOptions & { signal: AbortSignal },
    depth: number,
    storedOnce: <T>(call: () => Promise<T>) => Promise<T>,
  ): Promise<Run> {
    const { store } = this.#deps;
    const leaseMs = this.#deps.leaseMs ?? DEFAULT_LEASE_MS;
    const checkModel = (this.#checkModel ??= createModelCheck(
      this.#deps.modelSettings,
      this.#deps.env ?? process.env,
    ));
    const submitted = await storedOnce(() =>
      submitRun(
        { store, checkModel },
        {
          agent_id: child.sub.id,
          task: child.task,
          variables: child.variables,
          source: parent.source,
          parent_run_id: parent.id,
          ...(child.key !== undefined ? { idempotency_key: child.key } : {}),
        },
        { claimedBy: { workerId: options.workerId, leaseMs } },
      ),
    );
    // A graceful stop lets the sub-agent's run finish, as any tool call under way.
    const here = (claimed: Run): Promise<Run> =>
      this.#execute(claimed, { ...options, signal: unlessInterrupted(options.signal) }, depth + 1);
    if (!submitted.replayed) return here(submitted.run);
    for (let current: Run | undefined = submitted.run; ; ) {
      if (!current) throw runNotFound(submitted.run.id);
      if (isFinal(current)) return current;
      if (current.status === 'queued') {
        const claimed = await store.runs.claim(current.id, options.workerId, leaseMs);
        if (claimed) return here(claimed);
      }
      await delay(CHILD_POLL_MS, undefined, { signal: options.signal }).catch(() => undefined);
      if (options.signal.aborted) throw options.signal.reason;
      current = await store.runs.get(current.id);
    }
  }

  async #loop(
    run: Run,
    agent: Agent | undefined,
    environment: string,
    syncedAt: Date | null | undefined,
    options: ExecuteOptions,
    depth: number,
    traceId: string,
  ): Promise<Run> {
    const { store } = this.#deps;
    const maxChars = this.#deps.maxEventChars ?? 8000;
    let steps = 0;
    let inputTokens = 0;
    let outputTokens = 0;
    let modelId: string | null = run.model;
    const cancel = options.signal;
    let timeout: AbortController | undefined;
    let timer: NodeJS.Timeout | undefined;
    const emit = options.onEvent ?? ((): void => undefined);
    // A store call of the run waits out an outage its lease outlasts (the run's cancel stops it).
    const storeWait = storeWaitOf(this.#deps.leaseMs ?? DEFAULT_LEASE_MS, {
      ...(cancel ? { signal: cancel } : {}),
      onWait: (err) =>
        this.#deps.logger.warn('store unavailable: the run waits for it', {
          run_id: run.id,
          agent_name: run.agentName,
          error: (err as Error).message,
        }),
    });
    const stored = <T>(call: () => Promise<T>): Promise<T> => whileStoreAway(call, storeWait);
    // An insert (a child run, an event) is repeated only if it never reached the store.
    const storedOnce = <T>(call: () => Promise<T>): Promise<T> =>
      whileStoreAway(call, { ...storeWait, onlyUnsent: true });
    const recorder = new RunRecorder(store, run.id, {
      workerId: options.workerId,
      onWritten: options.onWritten,
      wait: storeWait,
    });
    // Aborted with the reason when a tool call must stop the run (its store write failed, or a
    // resumed run met a call whose outcome is unknown): the run ends with it.
    const storeFailed = new AbortController();
    // The process's secrets, then (once the agent's tools are known) its tool servers' too.
    let redactor = this.#redactor;
    /** What the run's end records of its progress, however it ends. */
    const progress = (): {
      stepsTaken: number;
      inputTokens: number;
      outputTokens: number;
      model: string | null;
      traceId: string;
      workerId: string;
    } => ({
      stepsTaken: steps,
      inputTokens,
      outputTokens,
      model: modelId,
      traceId,
      workerId: options.workerId,
    });
    try {
      if (!agent) {
        throw new AgentCoreError(
          'AGENT_NOT_FOUND',
          `Agent "${run.agentName}" no longer exists; sync its environment or run another agent.`,
          { agent: run.agentName },
        );
      }
      if (!agent.promptPath) {
        throw new AgentCoreError(
          'AGENT_INVALID',
          `Agent "${agent.name}" has no prompt file; sync its environment.`,
          {
            agent: agent.name,
          },
        );
      }
      if (depth >= MAX_DEPTH) {
        throw new AgentCoreError(
          'AGENT_INVALID',
          `Sub-agents are nested more than ${MAX_DEPTH} deep (agent "${agent.name}"); check the agents: lists for a cycle.`,
          { agent: agent.name },
        );
      }
      // A resumed attempt goes on with what the run started with (pinned before it first acted),
      // and from where its journal ends.
      const pinned = run.pinned;
      const journal: RunJournal =
        run.attempt > 1 || pinned
          ? readJournal(await stored(() => store.runEvents.journal(run.id)))
          : emptyJournal();
      const { source, def } = pinned
        ? { source: pinned.prompt, def: await parsePrompt(pinned.prompt, agent.promptPath) }
        : await this.#prompt(agent.promptPath);
      const schema = def.output?.jsonSchema;
      // Streamed only for the caller watching this run, and not when the answer is an object.
      const onText = depth === 0 && !schema ? options.onText : undefined;
      const wiring = await this.#toolWiring(agent, syncedAt);
      redactor = this.#runRedactor(wiring, run.variables);
      const resolved = this.#model(pinned?.model ?? def.model ?? agent.model ?? undefined);
      modelId = resolved.id;
      steps = journal.turns.length;
      const tokens = journalTokens(journal);
      inputTokens = tokens.input;
      outputTokens = tokens.output;
      recorder.record(
        run.attempt > 1
          ? [
              {
                type: 'resumed',
                payload: {
                  attempt: run.attempt,
                  worker_id: options.workerId,
                  from_step: journal.turns.length + 1,
                  replayed_tool_calls: journal.outcomes.size,
                },
              },
            ]
          : [],
        { traceId, model: modelId },
      );
      const prompt = await renderPrompt(def, {
        userInput: run.task,
        variables: run.variables,
        agentName: agent.name,
        environment,
      });

      const timeoutMs =
        options.timeoutMs ?? run.timeoutMs ?? agentTimeoutMs(def) ?? this.#deps.defaultTimeoutMs;
      timeout = new AbortController();
      timer = setTimeout(
        () => timeout?.abort(new Error(`timed out after ${timeoutMs} ms`)),
        timeoutMs,
      );
      timer.unref();
      const signal = AbortSignal.any([
        ...(cancel ? [cancel] : []),
        timeout.signal,
        storeFailed.signal,
      ]);
      // Every tool call and retry listens on it; a long run legitimately has many.
      setMaxListeners(1000, signal);

      // The tools' annotations, by name, for the resume policy of a call.
      const annotations = new Map(wiring.mcp.map(({ tool }) => [tool.name, tool.annotations]));
      const subAgentTools = new Set(wiring.subAgents.map((sub) => subAgentToolName(sub.name)));
      const agentAction = def.frontMatter.on_unknown_outcome as UnknownOutcomeAction | undefined;
      const policies = new Map<string, ToolResumePolicy>();
      const attempt = new AttemptJournal({
        runId: run.id,
        workerId: options.workerId,
        recorder,
        journal,
        redactor,
        ...(this.#deps.journalWrites === false ? { writes: false } : {}),
        pin: () => ({ prompt: source, model: resolved.id, tools: Object.keys(tools) }),
        // Asked at every call (its fence, its outcome): decided once per tool of the run.
        policy: (call) => {
          let policy = policies.get(call.tool);
          if (!policy) {
            policy = subAgentTools.has(call.tool)
              ? SUB_AGENT_RESUME
              : toolResumePolicy(this.#deps.resume ?? {}, {
                  tool: call.tool,
                  environment,
                  agent: agent.name,
                  annotations: annotations.get(call.tool),
                  agentAction,
                });
            policies.set(call.tool, policy);
          }
          return policy;
        },
      });
      const turns = withModelTurns(resolved.model as LanguageModelV3, {
        stepsBefore: journal.turns.length,
        tracer: this.#deps.tracer,
        ...(this.#deps.metrics ? { metrics: this.#deps.metrics } : {}),
        modelId: resolved.id,
        provider: resolved.provider,
        maxRetries: this.#deps.maxRetries ?? 3,
        onRetry: (retry) => emit({ type: 'model_retry', runId: run.id, ...retry }),
        ...(onText ? { onTextDelta: onText } : {}),
        onTurn: async (turn) => {
          steps = turn.step;
          inputTokens += turn.inputTokens;
          outputTokens += turn.outputTokens;
          attempt.noteTurn(turn.step, turn.answer);
          recorder.record(
            [
              {
                type: 'model_turn',
                durationMs: turn.latencyMs,
                payload: {
                  step: turn.step,
                  model: turn.model,
                  input_tokens: turn.inputTokens,
                  output_tokens: turn.outputTokens,
                  finish_reason: turn.finishReason,
                  ...(turn.text ? { text: cut(redactor.text(turn.text), maxChars) } : {}),
                  tool_calls: turn.toolCalls,
                },
                journal: redactedAnswer(turn.answer, redactor),
              },
            ],
            { stepsTaken: steps, inputTokens, outputTokens },
            // A turn that asks for tool calls is journaled by the fence its calls pass.
            turn.toolCalls.length > 0,
          );
          emit({ type: 'model_turn', runId: run.id, turn });
        },
      });
      // Turns an earlier attempt finished are answered from the journal, not asked again.
      const model = replayingModel(turns, journal.turns, {
        onReplayed: (step) => {
          steps = step;
        },
        beforeLive: () => attempt.boundary(),
      });
      const localTools = this.#deps.toolProviders?.length
        ? await this.#localTools({
            run,
            agent,
            definition: def,
            environment,
            tracer: this.#deps.tracer,
            event: (type, payload) => {
              const clean = redactor.value(payload) as Record<string, unknown>;
              recorder.record([{ type, payload: clean }]);
              emit({ type: 'tool_progress', runId: run.id, eventType: type, payload: clean });
            },
          })
        : undefined;
      const tools = buildRunTools({
        ...(localTools ? { localTools } : {}),
        pool: this.#deps.pool,
        tracer: this.#deps.tracer,
        wiring,
        environment,
        currentStep: () => steps,
        onToolStart: (call) => attempt.act(call),
        stopRun: (err) => storeFailed.abort(err),
        resume: (call) => attempt.decide(call),
        idempotencyKey: (step, callId) => attempt.key(step, callId),
        onToolCall: (call) => {
          recorder.record([
            {
              type: 'tool_call',
              durationMs: call.durationMs,
              payload: {
                step: call.step,
                tool: call.tool,
                server: call.server,
                arguments: redactor.value(call.arguments),
                result: cut(redactor.text(call.result), maxChars),
                success: call.success,
                ...(call.error ? { error: cut(redactor.text(call.error), maxChars) } : {}),
              },
              journal: {
                id: call.id,
                step: call.step,
                text: redactor.text(call.result),
                ...(call.error !== undefined ? { error: redactor.text(call.error) } : {}),
              },
            },
          ]);
          attempt.noteOutcome({
            id: call.id,
            step: call.step,
            tool: call.tool,
            server: call.server,
            args: call.arguments,
          });
          emit({ type: 'tool_call', runId: run.id, call });
        },
        runSubAgent: async (sub, task, variables, key) => {
          const finished = await this.#subAgentRun(
            run,
            { sub, task, variables, key },
            { ...options, signal },
            depth,
            storedOnce,
          );
          recorder.record([
            {
              type: 'sub_agent',
              payload: { agent: sub.name, child_run_id: finished.id, status: finished.status },
            },
          ]);
          emit({
            type: 'sub_agent',
            runId: run.id,
            childRunId: finished.id,
            agent: sub.name,
            status: finished.status,
          });
          return { run: finished, output: finished.finalResponse ?? '' };
        },
      });

      const gone = pinned?.tools.filter((name) => !(name in tools)) ?? [];
      if (gone.length > 0) {
        throw new AgentCoreError(
          'TOOL_GONE',
          `Run ${run.id} started with tool${gone.length > 1 ? 's' : ''} ${gone.map((n) => `"${n}"`).join(', ')}, ` +
            `which agent "${agent.name}" no longer has in environment "${environment}" (its MCP server was removed, or failed at the last sync), so it cannot be resumed. ` +
            'Sync the environment with that server, or run the task again.',
          { agent: agent.name, tools: gone },
        );
      }
      const messages = prompt.messages.map((m) => ({
        role: m.role,
        content: m.content,
      })) as ModelMessage[];
      const call = {
        model,
        ...(prompt.system ? { system: prompt.system } : {}),
        messages,
        tools,
        stopWhen: stepCountIs(def.maxSteps),
        abortSignal: signal,
        maxRetries: this.#deps.maxRetries ?? 3,
      };
      const result = onText
        ? await streamedText(call)
        : await generateText({
            ...call,
            ...(schema ? { output: Output.object({ schema: jsonSchema(schema) }) } : {}),
          });
      const last = result.steps.at(-1);
      if (last && last.finishReason === 'tool-calls') {
        throw new AgentCoreError(
          'MAX_STEPS_REACHED',
          `Agent "${agent.name}" used all ${def.maxSteps} model turns (max_steps) without a final answer. ` +
            'Raise max_steps in its prompt file or narrow the task.',
          { agent: agent.name, max_steps: def.maxSteps },
        );
      }
      const finalResponse = schema ? JSON.stringify(result.output) : result.text;
      const finalEvents = await recorder.takeRest();
      return await this.#finish(run, options, () =>
        stored(() =>
          store.runs.markCompleted(run.id, {
            ...(finalEvents ? { finalEvents } : {}),
            finalResponse: redactor.text(finalResponse),
            ...progress(),
          }),
        ),
      );
    } catch (err) {
      // Classified before any await, so a timer firing meanwhile cannot relabel the failure.
      if (timer) clearTimeout(timer);
      const status = timeout?.signal.aborted ? 'timeout' : cancel?.aborted ? 'cancelled' : 'error';
      // A tool call's store write failed: that is why the run stops, not the abort it caused.
      const failure: unknown = storeFailed.signal.aborted ? storeFailed.signal.reason : err;
      // Handed over by a graceful stop. A sub-agent's run its parent executes never is (its
      // signal lets the run finish); one a worker took from the queue is, like any run.
      const interrupted = status === 'cancelled' && cancel?.reason instanceof RunInterrupted;
      // Only this run's own lease: a parent's lost lease cancels its child like any cancel.
      if (
        status === 'cancelled' &&
        cancel?.reason instanceof LeaseLost &&
        cancel.reason.runId === run.id
      ) {
        // Another worker (or recovery) holds the run now: write nothing more on it.
        return (await store.runs.get(run.id)) ?? run;
      }
      // A handed-over run's turn whose calls never left is asked again by its next attempt.
      await recorder.flush(!interrupted).catch(() => undefined);
      // Handed over (a graceful stop): back in the queue, to be resumed from its journal (the
      // store writes why its attempt ended, and refuses a run someone asked to stop: that one
      // ends `cancelled` below).
      let askedToStop = false;
      if (interrupted) {
        if (await store.runs.requeue(run.id, options.workerId, 'graceful stop')) {
          return (await store.runs.get(run.id)) ?? run;
        }
        askedToStop = true;
      }
      const message = askedToStop
        ? this.#describe(failure, 'cancelled', timeout)
        : redactor.text(this.#describe(failure, status, timeout));
      const endStatus = askedToStop ? 'cancelled' : status;
      await storedOnce(() =>
        store.runEvents.append(run.id, {
          type: 'run_error',
          payload: { message, status: endStatus },
        }),
      );
      return await this.#finish(run, options, () =>
        stored(() =>
          store.runs.markFailed(run.id, { status: endStatus, error: message, ...progress() }),
        ),
      );
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  #describe(err: unknown, status: string, timeout: AbortController | undefined): string {
    if (status === 'timeout')
      return `Run ${String((timeout?.signal.reason as Error | undefined)?.message ?? 'timed out')}.`;
    if (status === 'cancelled') return CANCELLED_MESSAGE;
    if (isAgentCoreError(err)) return err.message;
    const classified = classifyProviderError(err);
    return classified.message;
  }

  /** Writes the end of a run; if another party already ended it, returns what is stored. */
  async #finish(run: Run, _options: ExecuteOptions, write: () => Promise<Run>): Promise<Run> {
    try {
      const ended = await write();
      this.#endedHere.add(ended);
      return ended;
    } catch (err) {
      // Only "someone else already ended it" is expected; anything else must surface.
      if (!isStoreError(err, 'CONFLICT')) throw err;
      return (await this.#deps.store.runs.get(run.id)) ?? run;
    }
  }
}

/** A signal that follows `signal`, except for a graceful stop (RunInterrupted). */
function unlessInterrupted(signal: AbortSignal): AbortSignal {
  const child = new AbortController();
  const follow = (): void => {
    if (!(signal.reason instanceof RunInterrupted)) child.abort(signal.reason);
  };
  if (signal.aborted) follow();
  else signal.addEventListener('abort', follow, { once: true });
  return child.signal;
}

/**
 * `generateText`'s answer, streamed: the same call through `streamText` (its text reaches the
 * caller as it arrives, through model-turns' onTextDelta), then the steps and text once it ends. A
 * failure surfaces as the error itself, as generateText's would. There is never an `output`:
 * an agent with an output schema is not streamed.
 */
async function streamedText(call: {
  model: LanguageModel;
  system?: string;
  messages: ModelMessage[];
  tools: ToolSet;
  stopWhen: StopCondition<ToolSet>;
  abortSignal: AbortSignal;
  maxRetries: number;
}): Promise<{ steps: StepResult<ToolSet>[]; text: string; output?: undefined }> {
  // An error part of the stream and a failure while reading it (an abort) are both the run's.
  let failure: unknown;
  const stream = streamText({
    ...call,
    onError: ({ error }) => {
      failure ??= error;
    },
  });
  await stream.consumeStream({ onError: (error) => (failure ??= error) });
  if (failure !== undefined) throw failure;
  return { steps: await stream.steps, text: await stream.text };
}
