// Finding what an argument names, with refusals that say which list tool gives valid ids.
import type { Agent, Environment, McpConfig, Run, Store } from '@junction/store';
import { McpServerError } from './errors.js';

/** What each id argument names: its error code, its field and the tool that lists valid ids. */
const KINDS = {
  environment: ['ENVIRONMENT_NOT_FOUND', 'environment_id', 'environment', 'list_environments'],
  agent: ['AGENT_NOT_FOUND', 'agent_id', 'agent', 'list_agents'],
  run: ['RUN_NOT_FOUND', 'run_id', 'run', 'list_runs'],
  config: ['CONFIG_NOT_FOUND', 'config_id', 'MCP config', 'list_mcp_configs'],
} as const;

/** `found`, or the NOT_FOUND refusal of `kind` naming the list tool with valid ids. */
function required<T>(found: T | undefined, kind: keyof typeof KINDS, id: number): T {
  if (found !== undefined) return found;
  const [code, field, noun, tool] = KINDS[kind];
  // "valid config ids": the field's name without `_id`.
  const ids = `${field.slice(0, -'_id'.length)} ids`;
  throw new McpServerError(code, `No ${noun} has id ${id}. Call ${tool} for valid ${ids}.`, {
    [field]: id,
  });
}

/** The environment with this id, or ENVIRONMENT_NOT_FOUND. */
export async function requireEnvironment(store: Store, id: number): Promise<Environment> {
  return required(await store.environments.get(id), 'environment', id);
}

/** The agent with this id, or AGENT_NOT_FOUND. */
export async function requireAgent(store: Store, id: number): Promise<Agent> {
  return required(await store.agents.get(id), 'agent', id);
}

/** The run with this id, or RUN_NOT_FOUND. */
export async function requireRun(store: Store, id: number): Promise<Run> {
  return required(await store.runs.get(id), 'run', id);
}

/** The MCP config with this id, or CONFIG_NOT_FOUND. */
export async function requireConfig(store: Store, id: number): Promise<McpConfig> {
  return required(await store.mcpConfigs.get(id), 'config', id);
}

/**
 * The agent an id or a name points at. A name alone must be unique across environments;
 * `environmentId` picks one when it is not. Given both an id and a name, they must agree.
 */
export async function resolveAgent(
  store: Store,
  ref: { agentId?: number; agentName?: string; environmentId?: number },
): Promise<Agent> {
  const { agentId, agentName, environmentId } = ref;
  if (agentId !== undefined) {
    const agent = await requireAgent(store, agentId);
    if (agentName !== undefined && agentName !== agent.name) {
      throw new McpServerError(
        'ARGUMENT_INVALID',
        `agent_id ${agentId} is agent "${agent.name}", not "${agentName}". Send only one of agent_id and agent_name.`,
        { agent_id: agentId, agent_name: agentName },
      );
    }
    if (environmentId !== undefined && environmentId !== agent.environmentId) {
      throw new McpServerError(
        'ARGUMENT_INVALID',
        `Agent ${agentId} belongs to environment ${agent.environmentId}, not ${environmentId}.`,
        { agent_id: agentId, environment_id: environmentId },
      );
    }
    return agent;
  }
  if (agentName === undefined) {
    throw new McpServerError(
      'ARGUMENT_INVALID',
      'Give agent_id (from list_agents) or agent_name to say which agent to run.',
    );
  }
  if (environmentId !== undefined) {
    const env = await requireEnvironment(store, environmentId);
    const agent = await store.agents.getByName(env.id, agentName);
    if (!agent) {
      throw new McpServerError(
        'AGENT_NOT_FOUND',
        `Environment "${env.name}" (id ${env.id}) has no agent named "${agentName}". Call list_agents with environment_id "${env.id}" for its agents.`,
        { agent_name: agentName, environment_id: env.id },
      );
    }
    return agent;
  }
  const matches = await store.agents.list({ name: agentName, limit: 100 });
  const [only, ...others] = matches;
  if (!only) {
    throw new McpServerError(
      'AGENT_NOT_FOUND',
      `No agent is named "${agentName}". Call list_agents for the agents and their ids.`,
      { agent_name: agentName },
    );
  }
  if (others.length > 0) {
    const environments = await store.environments.list();
    const names = new Map(environments.map((e) => [e.id, e.name]));
    const where = matches
      .map(
        (a) =>
          `agent_id "${a.id}" in ${names.get(a.environmentId) ?? '?'} (environment_id "${a.environmentId}")`,
      )
      .join(', ');
    throw new McpServerError(
      'AGENT_AMBIGUOUS',
      `Several environments have an agent named "${agentName}": ${where}. Send agent_id, or environment_id with the name.`,
      { agent_name: agentName, agent_ids: matches.map((a) => a.id) },
    );
  }
  return only;
}
