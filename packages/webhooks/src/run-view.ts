// How the webhook server shows a run (GET /runs/:run_id) and answers an accepted execute.
import { runDurationMs, type Run } from '@junction/store';

/**
 * A run as GET /runs/:run_id returns it, inside `{"run": …}` (snake_case, times as ISO 8601 UTC or
 * null). `run_id` is the name POST /execute and the REST API use; `id` is the same value, kept for
 * callers written before `run_id` was added.
 */
export interface RunView {
  run_id: number;
  id: number;
  agent_id: number | null;
  agent_name: string;
  status: string;
  task: string;
  steps_taken: number;
  final_response: string | null;
  error: string | null;
  input_tokens: number;
  output_tokens: number;
  model: string | null;
  queued_at: string;
  started_at: string | null;
  completed_at: string | null;
  duration_ms: number | null;
  source: string;
}

/** The run's fields for GET /runs/:run_id. */
export function runView(run: Run): RunView {
  return {
    run_id: run.id,
    id: run.id,
    agent_id: run.agentId,
    agent_name: run.agentName,
    status: run.status,
    task: run.task,
    steps_taken: run.stepsTaken,
    final_response: run.finalResponse,
    error: run.error,
    input_tokens: run.inputTokens,
    output_tokens: run.outputTokens,
    model: run.model,
    queued_at: run.queuedAt.toISOString(),
    started_at: run.startedAt?.toISOString() ?? null,
    completed_at: run.completedAt?.toISOString() ?? null,
    duration_ms: runDurationMs(run),
    source: run.source,
  };
}

/** The 202 body of POST /execute (spec §4.1); a replayed request gets the same body. */
export interface ExecuteAccepted {
  run_id: number;
  agent_id: number | null;
  agent_name: string;
  status: 'running';
  message: string;
}

/** The 202 body for a started run; built from the run alone, so a replay is byte-identical. */
export function executeAccepted(run: Run): ExecuteAccepted {
  return {
    run_id: run.id,
    agent_id: run.agentId,
    agent_name: run.agentName,
    status: 'running',
    message: `Run ${run.id} of agent "${run.agentName}" started. Follow it with GET /runs/${run.id}.`,
  };
}
