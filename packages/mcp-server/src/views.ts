// Records as MCP clients see them: snake_case keys, ISO dates, ids as numbers.
import type { Run, RunEvent } from '@junction/store';
import { runDurationMs } from '@junction/store';
import { attemptViews, runView, type RunView } from '@junction/agent-core/runs';
import { iso } from './tool-kit.js';

/** Tasks longer than this are cut in run lists. */
const LIST_TASK_CHARS = 200;

/** The outcome of a run as call_agent answers it. */
export function runOutcome(run: Run): Record<string, unknown> {
  return {
    run_id: run.id,
    agent_id: run.agentId,
    agent_name: run.agentName,
    status: run.status,
    steps_taken: run.stepsTaken,
    final_response: run.finalResponse ?? null,
    error: run.error ?? null,
    input_tokens: run.inputTokens,
    output_tokens: run.outputTokens,
    duration_ms: runDurationMs(run),
  };
}

/**
 * agent-core's runView as MCP answers it: without `cost_usd`, which the MCP tools do not
 * document (docs/mcp.md); the CLI, REST and the dashboard show the cost.
 */
export function mcpRunView(run: Run): Omit<RunView, 'cost_usd'> {
  const { cost_usd: _cost, ...view } = runView(run);
  return view;
}

/** One line of list_runs: the run's view without the long or rarely listed fields, the task cut. */
export function runSummary(run: Run): Record<string, unknown> {
  const {
    parent_run_id: _parent,
    model: _model,
    final_response: _response,
    trace_id: _trace,
    cancel_requested_at: _cancel,
    attempt: _attempt,
    origin: _origin,
    ...line
  } = mcpRunView(run);
  const { task } = line;
  return {
    ...line,
    task: task.length > LIST_TASK_CHARS ? `${task.slice(0, LIST_TASK_CHARS)}…` : task,
  };
}

/** Everything about one run (inspect_run): the run's view, plus variables, attempts and events. */
export function runDetail(
  run: Run,
  variables: unknown,
  events: readonly RunEvent[],
  verbose: boolean,
): Record<string, unknown> {
  return {
    ...mcpRunView(run),
    variables,
    attempts: attemptViews(
      run,
      events.filter((e) => e.type === 'attempt_ended'),
      events.filter((e) => e.type === 'resumed'),
    ),
    event_count: events.length,
    events: events.map((e) => ({
      seq: e.seq,
      type: e.type,
      duration_ms: e.durationMs ?? null,
      at: iso(e.createdAt),
      ...(verbose ? { payload: e.payload ?? null } : {}),
    })),
  };
}
