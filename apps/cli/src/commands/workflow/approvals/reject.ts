import { Args, Flags } from '@oclif/core';
import { JunctionCommand } from '../../../base-command.js';

export default class WorkflowApprovalsReject extends JunctionCommand {
  static override description =
    'Reject a pending approval: its workflow run goes on at the onRejected of its step, or fails when the step has none (the answer says which). Exit 4 for an unknown id, 5 when it was already decided, has timed out or was withdrawn (its run was cancelled).';

  static override aliases = ['workflow:reject'];

  static override examples = [
    '<%= config.bin %> workflow approvals reject appr-7-review --reason "looks right" --approver alice',
  ];

  static override args = { id: Args.string({ description: 'approval id', required: true }) };

  static override flags = {
    reason: Flags.string({ description: 'why, recorded with the decision' }),
    approver: Flags.string({
      description: 'who decides (checked when the approval lists approvers)',
    }),
  };

  static override enableJsonFlag = true;

  async run(): Promise<Record<string, unknown>> {
    const { args, flags } = await this.parse(WorkflowApprovalsReject);
    const { decideFromCli } = await import('../../../workflow-door.js');
    const { approvalView } = await import('@junction/workflows');
    const { approval, outcome } = await decideFromCli(args.id, 'rejected', {
      approver: flags.approver,
      note: flags.reason,
    });
    if (!this.jsonEnabled()) this.log(`Approval ${approval.approvalId} rejected. ${outcome}`);
    return approvalView(approval);
  }
}
