import { Flags } from '@oclif/core';
import type { ApprovalStatus } from '@junction/store';
import { JunctionCommand } from '../../../base-command.js';
import { tableFlags } from '../../../flags.js';

export default class WorkflowApprovals extends JunctionCommand {
  static override description =
    'List approvals workflows wait for (pending by default), with the link to view and decide each one.';

  static override aliases = ['workflow:approvals:list'];

  static override examples = [
    '<%= config.bin %> workflow approvals',
    '<%= config.bin %> workflow approvals list --status approved --json',
  ];

  static override flags = {
    ...tableFlags,
    status: Flags.string({
      char: 's',
      description:
        'approvals with this status: pending, approved, rejected, timed_out, cancelled (withdrawn with their run), or all',
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
    const { withWorkflowDoor } = await import('../../../workflow-door.js');
    const { statusArg } = await import('../../../workflow-args.js');
    const { approvalView } = await import('@junction/workflows');
    const { formatTable } = await import('../../../table.js');
    const { formatWhen } = await import('../../../duration.js');
    const status =
      flags.status === 'all'
        ? undefined
        : await statusArg<ApprovalStatus>(flags.status, 'approval');
    return withWorkflowDoor(async (door, store) => {
      const approvals = await store.approvals.list({
        ...(status !== undefined ? { status } : {}),
        limit: flags.limit,
      });
      const rows: Array<ReturnType<typeof approvalView> & { view_url: string }> = [];
      for (const a of approvals)
        rows.push({ ...approvalView(a), ...(await door.links(a.approvalId)) });
      if (!this.jsonEnabled()) {
        if (rows.length === 0)
          this.log(`No ${flags.status === 'all' ? '' : `${flags.status} `}approvals.`);
        else
          this.log(
            formatTable(
              ['APPROVAL', 'RUN', 'STEP', 'STATUS', 'EXPIRES', 'MESSAGE', 'LINK'],
              approvals.map((a, i) => [
                a.approvalId,
                a.workflowRunId,
                a.stepName,
                a.status,
                a.expiresAt ? formatWhen(a.expiresAt) : '-',
                a.message.slice(0, 80),
                // The page to view and decide it; one that can no longer be decided has none.
                a.status === 'pending' ? rows[i]!.view_url : '-',
              ]),
              { whole: ['LINK'] },
            ),
          );
      }
      return rows;
    });
  }
}
