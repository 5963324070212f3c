import { Args } from '@oclif/core';
import { JunctionCommand } from '../../base-command.js';
import { workflowRunIdArg } from '../../workflow-args.js';

export default class WorkflowCancel extends JunctionCommand {
  static override description =
    'Cancel a workflow run that has not ended, and the agent run its step waits on (exit 5 when it already has).';

  static override examples = ['<%= config.bin %> workflow cancel 7'];

  static override args = { run: Args.string({ description: 'workflow run id', required: true }) };

  static override enableJsonFlag = true;

  async run(): Promise<Record<string, unknown>> {
    const { args } = await this.parse(WorkflowCancel);
    const id = workflowRunIdArg(args.run);
    const { withWorkflowDoor } = await import('../../workflow-door.js');
    const { workflowRunView } = await import('@junction/workflows');
    const run = await withWorkflowDoor((door) => door.cancel(id, { source: 'cli' }));
    if (!this.jsonEnabled()) this.log(`Workflow run ${run.id} cancelled.`);
    return workflowRunView(run);
  }
}
