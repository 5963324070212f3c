import type { AgentDefinition } from '@junction/config-templates';
import { canonicalToolName } from '@junction/config-templates';
import type { Agent, AgentInput, Store } from '@junction/store';
import { AgentCoreError } from '../errors.js';

/** A tool an agent may bind to: its name, server and (once stored) id. */
export interface ToolRef {
  name: string;
  server: string;
  id?: number;
}

/** Tools of an environment by the name agents use for them. */
export type ToolIndex = Map<string, ToolRef[]>;

/** Indexes tools by name so `tools:` entries (with or without a `__` prefix) resolve. */
export function buildToolIndex(tools: Iterable<ToolRef>): ToolIndex {
  const index: ToolIndex = new Map();
  for (const tool of tools) {
    const list = index.get(tool.name) ?? [];
    list.push(tool);
    index.set(tool.name, list);
  }
  return index;
}

/** The stored tools of an environment as an index. */
export async function storedToolIndex(
  store: Pick<Store, 'tools'>,
  environmentId: number,
): Promise<ToolIndex> {
  const tools = await store.tools.list({ environmentId, limit: 10_000 });
  return buildToolIndex(tools.map((t) => ({ name: t.name, server: t.serverName, id: t.id })));
}

/** Resolves an agent's `tools:` entries; throws naming every unknown or ambiguous tool. */
export function resolveTools(def: AgentDefinition, index: ToolIndex): ToolRef[] {
  const resolved: ToolRef[] = [];
  const unknown: string[] = [];
  const ambiguous: string[] = [];
  for (const written of def.tools) {
    const matches = index.get(canonicalToolName(written)) ?? [];
    if (matches.length === 0) unknown.push(written);
    else if (matches.length > 1)
      ambiguous.push(`${written} (servers ${matches.map((m) => m.server).join(', ')})`);
    else resolved.push(matches[0] as ToolRef);
  }
  if (unknown.length > 0) {
    throw new AgentCoreError(
      'TOOL_NOT_FOUND',
      `Agent "${def.name}" names unknown tool${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}. ` +
        'Add the MCP server that provides it to the environment and sync, or remove it from the prompt file.',
      { agent: def.name, file: def.path, tools: unknown },
    );
  }
  if (ambiguous.length > 0) {
    throw new AgentCoreError(
      'TOOL_AMBIGUOUS',
      `Agent "${def.name}" names tools that several servers provide: ${ambiguous.join('; ')}. ` +
        'Keep one of the servers in the environment.',
      { agent: def.name, file: def.path, tools: ambiguous },
    );
  }
  return resolved;
}

/** Throws SUB_AGENT_NOT_FOUND unless every `agents:` entry is in `known`. */
export function checkSubAgents(def: AgentDefinition, known: ReadonlySet<string>): void {
  const unknown = def.agents.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new AgentCoreError(
      'SUB_AGENT_NOT_FOUND',
      `Agent "${def.name}" names unknown sub-agent${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}. ` +
        'Add their prompt files to the same environment or remove them from `agents:`.',
      { agent: def.name, file: def.path, agents: unknown },
    );
  }
}

/** The store record of an agent definition. */
export function agentInputOf(def: AgentDefinition): AgentInput {
  return {
    name: def.name,
    description: def.description,
    model: def.model ?? null,
    maxSteps: def.maxSteps,
    promptPath: def.path,
    frontMatter: def.frontMatter,
    scheduleCron: def.schedule?.cron ?? null,
    scheduleEnabled: def.schedule?.enabled ?? false,
    scheduleVariables: def.schedule?.variables ?? {},
    codingEnabled: def.coding?.enabled ?? false,
    codingBackend: def.coding?.backend ?? null,
    codingWorkspacePath: def.coding?.workspacePath ?? null,
  };
}

/** True when the stored agent already matches the definition (fields only, not bindings). */
export function agentMatches(stored: Agent, def: AgentDefinition): boolean {
  const input = agentInputOf(def);
  return (
    stored.description === input.description &&
    (stored.model ?? null) === input.model &&
    stored.maxSteps === input.maxSteps &&
    stored.promptPath === input.promptPath &&
    JSON.stringify(stored.frontMatter) === JSON.stringify(input.frontMatter)
  );
}

/**
 * Registers one agent file in an environment against what is stored there: its tools must
 * exist among the environment's tools and its sub-agents among the environment's agents.
 */
export async function registerAgent(
  store: Pick<Store, 'tools' | 'agents'>,
  environmentId: number,
  def: AgentDefinition,
): Promise<Agent> {
  const tools = resolveTools(def, await storedToolIndex(store, environmentId));
  const stored = await store.agents.list({ environmentId, limit: 10_000 });
  const byName = new Map(stored.map((a) => [a.name, a]));
  checkSubAgents(def, new Set([...byName.keys(), def.name]));
  const agent = await store.agents.upsert(environmentId, agentInputOf(def));
  await store.agents.setToolIds(
    agent.id,
    tools.map((t) => t.id as number),
  );
  await store.agents.setSubAgentIds(
    agent.id,
    def.agents.map((name) => (name === def.name ? agent.id : (byName.get(name) as Agent).id)),
  );
  return agent;
}
