// Environments and their MCP servers: what was synced, each server's connection status and
// the tools it offers.
import { ApiError } from '../api.js';
import { badge, dataTable, section, time, token } from '../components.js';
import { h } from '../dom.js';
import { guarded, pageHeading, type PageContext } from '../page.js';
import type { Environment, EnvironmentList, McpServer, McpServerList } from '../types.js';

function tools(server: McpServer): HTMLElement | string {
  if (server.tools.length === 0) return '—';
  return h(
    'details',
    { class: 'tools' },
    h('summary', null, `${server.tools.length} tool${server.tools.length === 1 ? '' : 's'}`),
    h(
      'ul',
      null,
      server.tools.map((t) =>
        h(
          'li',
          null,
          token(t.name),
          t.description ? h('span', { class: 'muted' }, ` — ${t.description}`) : null,
        ),
      ),
    ),
  );
}

function serverTable(env: string, servers: readonly McpServer[]): HTMLElement {
  return dataTable<McpServer>({
    caption: `MCP servers of ${env}`,
    columns: [
      { header: 'Server', cell: (s) => s.name },
      { header: 'Transport', cell: (s) => s.transport },
      { header: 'Status', cell: (s) => badge(s.status) },
      { header: 'Last synced', cell: (s) => time(s.last_synced_at) },
      {
        header: 'Error',
        cell: (s) => (s.error ? h('span', { class: 'error-text' }, s.error) : '—'),
      },
      { header: 'Tools', cell: tools },
    ],
    rows: servers,
    rowAttrs: (s) => ({ 'data-mcp-server': s.name, 'data-status': s.status }),
    empty: 'No MCP servers in this environment.',
  }).wrap;
}

export async function renderEnvironments(ctx: PageContext, root: HTMLElement): Promise<void> {
  const body = h('div', null, h('p', { class: 'muted loading' }, 'Loading…'));
  root.append(h('div', { class: 'page-head' }, pageHeading('Environments')), body);
  await guarded(ctx, async () => {
    const list = await ctx.api.get<EnvironmentList>(
      '/api/v1/environments',
      { limit: 1000 },
      ctx.signal,
    );
    const servers = await Promise.allSettled(
      list.items.map((env) =>
        ctx.api.get<McpServerList>('/api/v1/mcp-servers', { environment: env.name }, ctx.signal),
      ),
    );
    const serverSections = list.items.map((env, i) => {
      const result = servers[i];
      if (result?.status === 'fulfilled') {
        return section(
          `MCP servers · ${env.name}`,
          serverTable(env.name, result.value.mcp_servers),
        );
      }
      const err = result?.reason;
      return section(
        `MCP servers · ${env.name}`,
        h(
          'p',
          { class: 'muted' },
          err instanceof ApiError && err.status === 404 && err.code !== 'ENVIRONMENT_NOT_FOUND'
            ? 'This server does not report MCP server status.'
            : `MCP servers could not be read: ${err instanceof Error ? err.message : 'unknown error'}`,
        ),
      );
    });
    body.replaceChildren(
      dataTable<Environment>({
        caption: 'Environments',
        columns: [
          { header: 'Environment', cell: (e) => e.name },
          { header: 'Agents', cell: (e) => String(e.agents), numeric: true },
          { header: 'MCP configs', cell: (e) => String(e.mcp_configs), numeric: true },
          { header: 'MCP servers', cell: (e) => String(e.mcp_servers), numeric: true },
          { header: 'Tools', cell: (e) => String(e.tools), numeric: true },
          { header: 'Last synced', cell: (e) => time(e.last_synced_at) },
        ],
        rows: list.items,
        empty: 'No environments yet: run `junction sync`.',
      }).wrap,
      ...serverSections,
    );
  });
}
