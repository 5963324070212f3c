// One attempt at a run: what it started with (its journal, the pinned prompt and model, its
// tools), the model loop that continues it from where the journal ends, and how the attempt
// ends — completed, failed, or handed back to the queue. Its state (the step, the token counts,
// the redactor, the recorder, the signals) lives here, one attempt at a time; what outlives an
// attempt (prompt files, tool wiring, models, the lease) is the runner's (agent-runner.ts).
import { setMaxListeners } from 'node:events';
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
import type { Agent, Run } from '@junction/store';
import type { Redactor } from '@junction/telemetry';
import { AgentCoreError, isAgentCoreError } from '../errors.js';
import { classifyProviderError } from '../models/model-errors.js';
import type { ResolvedModel } from '../models/model-factory.js';
import { withModelTurns, type ModelTurn } from '../models/model-turns.js';
import type { AgentRunnerDeps, ExecuteOptions, RunToolContext } from './agent-runner.js';
import {
  AttemptJournal,
  toolResumePolicy,
  type ToolResumePolicy,
  type UnknownOutcomeAction,
} from './attempt-journal.js';
import { CANCELLED_MESSAGE, LeaseLost, RunInterrupted } from './lease.js';
import {
  emptyJournal,
  readJournal,
  redactedAnswer,
  replayingModel,
  type RunJournal,
} from './run-journal.js';
import { RunRecorder } from './run-recorder.js';
import {
  buildRunTools,
  subAgentToolName,
  type LocalTool,
  type ToolCallRecord,
  type ToolWiring,
} from './run-tools.js';
import { storeWaitOf, whileStoreAway, type StoreWait } from './store-retry.js';

/** Sub-agents nest at most this deep (a cycle in the agents' lists stops here). */
export const MAX_DEPTH = 5;

/**
 * How a sub-agent's call is resumed: it waits for its turn's fence (its run is keyed by the
 * call, so the call must be in the journal before the run is written), and is made again when
 * its outcome is unknown: that finds the run an earlier attempt started, never a second one.
 */
const SUB_AGENT_RESUME: ToolResumePolicy = { safe: false, action: 'retry' };

/** A prompt file as a run reads it: its text (what a run pins) and its definition. */
export interface PromptFile {
  source: string;
  def: AgentDefinition;
}

/** A sub-agent's run asked for by one of the attempt's tool calls. */
export interface ChildRequest {
  sub: Agent;
  task: string;
  variables: Record<string, string>;
  key: string | undefined;
}

/** What an attempt takes from its runner: what is shared by every run of the process. */
export interface AttemptServices {
  deps: AgentRunnerDeps;
  /** The runner's lease on a run (deps.leaseMs, else DEFAULT_LEASE_MS). */
  leaseMs: number;
  /** The process's secrets (the redactor before the agent's tools are known). */
  redactor: Redactor;
  prompt(file: string): Promise<PromptFile>;
  toolWiring(agent: Agent, syncedAt: Date | null | undefined): Promise<ToolWiring>;
  runRedactor(wiring: ToolWiring, variables: Record<string, string>): Redactor;
  model(modelId: string | undefined): ResolvedModel;
  localTools(context: RunToolContext): Promise<LocalTool[]>;
  /** Runs (or finds, when resumed) the sub-agent's run of a call; `storedOnce` writes it. */
  subAgentRun(
    parent: Run,
    child: ChildRequest,
    options: ExecuteOptions & { signal: AbortSignal },
    depth: number,
    storedOnce: <T>(call: () => Promise<T>) => Promise<T>,
  ): Promise<Run>;
  /** Writes the run's end; what is stored when someone else ended it first. */
  finish(run: Run, write: () => Promise<Run>): Promise<Run>;
}

/** Where the attempt runs the agent: the agent and its environment. */
export interface AttemptPlace {
  agent: Agent | undefined;
  environment: string;
  syncedAt: Date | null | undefined;
}

