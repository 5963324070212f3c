import { Args } from '@oclif/core';
import { JunctionCommand } from '../../base-command.js';
import { workflowRunIdArg } from '../../workflow-args.js';

export default class WorkflowInspect extends JunctionCommand {
  static override description =
    'Show one workflow run: its record, then every step attempt in order, and its approvals.';

  static override examples = [
    '<%= config.bin %> workflow inspect 7',
    '<%= config.bin %> workflow inspect 7 --json',
  ];

  static override args = { run: Args.string({ description: 'workflow run id', required: true }) };

  static override enableJsonFlag = true;

  async run(): Promise<Record<string, unknown>> {
    const { args } = await this.parse(WorkflowInspect);
    const id = workflowRunIdArg(args.run);
    const { withWorkflowDoor } = await import('../../workflow-door.js');
    const { approvalView, workflowRunView, workflowStepView } = await import('@junction/workflows');
    const { stepLine, brief } = await import('../../workflow-view.js');
    return withWorkflowDoor(async (door) => {
      const { run, steps, approvals } = await door.inspect(id);
      const view = {
        workflow_run: workflowRunView(run),
        steps: steps.map((step) => workflowStepView(step)),
        approvals: approvals.map((approval) => approvalView(approval)),
      };
      if (!this.jsonEnabled()) {
        this.log(`Workflow run ${run.id}  ${run.workflowKey}  ${run.status}`);
        this.log(`  name      ${run.workflowName}`);
        this.log(`  source    ${run.source ?? '-'}`);
        // The step it waits at, or the last one it entered once it ended.
        this.log(`  step      ${run.currentStep ?? '-'}`);
        this.log(`  created   ${run.createdAt.toISOString()}`);
        this.log(`  input     ${brief(run.input)}`);
        if (run.output !== null) this.log(`  output    ${brief(run.output)}`);
        if (run.error !== null) this.log(`  error     ${run.error}`);
        this.log('');
        this.log(steps.length === 0 ? 'No steps yet.' : `Steps (${steps.length})`);
        for (const s of steps) this.log(stepLine(s));
        for (const a of approvals) {
          const links = await door.links(a.approvalId);
          this.log(
            `\nApproval ${a.approvalId}  ${a.status}${a.decidedBy ? ` by ${a.decidedBy}` : ''}`,
          );
          this.log(`  ${a.message}`);
          if (a.status === 'pending') this.log(`  ${links.view_url}`);
        }
      }
      return view;
    });
  }
}
