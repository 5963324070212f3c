import { Args, Flags } from '@oclif/core';
import type { RunProgressEvent, RunRequestInput } from '@junction/agent-core/runs';
import type { Composition } from '@junction/service-kit';
import type { Run } from '@junction/store';
import { JunctionCommand } from '../../base-command.js';
import { noColorFlag } from '../../flags.js';
import { summarizeEvent } from '../../run-view.js';

export interface RunView {
  run_id: number;
  agent_id: number | null;
  agent_name: string;
  status: string;
  steps_taken: number;
  input_tokens: number;
  output_tokens: number;
  model: string | null;
  final_response: string | null;
  error: string | null;
  duration_ms: number | null;
  trace_id: string | null;
}

/** What the two ways of running take from the flags, and the Ctrl-C that cancels the run. */
interface RunOptions {
  env: string | undefined;
  noColor: boolean;
  controller: AbortController;
}

export default class AgentRun extends JunctionCommand {
  static override description =
    'Run an agent with a task: shows each model turn and tool call as it happens, then the final answer. ' +
    'With --queue, the run is queued for the workers of any process sharing the store (serve, junction worker, api-servers, on any host) and followed here live; Ctrl-C cancels it. ' +
    'Exits 8 when the run fails or is cancelled, 9 when it times out.';

  static override examples = [
    '<%= config.bin %> agent run assistant "List the files you can see"',
    '<%= config.bin %> agent run triage "Sort today\'s issues" --env prod --var repo=junction --timeout 120',
    '<%= config.bin %> agent run assistant "Summarise the logs" --queue',
  ];

  static override args = {
    name: Args.string({ description: 'agent name', required: true }),
    task: Args.string({ description: 'the task, as the user message', required: true }),
  };

  static override flags = {
    env: Flags.string({
      char: 'e',
      description:
        'environment of the agent (default: the "default" environment, else the one environment that has an agent of that name)',
    }),
    var: Flags.string({
      description: 'run variable name=value (repeatable)',
      multiple: true,
      // One value per --var: a task after it stays the task.
      multipleNonGreedy: true,
    }),
    timeout: Flags.integer({
      description: 'seconds before the run ends with status timeout',
      min: 1,
    }),
    queue: Flags.boolean({
      description:
        'queue the run for the workers (of serve, junction worker, api-servers: any host sharing the store) instead of executing it here, and follow it live',
      default: false,
    }),
    'no-color': noColorFlag,
  };

  static override enableJsonFlag = true;

  async run(): Promise<RunView> {
    const { args, flags } = await this.parse(AgentRun);
    const { parseVars } = await import('../../run-args.js');
    const variables = parseVars(flags.var ?? []);
    const { createContext } = await import('../../context.js');
    const { createService } = await import('../../service.js');
    const ctx = await createContext();
    // Queued, the run is executed elsewhere: this process only submits and follows it.
    const service = await createService(ctx, {
      version: this.config.version,
      ...(flags.queue ? { executes: false } : {}),
    });
    const controller = new AbortController();
    const onSigint = (): void => controller.abort(new Error('interrupted by the user'));
    process.once('SIGINT', onSigint);
    try {
      const request: RunRequestInput = {
        agent_name: args.name,
        environment: flags.env,
        task: args.task,
        variables,
        source: 'cli',
        timeout_seconds: flags.timeout,
      };
      const options = { env: flags.env, noColor: flags['no-color'], controller };
      if (flags.queue) return await this.#followQueued(service, request, options);
      return await this.#executeHere(service, request, options);
    } finally {
      process.off('SIGINT', onSigint);
      await service.stop();
      await ctx.close();
    }
  }

