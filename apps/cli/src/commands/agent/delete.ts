import { Args, Flags } from '@oclif/core';
import { JunctionCommand } from '../../base-command.js';
import { envFlag } from '../../flags.js';

export default class AgentDelete extends JunctionCommand {
  static override description =
    'Delete an agent: its prompt file and its record (tools, sub-agent links, schedule). Its runs stay in the history. Asks first at a terminal; --force does not ask.';

  static override examples = [
    '<%= config.bin %> agent delete helper',
    '<%= config.bin %> agent delete triage --env prod --force',
  ];

  static override args = { name: Args.string({ description: 'agent name', required: true }) };

  static override flags = {
    env: envFlag,
    force: Flags.boolean({ char: 'f', description: 'delete without asking', default: false }),
  };

  static override enableJsonFlag = true;

  async run(): Promise<Record<string, unknown>> {
    const { args, flags } = await this.parse(AgentDelete);
    const { confirmed } = await import('../../confirm.js');
    const { createContext } = await import('../../context.js');
    const { deleteAgent } = await import('@junction/agent-core/agents');
    const ctx = await createContext();
    try {
      const question = `Delete agent "${args.name}" of environment "${flags.env}" (its prompt file and record; its runs stay)?`;
      if (!(await confirmed(question, flags.force, this.jsonEnabled()))) {
        this.log('Nothing deleted.');
        return { deleted: false };
      }
      const deleted = await deleteAgent({
        store: await ctx.store(),
        workspace: ctx.workspace,
        environment: flags.env,
        name: args.name,
      });
      this.log(
        `Deleted agent "${deleted.agent}" (${deleted.environment})${deleted.prompt_file ? `, removed ${deleted.prompt_file}` : ''}; ${deleted.runs_kept} run${deleted.runs_kept === 1 ? '' : 's'} kept in the history.`,
      );
      return { deleted: true, ...deleted };
    } finally {
      await ctx.close();
    }
  }
}
