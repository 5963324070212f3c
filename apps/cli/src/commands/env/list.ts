import { JunctionCommand } from '../../base-command.js';
import { tableFlags } from '../../flags.js';

export interface EnvironmentRow {
  name: string;
  agents: number;
  mcp_configs: number;
  mcp_servers: number;
  tools: number;
  last_synced_at: string | null;
}

export default class EnvList extends JunctionCommand {
  static override description =
    'List environments: agent files and MCP templates on disk, synced servers and tools, last sync.';

  static override examples = ['<%= config.bin %> env list', '<%= config.bin %> env list --json'];

  static override flags = { ...tableFlags };

  static override enableJsonFlag = true;

  async run(): Promise<EnvironmentRow[]> {
    // Parsed even with no flags of its own: an unknown flag is refused, not ignored.
    await this.parse(EnvList);
    const { createContext } = await import('../../context.js');
    const { formatTable } = await import('../../table.js');
    const { formatWhen } = await import('../../duration.js');
    const ctx = await createContext();
    try {
      const store = await ctx.store();
      const synced = new Map((await store.environments.listWithCounts()).map((e) => [e.name, e]));
      const rows: EnvironmentRow[] = [];
      for (const name of await ctx.workspace.listEnvironments()) {
        const s = synced.get(name);
        rows.push({
          name,
          agents: (await ctx.workspace.listPromptFiles(name)).length,
          mcp_configs: (await ctx.workspace.listTemplateFiles(name)).length,
          mcp_servers: s?.servers ?? 0,
          tools: s?.tools ?? 0,
          last_synced_at: s?.lastSyncedAt ? s.lastSyncedAt.toISOString() : null,
        });
      }
      if (rows.length === 0) {
        this.log('No environments. Run `junction init` to create the default one.');
      } else {
        this.log(
          formatTable(
            ['NAME', 'AGENTS', 'MCP CONFIGS', 'SERVERS', 'TOOLS', 'LAST SYNC'],
            rows.map((r) => [
              r.name,
              r.agents,
              r.mcp_configs,
              r.mcp_servers,
              r.tools,
              r.last_synced_at ? formatWhen(new Date(r.last_synced_at)) : 'never',
            ]),
          ),
        );
      }
      return rows;
    } finally {
      await ctx.close();
    }
  }
}