  /** --queue: submits the run for the workers of any process sharing the store and follows it live. */
  async #followQueued(
    service: Composition,
    request: RunRequestInput,
    { env, noColor, controller }: RunOptions,
  ): Promise<RunView> {
    const { isFinal } = await import('@junction/agent-core/runs');
    const { Spinner } = await import('../../progress.js');
    // The run bus (when configured) announces it and carries its events back.
    await service.start();
    const { run, agent } = await service.runs.submit(request);
    const where = env ?? (await service.store.environments.get(agent.environmentId))?.name;
    if (!this.jsonEnabled()) this.log(`run ${run.id}: ${agent.name} (${where ?? '?'}), queued`);
    const spinner = new Spinner((line) => this.log(line), !this.jsonEnabled());
    spinner.start('run', 'waiting for a worker to take it');
    const { watchClaim } = await import('../../claim-watch.js');
    const watch = watchClaim({
      status: async () => (await service.store.runs.get(run.id))?.status,
      onTaken: () => spinner.start('run', 'running (a worker took it)'),
      onStillQueued: () =>
        spinner.start(
          'run',
          'no worker has taken it yet: is `junction serve`, `junction worker` or an api-server working runs on this store?',
        ),
      hintMs: 10_000,
      pollMs: 1_000,
    });
    let finished = await service.runs
      .follow(run.id, {
        signal: controller.signal,
        keepAlive: true,
        onEvent: (event) => {
          watch.stop();
          if (this.jsonEnabled()) return;
          spinner.line(`  ${event.type}  ${summarizeEvent(event.type, event.payload)}`);
          spinner.start('run', 'running');
        },
      })
      .finally(() => {
        watch.stop();
        spinner.stop();
      });
    // Ctrl-C: the run is asked to stop wherever it executes.
    if (controller.signal.aborted && !isFinal(finished)) {
      ({ run: finished } = await service.runs.cancel(run.id, { source: 'cli' }));
    }
    return await this.#report(finished, noColor, false);
  }

  /** Without --queue: submits the run claimed by this process's worker and executes it here. */
  async #executeHere(
    service: Composition,
    request: RunRequestInput,
    { env, noColor, controller }: RunOptions,
  ): Promise<RunView> {
    const { Spinner, terminalText } = await import('../../progress.js');
    const workers = service.executor?.workers;
    if (!workers) throw new Error('this process cannot execute runs');
    // The door this process's composition built, with its worker as the run's claimant: no
    // `serve` worker sharing the store can take it, and it is executed here by the workers' code.
    const { run, agent } = await service.runs.submit(request, {
      claimedBy: workers.callerClaim(),
    });
    const where = env ?? (await service.store.environments.get(agent.environmentId))?.name;
    if (!this.jsonEnabled()) this.log(`run ${run.id}: ${agent.name} (${where ?? '?'})`);
    // At a terminal a spinner says what the run waits for; in a pipe, the plain lines only.
    const spinner = new Spinner((line) => this.log(line), !this.jsonEnabled());
    spinner.start('run', 'waiting for the model (turn 1)');
    // At a terminal the answer's text appears as it arrives; `open` while its line is unended.
    const streaming = process.stdout.isTTY === true && !this.jsonEnabled();
    let streamed = false;
    let open = false;
    const endText = (): void => {
      if (open) process.stdout.write('\n');
      open = false;
    };
    // The run carries its own timeout (timeout_seconds), as a run of any other caller would.
    const finished = await workers
      .execute(run, {
        signal: controller.signal,
        ...(streaming
          ? {
              onText: (delta: string) => {
                spinner.stop();
                if (!open) process.stdout.write('\n');
                open = true;
                streamed = true;
                process.stdout.write(terminalText(delta));
              },
            }
          : {}),
        onEvent: (event) => {
          if (this.jsonEnabled()) return;
          endText();
          spinner.line(describe(event));
          spinner.start('run', waitingFor(event));
        },
      })
      .finally(() => {
        spinner.stop();
        endText();
      });
    return await this.#report(finished, noColor, streamed);
  }

  /** Prints (or answers as JSON) how the run ended; exits 8 or 9 when it did not complete. */
  async #report(finished: Run, noColor: boolean, streamed: boolean): Promise<RunView> {
    const { colourOn, paint } = await import('../../progress.js');
    const colour = colourOn(noColor);
    const view: RunView = {
      run_id: finished.id,
      agent_id: finished.agentId,
      agent_name: finished.agentName,
      status: finished.status,
      steps_taken: finished.stepsTaken,
      input_tokens: finished.inputTokens,
      output_tokens: finished.outputTokens,
      model: finished.model,
      final_response: finished.finalResponse,
      error: finished.error,
      duration_ms:
        finished.completedAt && finished.startedAt
          ? finished.completedAt.getTime() - finished.startedAt.getTime()
          : null,
      trace_id: finished.traceId,
    };
    const exit = finished.status === 'completed' ? 0 : finished.status === 'timeout' ? 9 : 8;
    if (this.jsonEnabled()) {
      if (exit !== 0) {
        this.logJson(view);
        return this.exit(exit);
      }
      return view;
    }
    if (finished.status === 'completed') {
      // Streamed, the answer is on the screen already.
      if (!streamed) this.log(`\n${finished.finalResponse ?? ''}\n`);
      else this.log('');
    } else {
      this.logToStderr(
        `\nRun ${finished.id} ended ${paint(finished.status, colour)}: ${finished.error ?? ''}`,
      );
    }
    this.log(
      `run ${finished.id} ${paint(finished.status, colour)} in ${((view.duration_ms ?? 0) / 1000).toFixed(1)}s, ` +
        `${finished.stepsTaken} model turns, tokens ${finished.inputTokens} in / ${finished.outputTokens} out`,
    );
    if (exit !== 0) return this.exit(exit);
    return view;
  }
}

/** What the spinner says the run waits for after an event. */
function waitingFor(event: RunProgressEvent): string {
  if (event.type === 'model_turn') {
    const calls = event.turn.toolCalls.map((c) => c.name);
    return calls.length > 0
      ? `calling ${calls.join(', ')}`
      : `waiting for the model (turn ${event.turn.step + 1})`;
  }
  if (event.type === 'model_retry') return `waiting to retry (attempt ${event.attempt + 1})`;
  if (event.type === 'tool_progress') return 'the coding assistant is working';
  return 'waiting for the model';
}

function describe(event: RunProgressEvent): string {
  if (event.type === 'model_turn') {
    const t = event.turn;
    const calls = t.toolCalls.length ? `  → ${t.toolCalls.map((c) => c.name).join(', ')}` : '';
    return `turn ${t.step}  ${t.model}  ${t.inputTokens} in / ${t.outputTokens} out  ${t.latencyMs}ms${calls}`;
  }
  if (event.type === 'model_retry') {
    const seconds = Math.round(event.delayMs / 100) / 10;
    return `  retrying in ${seconds} s (${event.status === null ? 'no answer' : event.status} from the provider)`;
  }
  if (event.type === 'tool_call') {
    const c = event.call;
    return `  tool ${c.server}/${c.tool}  ${c.success ? 'ok' : `error: ${(c.error ?? '').slice(0, 120)}`}  ${c.durationMs}ms`;
  }
  if (event.type === 'tool_progress') {
    return `  ${event.eventType === 'coding_event' ? 'coding' : event.eventType}  ${summarizeEvent(event.eventType, event.payload)}`;
  }
  return `  sub-agent ${event.agent}: run ${event.childRunId} ${event.status}`;
}