/** What the attempt starts from: the definition it runs and where its journal ends. */
interface Start {
  agent: Agent & { promptPath: string };
  source: string;
  def: AgentDefinition;
  journal: RunJournal;
  resolved: ResolvedModel;
  wiring: ToolWiring;
  messages: ModelMessage[];
  system: string | undefined;
  /** The caller's stream of the answer's text (a top-level run without an output schema). */
  onText: ((delta: string) => void) | undefined;
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
 * One attempt at a claimed run: `run()` takes it to its end and returns the run's record. A
 * failure is recorded on the run, not thrown.
 */
export class RunAttempt {
  readonly #services: AttemptServices;
  readonly #deps: AgentRunnerDeps;
  readonly #run: Run;
  readonly #options: ExecuteOptions;
  readonly #depth: number;
  readonly #traceId: string;
  readonly #emit: NonNullable<ExecuteOptions['onEvent']>;
  readonly #maxChars: number;
  readonly #storeWait: StoreWait;
  readonly #recorder: RunRecorder;
  /**
   * Aborted with the reason when a tool call must stop the run (its store write failed, or a
   * resumed run met a call whose outcome is unknown): the run ends with it.
   */
  readonly #storeFailed = new AbortController();
  /** The model turn the run is on: the last one answered, live or from the journal. */
  #step = 0;
  #inputTokens = 0;
  #outputTokens = 0;
  #modelId: string | null;
  /** The process's secrets, then (once the agent's tools are known) its tool servers' too. */
  #redactor: Redactor;
  #timeout: AbortController | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** The names of the attempt's tools (what a run pins when it first acts). */
  #toolNames: string[] = [];

