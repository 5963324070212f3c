// GET /api/v1/mcp-servers: the MCP servers of the environments, with status and tools.
import type { Request, RequestHandler, Response } from 'express';
import { environmentFilter } from '../environment-filter.js';
import { MCP_SERVER_LIST_PARAMS, parseQuery } from '../query-params.js';
import type { RouteContext } from '../route-context.js';
import type { McpServerListBody } from '../trace-schemas.js';

/** Servers by environment and name; each with its tools as the last sync listed them. */
export function listMcpServers(ctx: RouteContext): RequestHandler {
  const { store } = ctx.deps;
  return async (req: Request, res: Response): Promise<void> => {
    const q = parseQuery(req.query as Record<string, unknown>, MCP_SERVER_LIST_PARAMS);
    const environmentId = await environmentFilter(store, q);
    const filter = environmentId !== undefined ? { environmentId } : {};
    const [environments, servers, tools] = await Promise.all([
      store.environments.list(),
      store.mcpServers.list(filter),
      store.tools.list({ ...filter, limit: 1000 }),
    ]);
    const envName = new Map(environments.map((e) => [e.id, e.name]));
    const body: McpServerListBody = {
      mcp_servers: servers
        .map((server) => ({
          id: server.id,
          name: server.name,
          environment: envName.get(server.environmentId) ?? '',
          transport: server.transport,
          status: server.status === 'pending' ? ('never synced' as const) : server.status,
          last_synced_at: server.lastSyncedAt?.toISOString() ?? null,
          error: server.lastError === null ? null : ctx.clean(server.lastError),
          tools: tools
            .filter((tool) => tool.serverId === server.id)
            .map((tool) => ({ name: tool.name, description: tool.description ?? null })),
        }))
        .sort((a, b) => a.environment.localeCompare(b.environment) || a.name.localeCompare(b.name)),
    };
    res.json(body);
  };
}
