// Store rows shaped as the REST API answers them: snake_case keys, ISO dates, ids as numbers.
// Each function's return type is inferred from the zod schema the OpenAPI document publishes.
import { agentView } from '@junction/agent-core/agents';
import { isoOrNull as iso, runView } from '@junction/agent-core/runs';
import type { Agent, EnvironmentSummary, Run, RunEvent, Store } from '@junction/store';
import type { AgentBody, EnvironmentBody, RunBody, RunEventBody } from './schemas.js';

/** An agent as every surface shows it (agent-core's agentView, checked against the schema). */
export async function agentBody(store: Store, agent: Agent): Promise<AgentBody> {
  return agentView(store, agent);
}

/** A run, with the same fields as `junction runs list --json` (agent-core's runView). */
export function runBody(run: Run): RunBody {
  return runView(run);
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
