// Creating and changing agents from a surface (CLI, MCP, REST): the prompt file is the
// source of truth, so every change is written to the file and registered in the store, and
// everything is checked before the file is touched, so a refusal leaves nothing behind.
import { rm } from 'node:fs/promises';
import {
  assertValidName,
  parsePrompt,
  parsePromptFile,
  promptFileText,
  updatedPromptFileText,
  writeFileAtomic,
  writePromptFile,
  type PromptFileChanges,
  type Workspace,
} from '@junction/config-templates';
import type { Agent, Store } from '@junction/store';
import { checkSubAgents, registerAgent, resolveTools, storedToolIndex } from './agent-registry.js';
import { AgentCoreError } from '../errors.js';

/** A new agent as a caller describes it. */
export interface AgentDraft {
  name: string;
  description: string;
  /** System prompt text, or a whole body when it contains {{role ...}} markers. */
  prompt?: string;
  model?: string;
  maxSteps?: number;
  /** Tool names from the environment (a `__` prefix is accepted). */
  tools?: string[];
  /** Sub-agents of the same environment. */
  agents?: string[];
}

/** An agent as the surfaces show it (snake_case, like the REST and MCP payloads). */
export interface AgentView {
  id: number;
  name: string;
  environment: string;
  environment_id: number;
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

/** Loads an agent's environment and bindings and shapes it for output. */
export async function agentView(
  store: Pick<Store, 'environments' | 'tools' | 'agents' | 'schedules'>,
  agent: Agent,
): Promise<AgentView> {
  const environment = await store.environments.get(agent.environmentId);
  const listed = await store.tools.list({ environmentId: agent.environmentId, limit: 10_000 });
  const serverOf = new Map(listed.map((t) => [t.id, t.serverName]));
  const tools = await store.agents.listTools(agent.id);
  const subs = await store.agents.listSubAgents(agent.id);
  // The schedule in force: the one `schedule set` / `schedule remove` left, else the prompt
  // file's as the last sync stored it — never the file's own line once an operator changed it.
  const schedule = await store.schedules.getFor('agent', agent.id);
  return {
    id: agent.id,
    name: agent.name,
    environment: environment?.name ?? '',
    environment_id: agent.environmentId,
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
    schedule: schedule ? { cron: schedule.cron, enabled: schedule.enabled } : null,
    coding_enabled: agent.codingEnabled,
    updated_at: agent.updatedAt.toISOString(),
  };
}

export interface CreateAgentInput {
  store: Pick<Store, 'environments' | 'tools' | 'agents'>;
  workspace: Workspace;
  /** Environment name; it must exist on disk. */
  environment: string;
  draft: AgentDraft;
}

/**
 * Writes `agents/<name>.prompt` and registers the agent. Refused (nothing written) when the
 * name is invalid, the environment does not exist, the agent exists, or a tool or sub-agent
 * is unknown.
 */
export async function createAgent(input: CreateAgentInput): Promise<Agent> {
  const { store, workspace, environment, draft } = input;
  assertValidName('agent', draft.name);
  if (!(await workspace.hasEnvironment(environment))) {
    throw new AgentCoreError(
      'ENVIRONMENT_NOT_FOUND',
      `Environment "${environment}" does not exist. Create it with \`junction env create ${environment}\` or pick one from list_environments.`,
      { environment },
    );
  }
  const env = await store.environments.ensure(environment);
  const file = workspace.agentFile(environment, draft.name);
  const fileInput = {
    name: draft.name,
    description: draft.description,
    ...(draft.model !== undefined ? { model: draft.model } : {}),
    ...(draft.maxSteps !== undefined ? { maxSteps: draft.maxSteps } : {}),
    tools: draft.tools ?? [],
    ...(draft.agents !== undefined && draft.agents.length > 0 ? { agents: draft.agents } : {}),
    ...(draft.prompt !== undefined ? { prompt: draft.prompt } : {}),
  };
  const def = await parsePrompt(promptFileText(fileInput), file);
  resolveTools(def, await storedToolIndex(store, env.id));
  const known = await store.agents.list({ environmentId: env.id, limit: 10_000 });
  checkSubAgents(def, new Set([...known.map((a) => a.name), def.name]));
  if (known.some((a) => a.name === draft.name)) {
    throw new AgentCoreError(
      'AGENT_EXISTS',
      `Agent "${draft.name}" already exists in environment "${environment}". Change it with update_agent (or edit ${file} and sync) instead.`,
      { agent: draft.name, environment },
    );
  }
  // Refuses an existing file (one not yet synced) rather than overwriting it.
  await writePromptFile(file, fileInput);
  try {
    return await registerAgent(store, env.id, def);
  } catch (err) {
    // Not registered: take the file back, so the caller can simply try again.
    await rm(file, { force: true }).catch(() => undefined);
    throw err;
  }
}

export interface UpdateAgentInput {
  store: Pick<Store, 'tools' | 'agents'>;
  workspace: Workspace;
  agentId: number;
  changes: PromptFileChanges;
}

/** Where every surface's AGENT_NOT_FOUND points the caller. */
export const AGENT_LIST_HINT =
  'List agents with `junction agent list`, GET /api/v1/agents or the MCP tool list_agents';

/** The stored agent with this id, or AGENT_NOT_FOUND. */
export async function requireAgent(store: Pick<Store, 'agents'>, agentId: number): Promise<Agent> {
  const agent = await store.agents.get(agentId);
  if (!agent) {
    throw new AgentCoreError(
      'AGENT_NOT_FOUND',
      `No agent has id ${agentId}. ${AGENT_LIST_HINT} for valid ids.`,
      { agent_id: agentId },
    );
  }
  return agent;
}

/**
 * Applies `changes` to the agent's prompt file (other keys and the body stay as written)
 * and registers the result. Checked first: an unknown tool leaves the file untouched.
 */
export async function updateAgent(input: UpdateAgentInput): Promise<Agent> {
  const { store, changes } = input;
  const agent = await requireAgent(store, input.agentId);
  if (!agent.promptPath) {
    throw new AgentCoreError(
      'AGENT_INVALID',
      `Agent "${agent.name}" has no prompt file on record; sync its environment first.`,
      { agent: agent.name },
    );
  }
  const current = await parsePromptFile(agent.promptPath);
  const text = updatedPromptFileText(current, changes);
  const def = await parsePrompt(text, agent.promptPath);
  resolveTools(def, await storedToolIndex(store, agent.environmentId));
  const known = await store.agents.list({ environmentId: agent.environmentId, limit: 10_000 });
  checkSubAgents(def, new Set([...known.map((a) => a.name), def.name]));
  await writeFileAtomic(agent.promptPath, text);
  return registerAgent(store, agent.environmentId, def);
}
