import { z } from 'zod';
import { SCHEDULE_KINDS } from '@junction/store';
import { idArg, pageArgs } from '../arguments.js';
import { requireEnvironment } from '../lookups.js';
import { scheduleDetails } from '../schedule-views.js';
import { defineTool } from '../tool-kit.js';

const DEFAULT_LIMIT = 50;

export const listSchedulesTool = defineTool({
  name: 'list_schedules',
  title: 'List schedules',
  description:
    'Lists the schedules of agents and workflows, soonest next fire first (disabled ones last): what each runs ' +
    '(kind, target, agent_id or workflow_id), its cron and time zone, whether it is enabled, next_run_at, and how ' +
    'its last fire went (last_outcome, last_run_id, last_error). origin says whether it comes from a file or was ' +
    'set by an operator. Filter by kind, environment_id and enabled; page with limit and offset.',
  shape: {
    kind: z
      .enum(SCHEDULE_KINDS, { error: `kind must be one of ${SCHEDULE_KINDS.join(', ')}` })
      .optional()
      .describe('Only schedules of agents ("agent") or of workflows ("workflow").'),
    environment_id: idArg(
      'environment_id',
      'Only schedules of this environment (id from list_environments).',
    ).optional(),
    enabled: z
      .boolean({ error: 'enabled must be true or false' })
      .optional()
      .describe('true: only enabled schedules; false: only disabled ones.'),
    ...pageArgs(DEFAULT_LIMIT),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const { store } = ctx.deps;
    if (args.environment_id !== undefined) await requireEnvironment(store, args.environment_id);
    const limit = args.limit ?? DEFAULT_LIMIT;
    const offset = args.offset ?? 0;
    const schedules = await store.schedules.list({
      ...(args.kind !== undefined ? { kind: args.kind } : {}),
      ...(args.environment_id !== undefined ? { environmentId: args.environment_id } : {}),
      ...(args.enabled !== undefined ? { enabled: args.enabled } : {}),
    });
    return {
      data: {
        schedules: schedules
          .slice(offset, offset + limit)
          .map((s) => scheduleDetails(s, (value) => ctx.redact(value))),
        total: schedules.length,
        limit,
        offset,
      },
    };
  },
});
