import { Flags } from '@oclif/core';
import { JunctionCommand } from '../../base-command.js';

const STATUSES = [
  'pending',
  'running',
  'waiting_approval',
  'completed',
  'failed',
  'cancelled',
  'timed_out',
] as const;

export default class WorkflowRuns extends JunctionCommand {
  static override description =
    'List workflow runs, newest first: id, workflow, status, current step, when created.';

  static override examples = [
    '<%= config.bin %> workflow runs',
    '<%= config.bin %> workflow runs --workflow incident-triage --status waiting_approval --json',
  ];

  static override flags = {
    workflow: Flags.string({ char: 'w', description: 'only runs of this workflow id' }),
    status: Flags.string({
      char: 's',
      description: `only runs with this status: ${STATUSES.join(', ')}`,
      options: [...STATUSES],
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
    const { createContext } = await import('../../context.js');
    const { workflowRunView } = await import('../../workflow-view.js');
    const { formatTable } = await import('../../table.js');
    const ctx = await createContext();
    try {
      const store = await ctx.store();
      const runs = await store.workflowRuns.list({
        ...(flags.workflow ? { workflowKey: flags.workflow } : {}),
        ...(flags.status ? { status: flags.status as (typeof STATUSES)[number] } : {}),
        limit: flags.limit,
      });
      const views = runs.map(workflowRunView);
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
                r.createdAt.toISOString(),
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
