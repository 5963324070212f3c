import { z } from 'zod';
import { runRequestFields, summarizeEvent } from '@junction/agent-core/runs';
import type { Run } from '@junction/store';
import { idArg } from '../arguments.js';
import { defineTool, type ToolContext } from '../tool-kit.js';
import { runOutcome } from '../views.js';

/** Longest wait a caller may ask for. */
const MAX_TIMEOUT_SECONDS = 3600;
/** How often a waiting call_agent sends a progress notification (when the client wants them). */
const PROGRESS_EVERY_MS = 5_000;

function isActive(run: Run): boolean {
  return run.status === 'queued' || run.status === 'running';
}

/**
 * Waits for the run's end. A client that asked for progress hears every event of the run as it
 * happens, whichever host executes it (the run door's follow), and a line every few seconds
 * while nothing happens.
 */
async function waitWithProgress(run: Run, timeoutMs: number, ctx: ToolContext): Promise<Run> {
  if (!ctx.wantsProgress) {
    return ctx.deps.runs.waitFor(run.id, { timeoutMs, signal: ctx.signal });
  }
  const started = Date.now();
  let sent = 0;
  let quietSince = Date.now();
  const say = (message: string): void => {
    sent += 1;
    quietSince = Date.now();
    void ctx.progress(sent, message);
  };
  const ticker = setInterval(() => {
    if (Date.now() - quietSince < PROGRESS_EVERY_MS) return;
    const seconds = Math.round((Date.now() - started) / 1000);
    say(`run ${run.id} of ${run.agentName} is still going (${seconds} s)`);
  }, PROGRESS_EVERY_MS);
  ticker.unref();
  try {
    return await ctx.deps.runs.follow(run.id, {
      signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutMs)]),
      onEvent: (event) =>
        say(
          ctx.redactText(
            `run ${run.id}: ${event.type} ${summarizeEvent(event.type, event.payload)}`.trimEnd(),
          ),
        ),
    });
  } finally {
    clearInterval(ticker);
  }
}

export const callAgentTool = defineTool({
  name: 'call_agent',
  title: 'Run an agent',
  description:
    'Runs a Junction agent on a task and returns its answer. Name the agent with agent_id (from list_agents) ' +
    'or agent_name (a name alone means the agent in the "default" environment, else the one environment that has it; ' +
    'add environment_id when several environments have an agent of that name). ' +
    'By default the call waits for the run to finish (up to `timeout` seconds) and returns run_id, status, ' +
    'final_response, steps_taken, token counts and duration. With async=true it returns the run_id at once; ' +
    'follow the run with inspect_run. A run still going when the wait ends keeps running: use inspect_run.',
  shape: {
    agent_id: idArg(
      'agent_id',
      'Id of the agent to run, a string of digits from list_agents. Give this or agent_name.',
    ).optional(),
    agent_name: runRequestFields.agent_name
      .optional()
      .describe('Name of the agent to run, instead of agent_id.'),
    environment_id: idArg(
      'environment_id',
      'Environment of agent_name, when several environments have an agent of that name.',
    ).optional(),
    task: runRequestFields.task.describe('What the agent should do (its user message).'),
    variables: runRequestFields.variables
      .optional()
      .describe('Values for the variables of the agent prompt, as {"NAME": "value"}.'),
    async: z
      .boolean({ error: 'async must be true or false' })
      .optional()
      .describe('true: return the run_id at once without waiting. Default false.'),
    timeout: z
      .number({ error: 'timeout must be a number of seconds' })
      .positive({ error: 'timeout must be more than 0 seconds' })
      .max(MAX_TIMEOUT_SECONDS, { error: `timeout must be at most ${MAX_TIMEOUT_SECONDS} seconds` })
      .optional()
      .describe(
        'Seconds to wait for the run to finish before answering with its current status. Default 300.',
      ),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
  async run(args, ctx) {
    const { run, agent } = await ctx.deps.runs.submit({
      agent_id: args.agent_id,
      agent_name: args.agent_name,
      environment_id: args.environment_id,
      task: args.task,
      variables: args.variables,
      source: 'mcp',
    });
    if (args.async === true) {
      return {
        data: {
          run_id: run.id,
          status: run.status,
          agent_id: agent.id,
          agent_name: agent.name,
          message: `Run ${run.id} was queued. Call inspect_run with run_id "${run.id}" to follow it.`,
        },
      };
    }
    const timeoutMs =
      args.timeout !== undefined ? Math.round(args.timeout * 1000) : ctx.deps.defaultWaitMs;
    let current: Run;
    try {
      current = await waitWithProgress(run, timeoutMs, ctx);
    } catch (err) {
      // The run is queued and will go on: never invite a retry that would queue it twice.
      ctx.logger.warn('call_agent could not follow its run', {
        run_id: run.id,
        error: ctx.redactText(err instanceof Error ? err.message : String(err)),
      });
      return {
        data: {
          ...runOutcome(run),
          message: `Run ${run.id} was queued, but following it failed. It keeps going: call inspect_run with run_id "${run.id}" to follow it.`,
        },
      };
    }
    const outcome = runOutcome(current);
    if (isActive(current)) {
      const seconds = Math.round(timeoutMs / 1000);
      return {
        data: {
          ...outcome,
          message: `Run ${current.id} is still ${current.status} after waiting ${seconds} s; it keeps going. Call inspect_run with run_id "${current.id}" to follow it.`,
        },
      };
    }
    if (current.status !== 'completed') {
      return {
        isError: true,
        summary: `Run ${current.id} of agent "${current.agentName}" ended with status ${current.status}: ${current.error ?? 'no error recorded'}`,
        data: outcome,
      };
    }
    return { data: outcome };
  },
});
