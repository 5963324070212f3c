import { Args, Flags } from '@oclif/core';
import { JunctionCommand } from '../../base-command.js';

export default class EnvDelete extends JunctionCommand {
  static override description =
    'Delete an environment: its folder (templates, variables, prompt files, workflows) and its records (agents, tool servers, tools, workflows, schedules). Runs stay in the history. Asks first at a terminal; --force does not ask.';

  static override examples = [
    '<%= config.bin %> env delete staging',
    '<%= config.bin %> env delete staging --force --json',
  ];

  static override args = { name: Args.string({ description: 'environment name', required: true }) };

  static override flags = {
    force: Flags.boolean({ char: 'f', description: 'delete without asking', default: false }),
  };

  static override enableJsonFlag = true;

  async run(): Promise<Record<string, unknown>> {
    const { args, flags } = await this.parse(EnvDelete);
    const { confirmed } = await import('../../confirm.js');
    const { createContext } = await import('../../context.js');
    const { deleteEnvironment } = await import('@junction/agent-core/agents');
    const ctx = await createContext();
    try {
      const question = `Delete environment "${args.name}" (its folder ${ctx.workspace.environmentDir(args.name)} and every agent, tool server and workflow in it; runs stay)?`;
      if (!(await confirmed(question, flags.force, this.jsonEnabled()))) {
        this.log('Nothing deleted.');
        return { deleted: false };
      }
      const deleted = await deleteEnvironment({
        store: await ctx.store(),
        workspace: ctx.workspace,
        environment: args.name,
      });
      this.log(
        `Deleted environment "${deleted.environment}"${deleted.folder ? ` (removed ${deleted.folder})` : ''} with ${deleted.agents} agent${deleted.agents === 1 ? '' : 's'}; ${deleted.runs_kept} run${deleted.runs_kept === 1 ? '' : 's'} kept in the history.`,
      );
      return { deleted: true, ...deleted };
    } finally {
      await ctx.close();
    }
  }
}
