import { Args } from '@oclif/core';
import { JunctionCommand } from '../../base-command.js';
import { envFlag } from '../../flags.js';
import type { AgentView } from '../../agent-view.js';

export default class AgentShow extends JunctionCommand {
  static override description =
    'Show one agent: model, max steps, tools with their servers, sub-agents, prompt file.';

  static override examples = [
    '<%= config.bin %> agent show assistant',
    '<%= config.bin %> agent show triage --env prod --json',
  ];

  static override args = { name: Args.string({ description: 'agent name', required: true }) };

  static override flags = { env: envFlag };

  static override enableJsonFlag = true;

  async run(): Promise<AgentView> {
    const { args, flags } = await this.parse(AgentShow);
    const { createContext } = await import('../../context.js');
    const { agentView } = await import('../../agent-view.js');
    const { AgentCoreError } = await import('@junction/agent-core');
    const ctx = await createContext();
    try {
      const store = await ctx.store();
      const env = await store.environments.getByName(flags.env);
      const agent = env ? await store.agents.getByName(env.id, args.name) : undefined;
      if (!env || !agent) {
        throw new AgentCoreError(
          'AGENT_NOT_FOUND',
          `Agent "${args.name}" is not in environment "${flags.env}". ` +
            `If its prompt file exists, run \`junction sync ${flags.env}\`; \`junction agent list\` shows the synced agents.`,
          { agent: args.name, environment: flags.env },
        );
      }
      const v = await agentView(store, agent);
      this.log(`${v.name}  (${v.environment}, id ${v.id})`);
      this.log(`  description  ${v.description || '-'}`);
      this.log(`  model        ${v.model ?? '(config ai_model)'}`);
      this.log(`  max steps    ${v.max_steps ?? '-'}`);
      this.log(`  prompt file  ${v.prompt_path ?? '-'}`);
      this.log(`  sub-agents   ${v.sub_agents.join(', ') || '-'}`);
      if (v.schedule)
        this.log(`  schedule     ${v.schedule.cron}${v.schedule.enabled ? '' : ' (disabled)'}`);
      this.log(`  tools        ${v.tools.length === 0 ? '-' : ''}`);
      for (const t of v.tools) {
        const line = (t.description ?? '').split(/(?<=\.)\s|\n/)[0] ?? '';
        this.log(
          `    ${t.server}/${t.name}${line ? `  ${line.length > 100 ? `${line.slice(0, 99)}…` : line}` : ''}`,
        );
      }
      return v;
    } finally {
      await ctx.close();
    }
  }
}
