// Which agent a POST /execute body names, with refusals that say how to name it correctly.
import { DEFAULT_ENVIRONMENT } from '@junction/config-templates';
import type { Agent, AgentRef, Store } from '@junction/store';
import { WebhookError } from './errors.js';
import type { ExecuteRequest } from './execute-request.js';

const LIST_HINT = 'List agents with `junction agent list` or GET /api/v1/agents';

/**
 * The agent of an execute request. `agent_id` names one agent directly (and must agree with
 * `agent_name` / `environment` when they are sent too). A name is looked up in `environment`
 * when given; otherwise in the default environment first, then in the one environment that
 * has an agent of that name. A name found in several other environments is AGENT_AMBIGUOUS.
 */
export async function resolveExecuteAgent(
  store: Store,
  request: ExecuteRequest,
): Promise<AgentRef> {
  const { agent_id: agentId, agent_name: agentName, environment } = request;
  const env = environment === undefined ? undefined : await requireEnvironment(store, environment);
  if (agentId !== undefined) {
    const agent = await store.agents.get(agentId);
    if (!agent) {
      throw new WebhookError(
        'AGENT_NOT_FOUND',
        `No agent has id ${agentId}. ${LIST_HINT} for valid ids.`,
        {
          agent_id: agentId,
        },
      );
    }
    if (agentName !== undefined && agentName !== agent.name) {
      throw new WebhookError(
        'INVALID_REQUEST',
        `agent_id ${agentId} is agent "${agent.name}", not "${agentName}". Send only one of agent_id and agent_name.`,
        { field: 'agent_name', agent_id: agentId },
      );
    }
    if (env && env.id !== agent.environmentId) {
      throw new WebhookError(
        'INVALID_REQUEST',
        `Agent ${agentId} ("${agent.name}") is not in environment "${env.name}". Leave environment out when you send agent_id.`,
        { field: 'environment', agent_id: agentId },
      );
    }
    return agent;
  }
  const name = agentName ?? '';
  if (env) {
    const agent = await store.agents.getByName(env.id, name);
    if (!agent) {
      throw new WebhookError(
        'AGENT_NOT_FOUND',
        `Environment "${env.name}" has no agent named "${name}". ${LIST_HINT}; if its prompt file is new, run \`junction sync ${env.name}\`.`,
        { agent_name: name, environment: env.name },
      );
    }
    return agent;
  }
  const found = await store.agents.findByName(name, DEFAULT_ENVIRONMENT);
  if (found.agent) return found.agent;
  // Several environments have it and none is the default: name them (read again, so a sync
  // that removed some meanwhile leaves one agent, or none, to answer with).
  const matches = found.count === 0 ? [] : await store.agents.list({ name, limit: 1000 });
  if (matches.length === 0) {
    throw new WebhookError(
      'AGENT_NOT_FOUND',
      `No agent is named "${name}". ${LIST_HINT}; if its prompt file is new, run \`junction sync <environment>\`.`,
      { agent_name: name },
    );
  }
  if (matches.length === 1) return matches[0] as Agent;
  const environments = new Map((await store.environments.list()).map((e) => [e.id, e.name]));
  const where = matches.map(
    (a) => `"${environments.get(a.environmentId) ?? '?'}" (agent_id ${a.id})`,
  );
  throw new WebhookError(
    'AGENT_AMBIGUOUS',
    `Several environments have an agent named "${name}": ${where.join(', ')}. Send "environment" with the name, or agent_id.`,
    { agent_name: name, agent_ids: matches.map((a) => a.id) },
  );
}

async function requireEnvironment(
  store: Store,
  name: string,
): Promise<{ id: number; name: string }> {
  const env = await store.environments.getByName(name);
  if (!env) {
    throw new WebhookError(
      'ENVIRONMENT_NOT_FOUND',
      `No environment is named "${name}". List them with \`junction env list\`; leave environment out to use "${DEFAULT_ENVIRONMENT}".`,
      { environment: name },
    );
  }
  return env;
}
