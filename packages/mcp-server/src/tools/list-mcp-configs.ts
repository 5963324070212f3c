import { redactUrl } from '@junction/telemetry';
import { idArg } from '../arguments.js';
import { requireEnvironment } from '../lookups.js';
import { defineTool, iso } from '../tool-kit.js';

export const listMcpConfigsTool = defineTool({
  name: 'list_mcp_configs',
  title: 'List MCP configs',
  description:
    'Lists the MCP server configurations (one per template file of an environment) with their ids, sync ' +
    'status and last error, and the servers each declares with their transport, status and tool count. ' +
    'Server environment variables and headers are never shown. Use a config id with discover_tools.',
  shape: {
    environment_id: idArg(
      'environment_id',
      'Only configs of this environment (id from list_environments).',
    ).optional(),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const { store } = ctx.deps;
    if (args.environment_id !== undefined) await requireEnvironment(store, args.environment_id);
    const filter = args.environment_id !== undefined ? { environmentId: args.environment_id } : {};
    const [configs, servers, environments] = await Promise.all([
      store.mcpConfigs.list(filter),
      store.mcpServers.list(filter),
      store.environments.list(),
    ]);
    const names = new Map(environments.map((e) => [e.id, e.name]));
    const toolCounts = new Map(
      await Promise.all(
        servers.map(async (s) => [s.id, await store.tools.count({ serverId: s.id })] as const),
      ),
    );
    return {
      data: {
        configs: configs.map((c) => ({
          id: c.id,
          name: c.name,
          environment_id: c.environmentId,
          environment: names.get(c.environmentId) ?? null,
          path: c.path,
          status: c.status,
          last_error: c.lastError ? ctx.redactText(c.lastError) : null,
          last_synced_at: iso(c.lastSyncedAt),
          servers: servers
            .filter((s) => s.configId === c.id)
            .map((s) => ({
              id: s.id,
              name: s.name,
              transport: s.transport,
              ...(s.command ? { command: s.command } : {}),
              ...(s.url ? { url: redactUrl(s.url) } : {}),
              status: s.status,
              last_error: s.lastError ? ctx.redactText(s.lastError) : null,
              tools: toolCounts.get(s.id) ?? 0,
            })),
        })),
      },
    };
  },
});
