import type { ResolvedDeps } from '../deps.js';
import { defineTool, iso } from '../tool-kit.js';

/** The environments with their counts, plus those on disk that were never synced. */
export async function environmentsListing(deps: ResolvedDeps): Promise<Record<string, unknown>> {
  const [stored, onDisk] = await Promise.all([
    deps.store.environments.listWithCounts(),
    deps.workspace.listEnvironments(),
  ]);
  const known = new Set(stored.map((e) => e.name));
  return {
    environments: stored.map((e) => ({
      id: e.id,
      name: e.name,
      agents: e.agents,
      mcp_configs: e.mcpConfigs,
      servers: e.servers,
      tools: e.tools,
      last_synced_at: iso(e.lastSyncedAt),
      on_disk: onDisk.includes(e.name),
    })),
    unsynced_environments: onDisk.filter((name) => !known.has(name)),
  };
}

export const listEnvironmentsTool = defineTool({
  name: 'list_environments',
  title: 'List environments',
  description:
    'Lists the environments (development, production …) with their ids and how many agents, MCP configs, ' +
    'servers and tools each has. unsynced_environments names folders on disk that have never been synced ' +
    '(run `junction sync <name>` to add them).',
  shape: {},
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(_args, ctx) {
    return { data: await environmentsListing(ctx.deps) };
  },
});
