import { Args, Flags } from '@oclif/core';
import { JunctionCommand } from '../../../base-command.js';

export default class WorkflowApprovalsApprove extends JunctionCommand {
  static override description =
    'Approve a pending approval: its workflow run goes on. Exit 4 for an unknown id, 5 when it was already decided, has timed out or was withdrawn (its run was cancelled).';

  static override aliases = ['workflow:approve'];

  static override examples = [
    '<%= config.bin %> workflow approvals approve appr-7-review --comment "looks right" --approver alice',
  ];

  static override args = { id: Args.string({ description: 'approval id', required: true }) };

  static override flags = {
    comment: Flags.string({ description: 'why, recorded with the decision' }),
    approver: Flags.string({
      description: 'who decides (checked when the approval lists approvers)',
    }),
  };

  static override enableJsonFlag = true;

  async run(): Promise<Record<string, unknown>> {
    const { args, flags } = await this.parse(WorkflowApprovalsApprove);
    const { decideFromCli } = await import('../../../workflow-door.js');
    const { approvalView } = await import('@junction/workflows');
    const { approval, outcome } = await decideFromCli(args.id, 'approved', {
      approver: flags.approver,
      note: flags.comment,
    });
    if (!this.jsonEnabled()) this.log(`Approval ${approval.approvalId} approved. ${outcome}`);
    return approvalView(approval);
  }
}
