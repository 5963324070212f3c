// GET /api/v1/mcp-servers: the MCP servers of the environments, with status and tools.
import type { Request, Response } from 'express';
import { defineRoute } from '../define-route.js';
import { environmentFilter } from '../environment-filter.js';
import { MCP_SERVER_LIST_PARAMS, parseQuery } from '../query-params.js';
import { badParams, envNotFound } from '../responses.js';
import type { McpServerListBody } from '../trace-schemas.js';

/** Servers by environment and name; each with its tools as the last sync listed them. */
export const listMcpServersRoute = defineRoute({
  operationId: 'listMcpServers',
  method: 'get',
  path: '/api/v1/mcp-servers',
  summary: 'List MCP servers with their tools',
  description:
    'The MCP servers of every environment (or one), with their transport, the status the last sync found (connected, error, never synced), its error, and the tools it listed.',
  tag: 'environments',
  auth: true,
  query: MCP_SERVER_LIST_PARAMS,
  pathParams: [],
  responses: {
    200: { description: 'The servers', body: 'McpServerList' },
    400: badParams('an unknown, repeated or malformed query parameter'),
    404: envNotFound,
  },
  handle(ctx) {
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
          .sort(
            (a, b) => a.environment.localeCompare(b.environment) || a.name.localeCompare(b.name),
          ),
      };
      res.json(body);
    };
  },
});

/** The MCP server routes. */
export const MCP_SERVER_ROUTES = [listMcpServersRoute] as const;
