import { idArg, pageArgs } from '../arguments.js';
import { requireEnvironment, requireWorkflows } from '../lookups.js';
import { defineTool } from '../tool-kit.js';
import { workflowSummary } from '../workflow-views.js';

const DEFAULT_LIMIT = 50;

export const listWorkflowsTool = defineTool({
  name: 'list_workflows',
  title: 'List workflows',
  description:
    'Lists the workflows Junction can run, by environment then id: workflow_id (what start_workflow_run takes), ' +
    'name, description, whether it is enabled, and input_schema (the JSON Schema its input must match). ' +
    'Give environment_id to list one environment only; page with limit and offset (total says how many match).',
  shape: {
    environment_id: idArg(
      'environment_id',
      'Only workflows of this environment (id from list_environments).',
    ).optional(),
    ...pageArgs(DEFAULT_LIMIT),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    requireWorkflows(ctx.deps);
    const { store } = ctx.deps;
    if (args.environment_id !== undefined) await requireEnvironment(store, args.environment_id);
    const limit = args.limit ?? DEFAULT_LIMIT;
    const offset = args.offset ?? 0;
    const [workflows, environments] = await Promise.all([
      store.workflows.list(
        args.environment_id !== undefined ? { environmentId: args.environment_id } : {},
      ),
      store.environments.list(),
    ]);
    const names = new Map(environments.map((e) => [e.id, e.name]));
    return {
      data: {
        workflows: workflows
          .slice(offset, offset + limit)
          .map((w) => workflowSummary(w, names.get(w.environmentId) ?? null)),
        total: workflows.length,
        limit,
        offset,
      },
    };
  },
});
