import { Args, Flags } from '@oclif/core';
import { JunctionCommand } from '../../base-command.js';

export default class WorkflowRunCommand extends JunctionCommand {
  static override description =
    'Start a run of a workflow. With --wait, this process advances it and shows each step as it starts and ends, ' +
    'and the approval URL when it waits for a person; exits 8 when the run fails or is cancelled, 9 when it times out. ' +
    'Without --wait, a running `junction serve` (or api-server) takes it.';

  static override examples = [
    '<%= config.bin %> workflow run incident-triage --input \'{"ticket": "T-1"}\' --wait',
    '<%= config.bin %> workflow run incident-triage --input @input.json --json',
  ];

  static override args = { id: Args.string({ description: 'workflow id', required: true }) };

  static override flags = {
    input: Flags.string({ char: 'i', description: 'the run input: JSON, or @file with JSON' }),
    env: Flags.string({ char: 'e', description: 'environment of the workflow' }),
    wait: Flags.boolean({
      char: 'w',
      description: 'advance the run here and wait until it ends',
      default: false,
    }),
    'idempotency-key': Flags.string({
      description: 'a second start with the same key answers the first run',
    }),
  };

  static override enableJsonFlag = true;

  async run(): Promise<Record<string, unknown>> {
    const { args, flags } = await this.parse(WorkflowRunCommand);
    const { readInput } = await import('../../run-args.js');
    const input = await readInput(flags.input);
    const { createContext } = await import('../../context.js');
    const { createService } = await import('../../service.js');
    const { stepLine } = await import('../../workflow-view.js');
    const { workflowRunView } = await import('@junction/workflows');
    const ctx = await createContext();
    const service = await createService(ctx, { version: this.config.version });
    const controller = new AbortController();
    const onSigint = (): void => controller.abort(new Error('interrupted by the user'));
    process.once('SIGINT', onSigint);
    try {
      const { run, replayed } = await service.workflows.start({
        workflow_id: args.id,
        ...(flags.env ? { environment: flags.env } : {}),
        input,
        source: 'cli',
        ...(flags['idempotency-key'] ? { idempotency_key: flags['idempotency-key'] } : {}),
      });
      if (!this.jsonEnabled()) {
        this.log(
          `workflow run ${run.id}: ${run.workflowKey}${replayed ? ' (the run this idempotency key started)' : ''}`,
        );
      }
      if (!flags.wait) {
        if (!this.jsonEnabled())
          this.log(
            'Started; `junction serve` advances it. Follow it with `junction workflow inspect ' +
              run.id +
              '`.',
          );
        return workflowRunView(run);
      }
      await service.start();
      let shownApprovals = new Set<string>();
      // What was shown survives each follow: a run waiting for a person is followed again and
      // again, and only what changed is shown.
      const seen = new Map<number, string>();
      let current = run;
      for (;;) {
        current = await service.workflows.follow(run.id, {
          timeoutMs: 60_000,
          signal: controller.signal,
          seen,
          onStep: (step) => {
            if (!this.jsonEnabled()) this.log(stepLine(step));
          },
        });
        if (current.status === 'waiting_approval') {
          for (const approval of await service.store.approvals.list({
            workflowRunId: run.id,
            status: 'pending',
          })) {
            if (shownApprovals.has(approval.approvalId)) continue;
            shownApprovals = new Set([...shownApprovals, approval.approvalId]);
            const links = await service.workflows.links(approval.approvalId);
            if (!this.jsonEnabled()) {
              this.log(`  waiting for approval ${approval.approvalId}: ${approval.message}`);
              this.log(
                `    approve: junction workflow approvals approve ${approval.approvalId}   or open ${links.view_url}`,
              );
            }
          }
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
        if (['completed', 'failed', 'cancelled', 'timed_out'].includes(current.status)) break;
        if (controller.signal.aborted) break;
      }
      const view = workflowRunView(current);
      const exit =
        current.status === 'completed'
          ? 0
          : current.status === 'timed_out'
            ? 9
            : ['failed', 'cancelled'].includes(current.status)
              ? 8
              : 0;
      if (this.jsonEnabled()) {
        if (exit !== 0) {
          this.logJson(view);
          return this.exit(exit);
        }
        return view;
      }
      if (current.status === 'completed')
        this.log(`\n${JSON.stringify(current.output, null, 2)}\n`);
      else if (exit !== 0)
        this.logToStderr(
          `\nWorkflow run ${current.id} ended ${current.status}: ${current.error ?? ''}`,
        );
      else
        this.log(
          `\nWorkflow run ${current.id} is ${current.status}; it goes on in any \`junction serve\`.`,
        );
      this.log(`workflow run ${current.id} ${current.status}`);
      if (exit !== 0) return this.exit(exit);
      return view;
    } finally {
      process.off('SIGINT', onSigint);
      await service.stop(2_000);
      await ctx.close();
    }
  }
}
