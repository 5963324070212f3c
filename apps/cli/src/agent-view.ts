import type { Agent, Store } from '@junction/store';

/** An agent as the CLI prints it (snake_case, like the other surfaces). */
export interface AgentView {
  id: number;
  name: string;
  environment: string;
  description: string;
  model: string | null;
  max_steps: number | null;
  prompt_path: string | null;
  tools: Array<{ name: string; server: string; description: string | null }>;
  sub_agents: string[];
  schedule: { cron: string; enabled: boolean } | null;
  coding_enabled: boolean;
  updated_at: string;
}

/** Loads an agent's bindings and shapes it for output. */
export async function agentView(
  store: Store,
  agent: Agent,
  environment: string,
): Promise<AgentView> {
  const listed = await store.tools.list({ environmentId: agent.environmentId, limit: 10_000 });
  const serverOf = new Map(listed.map((t) => [t.id, t.serverName]));
  const tools = await store.agents.listTools(agent.id);
  const subs = await store.agents.listSubAgents(agent.id);
  return {
    id: agent.id,
    name: agent.name,
    environment,
    description: agent.description,
    model: agent.model ?? null,
    max_steps: agent.maxSteps ?? null,
    prompt_path: agent.promptPath ?? null,
    tools: tools.map((t) => ({
      name: t.name,
      server: serverOf.get(t.id) ?? '',
      description: t.description ?? null,
    })),
    sub_agents: subs.map((a) => a.name),
    schedule: agent.scheduleCron
      ? { cron: agent.scheduleCron, enabled: agent.scheduleEnabled }
      : null,
    coding_enabled: agent.codingEnabled,
    updated_at: agent.updatedAt.toISOString(),
  };
}
