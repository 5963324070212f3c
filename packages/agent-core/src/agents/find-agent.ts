// The one rule for which agent a run request means, used by every caller of submitRun.
import { DEFAULT_ENVIRONMENT } from '@junction/config-templates';
import type { AgentRef, Environment, Store } from '@junction/store';
import { AgentCoreError } from '../errors.js';
import { AGENT_LIST_HINT as LIST_HINT, requireAgent } from './agent-admin.js';

/** How a request names its agent: an id, or a name with an optional environment. */
export interface AgentSelector {
  agent_id?: number | undefined;
  agent_name?: string | undefined;
  /** Environment name. */
  environment?: string | undefined;
  environment_id?: number | undefined;
}

function invalid(field: string, message: string, details: Record<string, unknown> = {}): never {
  throw new AgentCoreError('RUN_REQUEST_INVALID', message, {
    field,
    problems: [{ field, message }],
    ...details,
  });
}

async function environmentOf(
  store: Pick<Store, 'environments'>,
  selector: AgentSelector,
): Promise<Pick<Environment, 'id' | 'name'> | undefined> {
  const { environment: name, environment_id: id } = selector;
  if (id !== undefined) {
    const env = await store.environments.get(id);
    if (!env) {
      throw new AgentCoreError(
        'ENVIRONMENT_NOT_FOUND',
        `No environment has id ${id}. List them with \`junction env list\`, GET /api/v1/environments or list_environments.`,
        { environment_id: id },
      );
    }
    if (name !== undefined && name !== env.name) {
      invalid(
        'environment',
        `environment_id ${id} is environment "${env.name}", not "${name}". Send only one of environment and environment_id.`,
      );
    }
    return env;
  }
  if (name === undefined) return undefined;
  const env = await store.environments.getByName(name);
  if (!env) {
    throw new AgentCoreError(
      'ENVIRONMENT_NOT_FOUND',
      `No environment is named "${name}". List them with \`junction env list\`; leave the environment out to use "${DEFAULT_ENVIRONMENT}".`,
      { environment: name },
    );
  }
  return env;
}

/**
 * The agent a request means. `agent_id` names one agent (a name or environment sent with it
 * must agree). A name is looked up in the environment when one is given; otherwise in
 * "default" first, then in the one environment that has an agent of that name. A name found
 * in several environments, none of them "default", is AGENT_AMBIGUOUS.
 */
export async function findAgent(
  store: Pick<Store, 'environments' | 'agents'>,
  selector: AgentSelector,
): Promise<AgentRef> {
  const { agent_id: agentId, agent_name: agentName } = selector;
  const env = await environmentOf(store, selector);
  if (agentId !== undefined) {
    const agent = await requireAgent(store, agentId);
    if (agentName !== undefined && agentName !== agent.name) {
      invalid(
        'agent_name',
        `agent_id ${agentId} is agent "${agent.name}", not "${agentName}". Send only one of agent_id and agent_name.`,
        { agent_id: agentId },
      );
    }
    if (env && env.id !== agent.environmentId) {
      invalid(
        'environment',
        `Agent ${agentId} ("${agent.name}") is not in environment "${env.name}". Leave the environment out when you send agent_id.`,
        { agent_id: agentId },
      );
    }
    return agent;
  }
  if (agentName === undefined) {
    invalid('agent_name', 'agent_name is required (or agent_id): the agent to run');
  }
  if (env) {
    const agent = await store.agents.getByName(env.id, agentName);
    if (!agent) {
      throw new AgentCoreError(
        'AGENT_NOT_FOUND',
        `Environment "${env.name}" has no agent named "${agentName}". ${LIST_HINT}; if its prompt file is new, run \`junction sync ${env.name}\`.`,
        { agent_name: agentName, environment: env.name, environment_id: env.id },
      );
    }
    return agent;
  }
  const found = await store.agents.findByName(agentName, DEFAULT_ENVIRONMENT);
  if (found.agent) return found.agent;
  // Several environments have it and none is the default: name them (read again, so a sync
  // that removed some meanwhile leaves one agent, or none, to answer with).
  const matches =
    found.count === 0 ? [] : await store.agents.list({ name: agentName, limit: 1000 });
  const [only, ...others] = matches;
  if (!only) {
    throw new AgentCoreError(
      'AGENT_NOT_FOUND',
      `No agent is named "${agentName}". ${LIST_HINT}; if its prompt file is new, run \`junction sync <environment>\`.`,
      { agent_name: agentName },
    );
  }
  if (others.length === 0) return only;
  const names = new Map((await store.environments.list()).map((e) => [e.id, e.name]));
  const where = matches.map(
    (a) =>
      `"${names.get(a.environmentId) ?? '?'}" (environment_id ${a.environmentId}, agent_id ${a.id})`,
  );
  throw new AgentCoreError(
    'AGENT_AMBIGUOUS',
    `Several environments have an agent named "${agentName}": ${where.join(', ')}. Name the environment with the agent, or send agent_id.`,
    { agent_name: agentName, agent_ids: matches.map((a) => a.id) },
  );
}
