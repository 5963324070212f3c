import { Args, Flags } from '@oclif/core';
import type { RunProgressEvent } from '@junction/agent-core';
import { JunctionCommand } from '../../base-command.js';
import { envFlag } from '../../flags.js';

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

/** Parses repeated `--var k=v` flags; a malformed one is a usage error. */
export function parseVars(pairs: readonly string[]): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) {
      throw Object.assign(
        new Error(`--var "${pair}" is not name=value (for example --var city=Paris).`),
        {
          code: 'INVALID_ARGUMENT',
        },
      );
    }
    vars[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return vars;
}

export default class AgentRun extends JunctionCommand {
  static override description =
    'Run an agent with a task: shows each model turn and tool call as it happens, then the final answer. ' +
    'Exits 8 when the run fails or is cancelled, 9 when it times out.';

  static override examples = [
    '<%= config.bin %> agent run assistant "List the files you can see"',
    '<%= config.bin %> agent run triage "Sort today\'s issues" --env prod --var repo=junction --timeout 120',
  ];

  static override args = {
    name: Args.string({ description: 'agent name', required: true }),
    task: Args.string({ description: 'the task, as the user message', required: true }),
  };

  static override flags = {
    env: envFlag,
    var: Flags.string({
      description: 'run variable name=value (repeatable)',
      multiple: true,
      default: [],
    }),
    timeout: Flags.integer({
      description: 'seconds before the run ends with status timeout',
      min: 1,
    }),
  };

  static override enableJsonFlag = true;

  async run(): Promise<RunView> {
    const { args, flags } = await this.parse(AgentRun);
    const variables = parseVars(flags.var);
    const { createContext } = await import('../../context.js');
    const { createRuntime } = await import('../../runtime.js');
    const core = await import('@junction/agent-core');
    const ctx = await createContext();
    const runtime = await createRuntime(ctx);
    const controller = new AbortController();
    const onSigint = (): void => controller.abort(new Error('interrupted by the user'));
    process.once('SIGINT', onSigint);
    try {
      const store = runtime.store;
      const env = await store.environments.getByName(flags.env);
      const agent = env ? await store.agents.getByName(env.id, args.name) : undefined;
      if (!agent) {
        throw new core.AgentCoreError(
          'AGENT_NOT_FOUND',
          `Agent "${args.name}" is not in environment "${flags.env}". ` +
            `If its prompt file exists, run \`junction sync ${flags.env}\`; \`junction agent list\` shows the synced agents.`,
          { agent: args.name, environment: flags.env },
        );
      }
      // A missing key or an unknown provider is an error before any run exists.
      runtime.checkAgent(agent);
      const workerId = core.newWorkerId();
      // Created already claimed by this process, so a `serve` worker sharing the store cannot take it.
      const claimed = await store.runs.create({
        agentId: agent.id,
        agentName: agent.name,
        environmentId: agent.environmentId,
        task: args.task,
        variables,
        source: 'cli',
        claimedBy: { workerId, leaseMs: 60_000 },
      });
      if (!this.jsonEnabled()) this.log(`run ${claimed.id}: ${agent.name} (${flags.env})`);
      const finished = await runtime.runner
        .execute(claimed, {
          workerId,
          signal: controller.signal,
          ...(flags.timeout !== undefined ? { timeoutMs: flags.timeout * 1000 } : {}),
          onEvent: (event) => {
            if (!this.jsonEnabled()) this.log(describe(event));
          },
        })
        .catch(async (err: unknown) => {
          // The runner records its own failures; this is for the store itself failing under it.
          const message = core.redactSecrets(`internal error: ${(err as Error).message}`);
          await store.runs
            .markFailed(claimed.id, { error: message, workerId })
            .catch(() => undefined);
          throw err;
        });
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
        this.log(`\n${finished.finalResponse ?? ''}\n`);
      } else {
        this.logToStderr(`\nRun ${finished.id} ended ${finished.status}: ${finished.error ?? ''}`);
      }
      this.log(
        `run ${finished.id} ${finished.status} in ${((view.duration_ms ?? 0) / 1000).toFixed(1)}s, ` +
          `${finished.stepsTaken} model turns, tokens ${finished.inputTokens} in / ${finished.outputTokens} out`,
      );
      if (exit !== 0) return this.exit(exit);
      return view;
    } finally {
      process.off('SIGINT', onSigint);
      await runtime.close();
      await ctx.close();
    }
  }
}

function describe(event: RunProgressEvent): string {
  if (event.type === 'model_turn') {
    const t = event.turn;
    const calls = t.toolCalls.length ? `  → ${t.toolCalls.map((c) => c.name).join(', ')}` : '';
    return `turn ${t.step}  ${t.model}  ${t.inputTokens} in / ${t.outputTokens} out  ${t.latencyMs}ms${calls}`;
  }
  if (event.type === 'tool_call') {
    const c = event.call;
    return `  tool ${c.server}/${c.tool}  ${c.success ? 'ok' : `error: ${(c.error ?? '').slice(0, 120)}`}  ${c.durationMs}ms`;
  }
  return `  sub-agent ${event.agent}: run ${event.childRunId} ${event.status}`;
}
