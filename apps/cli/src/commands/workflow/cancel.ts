import { Args } from '@oclif/core';
import { JunctionCommand } from '../../base-command.js';
import { workflowRunIdArg } from '../../workflow-args.js';

export default class WorkflowCancel extends JunctionCommand {
  static override description =
    'Cancel a workflow run that has not ended (exit 5 when it already has).';

  static override examples = ['<%= config.bin %> workflow cancel 7'];

  static override args = { run: Args.string({ description: 'workflow run id', required: true }) };

  static override enableJsonFlag = true;

  async run(): Promise<Record<string, unknown>> {
    const { args } = await this.parse(WorkflowCancel);
    const id = workflowRunIdArg(args.run);
    const { createContext } = await import('../../context.js');
    const { createWorkflowDoor } = await import('@junction/workflows');
    const { workflowRunView } = await import('../../workflow-view.js');
    const ctx = await createContext();
    try {
      const door = createWorkflowDoor({
        store: await ctx.store(),
        publicUrl: ctx.config.webhook.public_url,
      });
      const run = await door.cancel(id);
      if (!this.jsonEnabled()) this.log(`Workflow run ${run.id} cancelled.`);
      return workflowRunView(run);
    } finally {
      await ctx.close();
    }
  }
}
