import { Flags } from '@oclif/core';
import { JunctionCommand } from '../../../base-command.js';

const STATUSES = ['pending', 'approved', 'rejected', 'timed_out'] as const;

export default class WorkflowApprovals extends JunctionCommand {
  static override description =
    'List approvals workflows wait for (pending by default), with the link to view and decide each one.';

  static override aliases = ['workflow:approvals:list'];

  static override examples = [
    '<%= config.bin %> workflow approvals',
    '<%= config.bin %> workflow approvals list --status approved --json',
  ];

  static override flags = {
    status: Flags.string({
      char: 's',
      description: 'approvals with this status',
      options: [...STATUSES, 'all'],
      default: 'pending',
    }),
    limit: Flags.integer({
      char: 'n',
      description: 'show at most this many',
      default: 50,
      min: 1,
      max: 10_000,
    }),
  };

  static override enableJsonFlag = true;

  async run(): Promise<Array<Record<string, unknown>>> {
    const { flags } = await this.parse(WorkflowApprovals);
    const { createContext } = await import('../../../context.js');
    const { createWorkflowDoor } = await import('@junction/workflows');
    const { approvalRow } = await import('../../../workflow-view.js');
    const { formatTable } = await import('../../../table.js');
    const ctx = await createContext();
    try {
      const store = await ctx.store();
      const door = createWorkflowDoor({ store, publicUrl: ctx.config.webhook.public_url });
      const approvals = await store.approvals.list({
        ...(flags.status !== 'all' ? { status: flags.status as (typeof STATUSES)[number] } : {}),
        limit: flags.limit,
      });
      const rows = [];
      for (const a of approvals)
        rows.push({ ...approvalRow(a), ...(await door.links(a.approvalId)) });
      if (!this.jsonEnabled()) {
        if (rows.length === 0)
          this.log(`No ${flags.status === 'all' ? '' : `${flags.status} `}approvals.`);
        else
          this.log(
            formatTable(
              ['APPROVAL', 'RUN', 'STEP', 'STATUS', 'EXPIRES', 'MESSAGE'],
              approvals.map((a) => [
                a.approvalId,
                a.workflowRunId,
                a.stepName,
                a.status,
                a.expiresAt?.toISOString() ?? '-',
                a.message.slice(0, 80),
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
