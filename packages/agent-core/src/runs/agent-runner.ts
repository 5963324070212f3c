import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { parsePrompt, type AgentDefinition } from '@junction/config-templates';
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
import type { McpClientPool } from '../mcp/mcp-client-pool.js';
import {
  modelSecrets,
  resolveModel,
  type ModelSettings,
  type ResolvedModel,
} from '../models/model-factory.js';
import type { ModelTurn } from '../models/model-turns.js';
import { DEFAULT_LEASE_MS, holdLease, LeaseLost, RunCancelled, RunInterrupted } from './lease.js';
import type { ResumeSettings } from './attempt-journal.js';
import {
  MAX_DEPTH,
  RunAttempt,
  type AttemptServices,
  type ChildRequest,
  type PromptFile,
} from './run-attempt.js';
import { runNotFound, submitRun } from './submit-run.js';
import { isFinal } from './run-workers.js';
import { createModelCheck, type ModelCheck } from '../models/model-check.js';
import { exportedTask, withRunSecrets } from './task-redaction.js';
import {
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

/** How often a resumed parent looks at a sub-agent's run that another worker executes. */
const CHILD_POLL_MS = 250;

async function readPromptFile(file: string): Promise<PromptFile> {
  const source = await readFile(file, 'utf8');
  return { source, def: await parsePrompt(source, file) };
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
  /** What each run's attempt takes from this runner (see RunAttempt). */
  readonly #services: AttemptServices;

  constructor(deps: AgentRunnerDeps) {
    this.#deps = deps;
    const now = deps.now;
    this.#now = now ? (): number => now().getTime() : Date.now;
    const env = deps.env ?? process.env;
    this.#redactor = createRedactor([
      ...collectSecretValues(env),
      ...modelSecrets(deps.modelSettings, env),
    ]);
    this.#services = {
      deps,
      leaseMs: deps.leaseMs ?? DEFAULT_LEASE_MS,
      redactor: this.#redactor,
      prompt: (file) => this.#prompt(file),
      toolWiring: (agent, syncedAt) => this.#toolWiring(agent, syncedAt),
      runRedactor: (wiring, variables) => this.#runRedactor(wiring, variables),
      model: (modelId) => this.#model(modelId),
      localTools: (context) => this.#localTools(context),
      subAgentRun: (parent, child, options, depth, storedOnce) =>
        this.#subAgentRun(parent, child, options, depth, storedOnce),
      finish: (run, write) => this.#finish(run, write),
    };
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
    const { store, tracer } = this.#deps;
    const started = this.#now();
    const found =
      run.agentId !== null ? await store.agents.getWithEnvironment(run.agentId) : undefined;
    const agent = found?.agent;
    const environment = found?.environment.name ?? '';
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
    // Stops the run: its lease was lost (no use running to an end that would be refused), or
    // someone asked it to stop (`cancel`). The abort reason tells which.
    const halt = new AbortController();
    const leaseMs = this.#services.leaseMs;
    const release = holdLease(store, run, options.workerId, leaseMs, halt);
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
          const attempt = new RunAttempt(
            this.#services,
            run,
            { ...options, signal },
            depth,
            span.spanContext().traceId,
          );
          const ended = await attempt.run({
            agent,
            environment,
            syncedAt: found?.environment.lastSyncedAt,
          });
          // The attempt answers a failure with the run's record, not a throw: the span says so too.
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
      this.#report(run, finished, {
        workerId: options.workerId,
        durationMs: this.#now() - started,
        leaseLost: halt.signal.reason instanceof LeaseLost,
      });
      return finished;
    } finally {
      release();
      this.#stops.delete(run.id);
    }
  }

  /** Logs (and counts in the metrics) how a run executed here ended. */
  #report(
    run: Run,
    finished: Run,
    how: { workerId: string; durationMs: number; leaseLost: boolean },
  ): void {
    const { logger } = this.#deps;
    const ids = { agent_id: run.agentId, agent_name: run.agentName, run_id: run.id };
    if (how.leaseLost && !this.#endedHere.has(finished)) {
      // Whoever took the run over (or recovery, which failed it) reports its end, not us.
      logger.warn('run stopped: its lease was lost', {
        ...ids,
        worker_id: how.workerId,
        held_by: finished.workerId,
        run_status: finished.status,
      });
      return;
    }
    if (finished.status === 'queued') {
      // Interrupted by a graceful stop and put back: not an outcome (it will end elsewhere).
      logger.info('run re-queued', { ...ids, run_status: finished.status });
      return;
    }
    const ok = finished.status === 'completed';
    this.#deps.metrics?.recordRun({
      agentName: run.agentName,
      status: ok ? 'success' : 'error',
      durationSeconds: how.durationMs / 1000,
      steps: finished.stepsTaken,
    });
    const fields = {
      ...ids,
      duration_ms: how.durationMs,
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
    child: ChildRequest,
    options: ExecuteOptions & { signal: AbortSignal },
    depth: number,
    storedOnce: <T>(call: () => Promise<T>) => Promise<T>,
  ): Promise<Run> {
    const { store } = this.#deps;
    const leaseMs = this.#services.leaseMs;
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

  /** Writes the end of a run; if another party already ended it, returns what is stored. */
  async #finish(run: Run, write: () => Promise<Run>): Promise<Run> {
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
