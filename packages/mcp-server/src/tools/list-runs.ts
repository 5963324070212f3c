import { z } from 'zod';
import { RUN_STATUSES } from '@junction/store';
import { countArg, idArg, MAX_LIST_LIMIT } from '../arguments.js';
import { requireAgent } from '../lookups.js';
import { defineTool } from '../tool-kit.js';
import { runSummary } from '../views.js';

const DEFAULT_LIMIT = 20;
const STATUS_FILTERS = [...RUN_STATUSES, 'failed'] as const;

export const listRunsTool = defineTool({
  name: 'list_runs',
  title: 'List runs',
  description:
    'Lists agent runs, newest first, with status, task, steps, tokens, duration and error. Filter by agent_id ' +
    `and by status (${STATUS_FILTERS.join(', ')}; failed means error). Use inspect_run for one run's events.`,
  shape: {
    agent_id: idArg('agent_id', 'Only runs of this agent (id from list_agents).').optional(),
    status: z
      .enum(STATUS_FILTERS, { error: `status must be one of ${STATUS_FILTERS.join(', ')}` })
      .optional()
      .describe('Only runs with this status.'),
    limit: countArg(
      'limit',
      1,
      MAX_LIST_LIMIT,
      `How many runs to return, 1 to ${MAX_LIST_LIMIT}. Default ${DEFAULT_LIMIT}.`,
    ).optional(),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const { store } = ctx.deps;
    if (args.agent_id !== undefined) await requireAgent(store, args.agent_id);
    const limit = args.limit ?? DEFAULT_LIMIT;
    const runs = await store.runs.list({
      ...(args.agent_id !== undefined ? { agentId: args.agent_id } : {}),
      ...(args.status !== undefined ? { status: args.status } : {}),
      limit,
    });
    return { data: { runs: runs.map(runSummary), limit } };
  },
});
