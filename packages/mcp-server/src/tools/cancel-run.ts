import { idArg } from '../arguments.js';
import { defineTool } from '../tool-kit.js';
import { mcpRunView } from '../views.js';

export const cancelRunTool = defineTool({
  name: 'cancel_run',
  title: 'Cancel a run',
  description:
    'Cancels an agent run that has not ended. A queued run ends cancelled at once. A running run stops its ' +
    'model call (in whatever process executes it, within about a second), lets a tool call in flight return, ' +
    'and ends cancelled; the answer waits up to 5 s for that end (ended=false: it is still stopping). A run ' +
    'that has ended cannot be cancelled (RUN_ENDED). Workflow runs: cancel_workflow_run.',
  shape: {
    run_id: idArg('run_id', 'Id of the run, a string of digits from call_agent or list_runs.'),
  },
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: false,
  },
  async run(args, ctx) {
    const { run, ended } = await ctx.deps.runs.cancel(args.run_id, { source: 'mcp' });
    return {
      summary: ended
        ? `Cancelled run ${run.id} of "${run.agentName}".`
        : `Run ${run.id} of "${run.agentName}" is stopping; it ends cancelled once its tool call in flight returns.`,
      data: { ...mcpRunView(run), ended },
    };
  },
});
