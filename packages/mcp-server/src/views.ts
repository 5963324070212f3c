// Records as MCP clients see them: snake_case keys, ISO dates, ids as numbers.
import type { Run, RunEvent } from '@junction/store';
import { runDurationMs } from '@junction/store';
import { runView } from '@junction/agent-core';
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

/** One line of list_runs. */
export function runSummary(run: Run): Record<string, unknown> {
  return {
    run_id: run.id,
    agent_id: run.agentId,
    agent_name: run.agentName,
    environment_id: run.environmentId,
    status: run.status,
    source: run.source,
    task: run.task.length > LIST_TASK_CHARS ? `${run.task.slice(0, LIST_TASK_CHARS)}…` : run.task,
    steps_taken: run.stepsTaken,
    input_tokens: run.inputTokens,
    output_tokens: run.outputTokens,
    error: run.error ?? null,
    queued_at: iso(run.queuedAt),
    started_at: iso(run.startedAt),
    completed_at: iso(run.completedAt),
    duration_ms: runDurationMs(run),
  };
}

/** Everything about one run (inspect_run): agent-core's runView, plus variables and events. */
export function runDetail(
  run: Run,
  variables: unknown,
  events: readonly RunEvent[],
  verbose: boolean,
): Record<string, unknown> {
  return {
    ...runView(run),
    variables,
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
