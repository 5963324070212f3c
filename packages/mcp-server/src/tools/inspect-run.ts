import { z } from 'zod';
import type { RunReader, Store } from '@junction/store';
import { idArg } from '../arguments.js';
import { requireRun } from '../lookups.js';
import { defineTool } from '../tool-kit.js';
import { runDetail } from '../views.js';

/** Events shown with a run; a longer run says how many there are. */
const MAX_EVENTS = 1000;

/** One run with its events, variables redacted. */
export async function inspectRun(
  store: Pick<Store, 'runEvents'> & { readonly runs: RunReader },
  runId: number,
  verbose: boolean,
  redact: (value: unknown) => unknown,
): Promise<Record<string, unknown>> {
  const run = await requireRun(store, runId);
  const events = await store.runEvents.list(run.id, { limit: MAX_EVENTS });
  const detail = runDetail(run, redact(run.variables), events, verbose);
  if (verbose) detail.events = redact(detail.events);
  return detail;
}

export const inspectRunTool = defineTool({
  name: 'inspect_run',
  title: 'Inspect a run',
  description:
    'Shows one run: status, task, final response or error, steps, tokens, timing, and its events (model ' +
    'turns, tool calls) in order. verbose=true adds each event payload (tool arguments and results). ' +
    'Call it again to follow a run that is queued or running.',
  shape: {
    run_id: idArg('run_id', 'Id of the run, a string of digits from call_agent or list_runs.'),
    verbose: z
      .boolean({ error: 'verbose must be true or false' })
      .optional()
      .describe('true: include event payloads. Default false.'),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    return {
      data: await inspectRun(ctx.deps.store, args.run_id, args.verbose ?? false, (value) =>
        ctx.redact(value),
      ),
    };
  },
});
