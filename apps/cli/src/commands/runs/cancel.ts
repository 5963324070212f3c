import { Args } from '@oclif/core';
import { JunctionCommand } from '../../base-command.js';
import type { RunView } from '../../run-view.js';

export default class RunsCancel extends JunctionCommand {
  static override description =
    'Cancel a run that has not ended. A queued run ends at once; a running one stops its model call ' +
    '(in whatever process executes it, within about a second), lets a tool call in flight return, and ' +
    'ends cancelled. Waits up to 5 s for that end. Exit 5 when the run had already ended.';

  static override examples = [
    '<%= config.bin %> runs cancel 42',
    '<%= config.bin %> runs cancel 42 --json',
  ];

  static override args = { id: Args.string({ description: 'run id', required: true }) };

  static override enableJsonFlag = true;

  async run(): Promise<RunView & { ended: boolean }> {
    const { args } = await this.parse(RunsCancel);
    const { runIdArg } = await import('../../run-args.js');
    const id = runIdArg(args.id);
    const { createContext } = await import('../../context.js');
    const { cancelRun, runView } = await import('@junction/agent-core/runs');
    const ctx = await createContext();
    try {
      const store = await ctx.store();
      const { run, ended } = await cancelRun({ store }, id, { source: 'cli' });
      if (!this.jsonEnabled()) {
        this.log(
          ended
            ? `Run ${run.id} (${run.agentName}) cancelled.`
            : `Run ${run.id} (${run.agentName}) is stopping: it ends cancelled once its tool call in flight returns. Check with \`junction runs inspect ${run.id}\`.`,
        );
      }
      return { ...runView(run, await ctx.pricing()), ended };
    } finally {
      await ctx.close();
    }
  }
}