  constructor(
    services: AttemptServices,
    run: Run,
    options: ExecuteOptions,
    depth: number,
    traceId: string,
  ) {
    this.#services = services;
    this.#deps = services.deps;
    this.#run = run;
    this.#options = options;
    this.#depth = depth;
    this.#traceId = traceId;
    this.#emit = options.onEvent ?? ((): void => undefined);
    this.#maxChars = this.#deps.maxEventChars ?? 8000;
    this.#modelId = run.model;
    this.#redactor = services.redactor;
    // A store call of the run waits out an outage its lease outlasts (the run's cancel stops it).
    this.#storeWait = storeWaitOf(services.leaseMs, {
      ...(options.signal ? { signal: options.signal } : {}),
      onWait: (err) =>
        this.#deps.logger.warn('store unavailable: the run waits for it', {
          run_id: run.id,
          agent_name: run.agentName,
          error: (err as Error).message,
        }),
    });
    this.#recorder = new RunRecorder(this.#deps.store, run.id, {
      workerId: options.workerId,
      onWritten: options.onWritten,
      wait: this.#storeWait,
    });
  }

  /** Takes the attempt to its end: the run's record as it ended (or was handed back). */
  async run(place: AttemptPlace): Promise<Run> {
    try {
      const start = await this.#start(place);
      const signal = this.#signal(start.def);
      return await this.#loop(start, place.environment, signal);
    } catch (err) {
      return await this.#fail(err);
    } finally {
      if (this.#timer) clearTimeout(this.#timer);
    }
  }

  #stored<T>(call: () => Promise<T>): Promise<T> {
    return whileStoreAway(call, this.#storeWait);
  }

  /** An insert (a child run, an event) is repeated only if it never reached the store. */
  #storedOnce<T>(call: () => Promise<T>): Promise<T> {
    return whileStoreAway(call, { ...this.#storeWait, onlyUnsent: true });
  }

  /** What the run's end records of its progress, however it ends. */
  #progress(): {
    stepsTaken: number;
    inputTokens: number;
    outputTokens: number;
    model: string | null;
    traceId: string;
    workerId: string;
  } {
    return {
      stepsTaken: this.#step,
      inputTokens: this.#inputTokens,
      outputTokens: this.#outputTokens,
      model: this.#modelId,
      traceId: this.#traceId,
      workerId: this.#options.workerId,
    };
  }

  /** The agent, if it can run here: it exists, has a prompt file and is not nested too deep. */
  #runnable(agent: Agent | undefined): Agent & { promptPath: string } {
    if (!agent) {
      throw new AgentCoreError(
        'AGENT_NOT_FOUND',
        `Agent "${this.#run.agentName}" no longer exists; sync its environment or run another agent.`,
        { agent: this.#run.agentName },
      );
    }
    if (!agent.promptPath) {
      throw new AgentCoreError(
        'AGENT_INVALID',
        `Agent "${agent.name}" has no prompt file; sync its environment.`,
        { agent: agent.name },
      );
    }
    if (this.#depth >= MAX_DEPTH) {
      throw new AgentCoreError(
        'AGENT_INVALID',
        `Sub-agents are nested more than ${MAX_DEPTH} deep (agent "${agent.name}"); check the agents: lists for a cycle.`,
        { agent: agent.name },
      );
    }
    return agent as Agent & { promptPath: string };
  }

  /**
   * What the attempt starts from. A resumed attempt goes on with what the run started with
   * (pinned before it first acted), and from where its journal ends.
   */
  async #start({ agent: found, environment, syncedAt }: AttemptPlace): Promise<Start> {
    const run = this.#run;
    const agent = this.#runnable(found);
    const pinned = run.pinned;
    const journal: RunJournal =
      run.attempt > 1 || pinned
        ? readJournal(await this.#stored(() => this.#deps.store.runEvents.journal(run.id)))
        : emptyJournal();
    const { source, def } = pinned
      ? { source: pinned.prompt, def: await parsePrompt(pinned.prompt, agent.promptPath) }
      : await this.#services.prompt(agent.promptPath);
    const wiring = await this.#services.toolWiring(agent, syncedAt);
    this.#redactor = this.#services.runRedactor(wiring, run.variables);
    const resolved = this.#services.model(pinned?.model ?? def.model ?? agent.model ?? undefined);
    this.#modelId = resolved.id;
    this.#step = journal.turns.length;
    for (const turn of journal.turns) {
      this.#inputTokens += turn.usage.inputTokens.total ?? 0;
      this.#outputTokens += turn.usage.outputTokens.total ?? 0;
    }
    const resumed =
      run.attempt > 1
        ? [
            {
              type: 'resumed',
              payload: {
                attempt: run.attempt,
                worker_id: this.#options.workerId,
                from_step: journal.turns.length + 1,
                replayed_tool_calls: journal.outcomes.size,
              },
            },
          ]
        : [];
    this.#recorder.record(resumed, { traceId: this.#traceId, model: resolved.id });
    const prompt = await renderPrompt(def, {
      userInput: run.task,
      variables: run.variables,
      agentName: agent.name,
      environment,
    });
    const messages = prompt.messages.map((m) => ({ role: m.role, content: m.content }));
    // Streamed only for the caller watching this run, and not when the answer is an object.
    const streamed = this.#depth === 0 && !def.output?.jsonSchema;
    return {
      agent,
      source,
      def,
      journal,
      resolved,
      wiring,
      messages: messages as ModelMessage[],
      system: prompt.system,
      onText: streamed ? this.#options.onText : undefined,
    };
  }

  /** The signal every model and tool call of the attempt listens on: cancel, timeout, failure. */
  #signal(def: AgentDefinition): AbortSignal {
    const timeoutMs =
      this.#options.timeoutMs ??
      this.#run.timeoutMs ??
      agentTimeoutMs(def) ??
      this.#deps.defaultTimeoutMs;
    const timeout = (this.#timeout = new AbortController());
    this.#timer = setTimeout(
      () => timeout.abort(new Error(`timed out after ${timeoutMs} ms`)),
      timeoutMs,
    );
    this.#timer.unref();
    const cancel = this.#options.signal;
    const signal = AbortSignal.any([
      ...(cancel ? [cancel] : []),
      timeout.signal,
      this.#storeFailed.signal,
    ]);
    // Every tool call and retry listens on it; a long run legitimately has many.
    setMaxListeners(1000, signal);
    return signal;
  }

  /** The model loop: model → tools → model for at most max_steps turns, then the run's end. */
  async #loop(start: Start, environment: string, signal: AbortSignal): Promise<Run> {
    const { agent, def } = start;
    const journal = this.#journal(start, environment);
    const tools = await this.#tools(start, environment, journal, signal);
    this.#toolNames = Object.keys(tools);
    const gone = this.#run.pinned?.tools.filter((name) => !(name in tools)) ?? [];
    if (gone.length > 0) {
      throw new AgentCoreError(
        'TOOL_GONE',
        `Run ${this.#run.id} started with tool${gone.length > 1 ? 's' : ''} ${gone.map((n) => `"${n}"`).join(', ')}, ` +
          `which agent "${agent.name}" no longer has in environment "${environment}" (its MCP server was removed, or failed at the last sync), so it cannot be resumed. ` +
          'Sync the environment with that server, or run the task again.',
        { agent: agent.name, tools: gone },
      );
    }
    const schema = def.output?.jsonSchema;
    const call = {
      model: this.#model(start, journal),
      ...(start.system ? { system: start.system } : {}),
      messages: start.messages,
      tools,
      stopWhen: stepCountIs(def.maxSteps),
      abortSignal: signal,
      maxRetries: this.#deps.maxRetries ?? 3,
    };
    const result = start.onText
      ? await streamedText(call)
      : await generateText({
          ...call,
          ...(schema ? { output: Output.object({ schema: jsonSchema(schema) }) } : {}),
        });
    if (result.steps.at(-1)?.finishReason === 'tool-calls') {
      throw new AgentCoreError(
        'MAX_STEPS_REACHED',
        `Agent "${agent.name}" used all ${def.maxSteps} model turns (max_steps) without a final answer. ` +
          'Raise max_steps in its prompt file or narrow the task.',
        { agent: agent.name, max_steps: def.maxSteps },
      );
    }
    const finalResponse = schema ? JSON.stringify(result.output) : result.text;
    const finalEvents = await this.#recorder.takeRest();
    return this.#services.finish(this.#run, () =>
      this.#stored(() =>
        this.#deps.store.runs.markCompleted(this.#run.id, {
          ...(finalEvents ? { finalEvents } : {}),
          finalResponse: this.#redactor.text(finalResponse),
          ...this.#progress(),
        }),
      ),
    );
  }

  /** The attempt's side of the journal, with each tool's resume policy decided once. */
  #journal(start: Start, environment: string): AttemptJournal {
    const { agent, wiring, def } = start;
    // The tools' annotations, by name, for the resume policy of a call.
    const annotations = new Map(wiring.mcp.map(({ tool }) => [tool.name, tool.annotations]));
    const subAgentTools = new Set(wiring.subAgents.map((sub) => subAgentToolName(sub.name)));
    const agentAction = def.frontMatter.on_unknown_outcome as UnknownOutcomeAction | undefined;
    const policies = new Map<string, ToolResumePolicy>();
    return new AttemptJournal({
      runId: this.#run.id,
      workerId: this.#options.workerId,
      recorder: this.#recorder,
      journal: start.journal,
      redactor: this.#redactor,
      ...(this.#deps.journalWrites === false ? { writes: false } : {}),
      pin: () => ({ prompt: start.source, model: start.resolved.id, tools: this.#toolNames }),
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
  }

  /**
   * The model as the loop asks it: each live turn counted, journaled and reported; turns an
   * earlier attempt finished answered from the journal, not asked again.
   */
  #model(start: Start, journal: AttemptJournal): LanguageModel {
    const { resolved } = start;
    const turns = withModelTurns(resolved.model as LanguageModelV3, {
      stepsBefore: start.journal.turns.length,
      tracer: this.#deps.tracer,
      ...(this.#deps.metrics ? { metrics: this.#deps.metrics } : {}),
      modelId: resolved.id,
      provider: resolved.provider,
      maxRetries: this.#deps.maxRetries ?? 3,
      onRetry: (retry) => this.#emit({ type: 'model_retry', runId: this.#run.id, ...retry }),
      ...(start.onText ? { onTextDelta: start.onText } : {}),
      onTurn: (turn) => this.#turnAnswered(turn, journal),
    });
    return replayingModel(turns, start.journal.turns, {
      onReplayed: (step) => {
        this.#step = step;
      },
      beforeLive: () => journal.boundary(),
    });
  }

  #turnAnswered(turn: ModelTurn, journal: AttemptJournal): void {
    this.#step = turn.step;
    this.#inputTokens += turn.inputTokens;
    this.#outputTokens += turn.outputTokens;
    journal.noteTurn(turn.step, turn.answer);
    this.#recorder.record(
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
            ...(turn.text ? { text: cut(this.#redactor.text(turn.text), this.#maxChars) } : {}),
            tool_calls: turn.toolCalls,
          },
          journal: redactedAnswer(turn.answer, this.#redactor),
        },
      ],
      { stepsTaken: this.#step, inputTokens: this.#inputTokens, outputTokens: this.#outputTokens },
      // A turn that asks for tool calls is journaled by the fence its calls pass.
      turn.toolCalls.length > 0,
    );
    this.#emit({ type: 'model_turn', runId: this.#run.id, turn });
  }

  /** The attempt's tools: the agent's MCP tools and sub-agents, and the process's own. */
  async #tools(
    start: Start,
    environment: string,
    journal: AttemptJournal,
    signal: AbortSignal,
  ): Promise<ToolSet> {
    const run = this.#run;
    const localTools = this.#deps.toolProviders?.length
      ? await this.#services.localTools({
          run,
          agent: start.agent,
          definition: start.def,
          environment,
          tracer: this.#deps.tracer,
          event: (type, payload) => {
            const clean = this.#redactor.value(payload) as Record<string, unknown>;
            this.#recorder.record([{ type, payload: clean }]);
            this.#emit({ type: 'tool_progress', runId: run.id, eventType: type, payload: clean });
          },
        })
      : undefined;
    return buildRunTools({
      ...(localTools ? { localTools } : {}),
      pool: this.#deps.pool,
      tracer: this.#deps.tracer,
      wiring: start.wiring,
      environment,
      currentStep: () => this.#step,
      onToolStart: (call) => journal.act(call),
      stopRun: (err) => this.#storeFailed.abort(err),
      resume: (call) => journal.decide(call),
      idempotencyKey: (step, callId) => journal.key(step, callId),
      onToolCall: (call) => this.#toolCalled(call, journal),
      runSubAgent: async (sub, task, variables, key) => {
        const finished = await this.#services.subAgentRun(
          run,
          { sub, task, variables, key },
          { ...this.#options, signal },
          this.#depth,
          (write) => this.#storedOnce(write),
        );
        const status = finished.status;
        this.#recorder.record([
          { type: 'sub_agent', payload: { agent: sub.name, child_run_id: finished.id, status } },
        ]);
        this.#emit({
          type: 'sub_agent',
          runId: run.id,
          childRunId: finished.id,
          agent: sub.name,
          status,
        });
        return { run: finished, output: finished.finalResponse ?? '' };
      },
    });
  }

  /** A tool call ended: its event and outcome recorded (secrets out), and reported. */
  #toolCalled(call: ToolCallRecord, journal: AttemptJournal): void {
    const redactor = this.#redactor;
    const max = this.#maxChars;
    this.#recorder.record([
      {
        type: 'tool_call',
        durationMs: call.durationMs,
        payload: {
          step: call.step,
          tool: call.tool,
          server: call.server,
          arguments: redactor.value(call.arguments),
          result: cut(redactor.text(call.result), max),
          success: call.success,
          ...(call.error ? { error: cut(redactor.text(call.error), max) } : {}),
        },
        journal: {
          id: call.id,
          step: call.step,
          text: redactor.text(call.result),
          ...(call.error !== undefined ? { error: redactor.text(call.error) } : {}),
        },
      },
    ]);
    journal.noteOutcome({
      id: call.id,
      step: call.step,
      tool: call.tool,
      server: call.server,
      args: call.arguments,
    });
    this.#emit({ type: 'tool_call', runId: this.#run.id, call });
  }

  /**
   * The attempt failed, was cancelled, timed out, lost its lease or was handed over: the run's
   * record after writing what that means (nothing, when another worker holds the run now).
   */
  async #fail(err: unknown): Promise<Run> {
    const { store } = this.#deps;
    const run = this.#run;
    const cancel = this.#options.signal;
    // Classified before any await, so a timer firing meanwhile cannot relabel the failure.
    if (this.#timer) clearTimeout(this.#timer);
    const timedOut = this.#timeout?.signal.aborted === true;
    const status = timedOut ? 'timeout' : cancel?.aborted ? 'cancelled' : 'error';
    // A tool call's store write failed: that is why the run stops, not the abort it caused.
    const failure: unknown = this.#storeFailed.signal.aborted
      ? this.#storeFailed.signal.reason
      : err;
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
    await this.#recorder.flush(!interrupted).catch(() => undefined);
    // Handed over (a graceful stop): back in the queue, to be resumed from its journal (the
    // store writes why its attempt ended, and refuses a run someone asked to stop: that one
    // ends `cancelled` below).
    let askedToStop = false;
    if (interrupted) {
      if (await store.runs.requeue(run.id, this.#options.workerId, 'graceful stop')) {
        return (await store.runs.get(run.id)) ?? run;
      }
      askedToStop = true;
    }
    const endStatus = askedToStop ? 'cancelled' : status;
    const message = askedToStop
      ? CANCELLED_MESSAGE
      : this.#redactor.text(this.#describe(failure, status));
    await this.#storedOnce(() =>
      store.runEvents.append(run.id, {
        type: 'run_error',
        payload: { message, status: endStatus },
      }),
    );
    return this.#services.finish(run, () =>
      this.#stored(() =>
        store.runs.markFailed(run.id, { status: endStatus, error: message, ...this.#progress() }),
      ),
    );
  }

  #describe(err: unknown, status: string): string {
    if (status === 'timeout') {
      const reason = this.#timeout?.signal.reason as Error | undefined;
      return `Run ${String(reason?.message ?? 'timed out')}.`;
    }
    if (status === 'cancelled') return CANCELLED_MESSAGE;
    if (isAgentCoreError(err)) return err.message;
    return classifyProviderError(err).message;
  }
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
