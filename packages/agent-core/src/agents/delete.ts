// Deleting an agent or a whole environment by hand (`junction agent delete`, `junction env
// delete`): files first, then records, so a delete cut short is finished by running it again.
// Run history stays: runs keep the agent's name, and their agent and environment become null.
import { rm, stat } from 'node:fs/promises';
import type { Workspace } from '@junction/config-templates';
import type { RunReader, Store } from '@junction/store';
import { AgentCoreError } from '../errors.js';

const ACTIVE = ['queued', 'running'] as const;

export interface DeletedAgent {
  agent: string;
  environment: string;
  /** The prompt file removed, or null when there was none. */
  prompt_file: string | null;
  /** Runs of the agent kept in the history. */
  runs_kept: number;
}

/**
 * Deletes an agent: its prompt file, then its record (its tool bindings, sub-agent links and
 * schedule go with it). Refused (AGENT_IN_USE, nothing deleted) while a run of it is queued or
 * running, or while another agent of its environment calls it as a sub-agent; AGENT_NOT_FOUND
 * when neither a record nor a file exists.
 */
export async function deleteAgent(input: {
  store: Pick<Store, 'environments' | 'agents'> & { readonly runs: RunReader };
  workspace: Workspace;
  environment: string;
  name: string;
}): Promise<DeletedAgent> {
  const { store, workspace, environment, name } = input;
  const file = workspace.agentFile(environment, name);
  const env = await store.environments.getByName(environment);
  const agent = env ? await store.agents.getByName(env.id, name) : undefined;
  const hasFile = await fileExists(file);
  if (!agent && !hasFile) {
    throw new AgentCoreError(
      'AGENT_NOT_FOUND',
      `Agent "${name}" is not in environment "${environment}" (no record, no prompt file). \`junction agent list\` shows the agents.`,
      { agent: name, environment },
    );
  }
  let runsKept = 0;
  if (agent && env) {
    const active = await store.runs.count({ agentId: agent.id, status: [...ACTIVE] });
    if (active > 0) {
      throw new AgentCoreError(
        'AGENT_IN_USE',
        `Agent "${name}" has ${active} queued or running run${active === 1 ? '' : 's'}; cancel ${active === 1 ? 'it' : 'them'} first (\`junction runs list --agent ${name} --status running,queued\`, then \`junction runs cancel <id>\`).`,
        { agent: name, environment, active_runs: active },
      );
    }
    const callers: string[] = [];
    for (const other of await store.agents.list({ environmentId: env.id, limit: 10_000 })) {
      if (other.id !== agent.id && (await store.agents.getSubAgentIds(other.id)).includes(agent.id))
        callers.push(other.name);
    }
    if (callers.length > 0) {
      throw new AgentCoreError(
        'AGENT_IN_USE',
        `Agent "${name}" is a sub-agent of ${callers.map((c) => `"${c}"`).join(', ')}; remove it from their \`agents:\` list (and sync) first.`,
        { agent: name, environment, callers },
      );
    }
    runsKept = await store.runs.count({ agentId: agent.id });
  }
  if (hasFile) await rm(file, { force: true });
  if (agent) await store.agents.delete(agent.id);
  return { agent: name, environment, prompt_file: hasFile ? file : null, runs_kept: runsKept };
}

export interface DeletedEnvironment {
  environment: string;
  /** The folder removed, or null when there was none. */
  folder: string | null;
  /** Agents whose records went with it. */
  agents: number;
  /** Runs of its agents kept in the history. */
  runs_kept: number;
}

/**
 * Deletes an environment: its folder (templates, variables, prompt files, workflows), then its
 * records (agents, tool servers, tools, workflows, schedules). Refused (ENVIRONMENT_IN_USE,
 * nothing deleted) while a run or workflow run of it is queued or running;
 * ENVIRONMENT_NOT_FOUND when neither a folder nor a record exists.
 */
export async function deleteEnvironment(input: {
  store: Pick<Store, 'environments' | 'agents' | 'workflowRuns'> & { readonly runs: RunReader };
  workspace: Workspace;
  environment: string;
}): Promise<DeletedEnvironment> {
  const { store, workspace, environment } = input;
  const folder = workspace.environmentDir(environment);
  const env = await store.environments.getByName(environment);
  const hasFolder = await workspace.hasEnvironment(environment);
  if (!env && !hasFolder) {
    throw new AgentCoreError(
      'ENVIRONMENT_NOT_FOUND',
      `Environment "${environment}" does not exist (no folder, no record). \`junction env list\` shows the environments.`,
      { environment },
    );
  }
  let agents = 0;
  let runsKept = 0;
  if (env) {
    const active =
      (await store.runs.count({ environmentId: env.id, status: [...ACTIVE] })) +
      (
        await store.workflowRuns.list({
          environmentId: env.id,
          status: ['pending', 'running', 'waiting_approval'],
          limit: 1,
        })
      ).length;
    if (active > 0) {
      throw new AgentCoreError(
        'ENVIRONMENT_IN_USE',
        `Environment "${environment}" has runs or workflow runs that are queued, running or waiting; cancel them first (\`junction runs list --env ${environment} --status running,queued\`, \`junction workflow runs\`).`,
        { environment },
      );
    }
    agents = await store.agents.count({ environmentId: env.id });
    runsKept = await store.runs.count({ environmentId: env.id });
  }
  if (hasFolder) await workspace.removeEnvironment(environment);
  if (env) await store.environments.delete(env.id);
  return {
    environment,
    folder: hasFolder ? folder : null,
    agents,
    runs_kept: runsKept,
  };
}

async function fileExists(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}
