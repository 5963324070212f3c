// Store rows shaped as the REST API answers them: snake_case keys, ISO dates, ids as numbers.
// Each function's return type is inferred from the zod schema the OpenAPI document publishes.
import { agentView } from '@junction/agent-core';
import { runDurationMs } from '@junction/store';
import type { Agent, EnvironmentSummary, Run, RunEvent, Store } from '@junction/store';
import type { AgentBody, EnvironmentBody, RunBody, RunEventBody } from './schemas.js';

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** An agent as every surface shows it (agent-core's agentView, checked against the schema). */
export async function agentBody(store: Store, agent: Agent): Promise<AgentBody> {
  return agentView(store, agent);
}

/** A run, with the same fields as `junction runs list --json`. */
export function runBody(run: Run): RunBody {
  return {
    run_id: run.id,
    agent_id: run.agentId,
    agent_name: run.agentName,
    environment_id: run.environmentId,
    status: run.status,
    source: run.source,
    parent_run_id: run.parentRunId,
    model: run.model,
    steps_taken: run.stepsTaken,
    input_tokens: run.inputTokens,
    output_tokens: run.outputTokens,
    duration_ms: runDurationMs(run),
    task: run.task,
    final_response: run.finalResponse,
    error: run.error,
    trace_id: run.traceId,
    queued_at: run.queuedAt.toISOString(),
    started_at: iso(run.startedAt),
    completed_at: iso(run.completedAt),
  };
}

/** One run event; `redact` removes secret-looking keys from the payload. */
export function runEventBody(event: RunEvent, redact: (value: unknown) => unknown): RunEventBody {
  return {
    seq: event.seq,
    type: event.type,
    duration_ms: event.durationMs,
    created_at: event.createdAt.toISOString(),
    payload: redact(event.payload ?? null),
  };
}

/** An environment with its counts, as `junction env list --json` shows them. */
export function environmentBody(env: EnvironmentSummary): EnvironmentBody {
  return {
    id: env.id,
    name: env.name,
    agents: env.agents,
    mcp_configs: env.mcpConfigs,
    mcp_servers: env.servers,
    tools: env.tools,
    last_synced_at: iso(env.lastSyncedAt),
  };
}
