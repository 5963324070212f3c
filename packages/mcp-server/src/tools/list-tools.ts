import { hasControlCharacter } from '@junction/config-templates';
import { z } from 'zod';
import { idArg, pageArgs } from '../arguments.js';
import { requireEnvironment } from '../lookups.js';
import { defineTool } from '../tool-kit.js';

const DEFAULT_LIMIT = 50;

export const listToolsTool = defineTool({
  name: 'list_tools',
  title: 'List MCP tools',
  description:
    'Lists the MCP tools Junction has discovered, with their server and description, by server then name. ' +
    'Filter by environment_id and by search (a case-insensitive piece of the name or description); page with ' +
    'limit and offset. These names are what create_agent and update_agent take in tool_names.',
  shape: {
    environment_id: idArg(
      'environment_id',
      'Only tools of this environment (id from list_environments).',
    ).optional(),
    search: z
      .string({ error: 'search must be a string' })
      .max(200, { error: 'search must be at most 200 characters' })
      // A NUL (or any control character) would match every tool in the store's text search.
      .refine((text) => !hasControlCharacter(text), {
        error: 'search must not contain control characters (NUL, line breaks, escapes)',
      })
      .optional()
      .describe('Only tools whose name or description contains this text (case-insensitive).'),
    ...pageArgs(DEFAULT_LIMIT),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const { store } = ctx.deps;
    if (args.environment_id !== undefined) await requireEnvironment(store, args.environment_id);
    const filter = {
      ...(args.environment_id !== undefined ? { environmentId: args.environment_id } : {}),
      ...(args.search ? { query: args.search } : {}),
    };
    const limit = args.limit ?? DEFAULT_LIMIT;
    const offset = args.offset ?? 0;
    const [tools, total] = await Promise.all([
      store.tools.list({ ...filter, limit, offset }),
      store.tools.count(filter),
    ]);
    return {
      data: {
        tools: tools.map((t) => ({
          id: t.id,
          name: t.name,
          description: t.description,
          server: t.serverName,
          environment_id: t.environmentId,
        })),
        total,
        limit,
        offset,
      },
    };
  },
});
