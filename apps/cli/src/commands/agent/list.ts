import { Flags } from '@oclif/core';
import { JunctionCommand } from '../../base-command.js';
import { tableFlags } from '../../flags.js';
import type { AgentView } from '../../agent-view.js';

export default class AgentList extends JunctionCommand {
  static override description = 'List synced agents, of one environment or of all of them.';

  static override examples = [
    '<%= config.bin %> agent list',
    '<%= config.bin %> agent list --env prod --json',
  ];

  static override flags = {
    ...tableFlags,
    env: Flags.string({ char: 'e', description: 'only this environment (default: all)' }),
  };

  static override enableJsonFlag = true;

  async run(): Promise<AgentView[]> {
    const { flags } = await this.parse(AgentList);
    const { createContext } = await import('../../context.js');
    const { agentView } = await import('../../agent-view.js');
    const { formatTable } = await import('../../table.js');
    const ctx = await createContext();
    try {
      const store = await ctx.store();
      if (flags.env !== undefined) await ctx.requireEnvironment(flags.env);
      const agents = await store.agents.list({
        ...(flags.env !== undefined ? { environmentName: flags.env } : {}),
        limit: 10_000,
      });
      const views: AgentView[] = [];
      for (const a of agents) views.push(await agentView(store, a));
      if (views.length === 0) {
        this.log(
          'No agents. Add prompt files under environments/<env>/agents/ and run `junction sync <env>`.',
        );
      } else {
        this.log(
          formatTable(
            ['ENV', 'NAME', 'MODEL', 'MAX STEPS', 'TOOLS', 'DESCRIPTION'],
            views.map((v) => [
              v.environment,
              v.name,
              v.model ?? '(default)',
              v.max_steps ?? '',
              v.tools.length,
              v.description,
            ]),
          ),
        );
      }
      return views;
    } finally {
      await ctx.close();
    }
  }
}
