import { idArg, pageArgs } from '../arguments.js';
import { requireEnvironment } from '../lookups.js';
import { defineTool, iso } from '../tool-kit.js';

const DEFAULT_LIMIT = 50;

export const listAgentsTool = defineTool({
  name: 'list_agents',
  title: 'List agents',
  description:
    'Lists agents with their ids, environments, descriptions and models, by environment then name. ' +
    'Give environment_id to list one environment only; page with limit and offset (total says how many match).',
  shape: {
    environment_id: idArg(
      'environment_id',
      'Only agents of this environment (id from list_environments).',
    ).optional(),
    ...pageArgs(DEFAULT_LIMIT),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const { store } = ctx.deps;
    if (args.environment_id !== undefined) await requireEnvironment(store, args.environment_id);
    const filter = args.environment_id !== undefined ? { environmentId: args.environment_id } : {};
    const limit = args.limit ?? DEFAULT_LIMIT;
    const offset = args.offset ?? 0;
    const { items, total } = await store.agents.listSummaries({ ...filter, limit, offset });
    return {
      data: {
        agents: items.map((a) => ({
          id: a.id,
          name: a.name,
          environment_id: a.environmentId,
          environment: a.environmentName,
          description: a.description,
          model: a.model ?? null,
          max_steps: a.maxSteps ?? null,
          updated_at: iso(a.updatedAt),
        })),
        total,
        limit,
        offset,
      },
    };
  },
});
