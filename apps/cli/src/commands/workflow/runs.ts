import { Flags } from '@oclif/core';
import type { WorkflowRunStatus } from '@junction/store';
import { JunctionCommand } from '../../base-command.js';
import { tableFlags } from '../../flags.js';

export default class WorkflowRuns extends JunctionCommand {
  static override description =
    'List workflow runs, newest first: id, workflow, status, current step, when created.';

  static override examples = [
    '<%= config.bin %> workflow runs',
    '<%= config.bin %> workflow runs --workflow incident-triage --status waiting_approval --json',
  ];

  static override flags = {
    ...tableFlags,
    workflow: Flags.string({ char: 'w', description: 'only runs of this workflow id' }),
    status: Flags.string({
      char: 's',
      description:
        'only runs with this status: pending, running, waiting_approval, completed, failed, cancelled or timed_out',
    }),
    limit: Flags.integer({
      char: 'n',
      description: 'show at most this many runs',
      default: 20,
      min: 1,
      max: 10_000,
    }),
  };

  static override enableJsonFlag = true;

  async run(): Promise<Array<Record<string, unknown>>> {
    const { flags } = await this.parse(WorkflowRuns);
    const { statusArg } = await import('../../workflow-args.js');
    const status =
      flags.status === undefined
        ? undefined
        : await statusArg<WorkflowRunStatus>(flags.status, 'workflow run');
    const { createContext } = await import('../../context.js');
    const { workflowRunView } = await import('@junction/workflows');
    const { formatTable } = await import('../../table.js');
    const { formatWhen } = await import('../../duration.js');
    const ctx = await createContext();
    try {
      const store = await ctx.store();
      const runs = await store.workflowRuns.list({
        ...(flags.workflow ? { workflowKey: flags.workflow } : {}),
        ...(status !== undefined ? { status } : {}),
        limit: flags.limit,
      });
      const views = runs.map((run) => workflowRunView(run));
      if (!this.jsonEnabled()) {
        if (views.length === 0) this.log('No workflow runs.');
        else
          this.log(
            formatTable(
              ['ID', 'WORKFLOW', 'STATUS', 'STEP', 'CREATED'],
              runs.map((r) => [
                r.id,
                r.workflowKey,
                r.status,
                r.currentStep ?? '-',
                formatWhen(r.createdAt),
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
