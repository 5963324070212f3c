import { and, asc, count, eq, notInArray, or, type SQL } from 'drizzle-orm';
import type { Tool } from '../rows.js';
import { mcpServers, tools, type ToolAnnotations } from '../schema.js';
import type { StoreContext } from '../store-context.js';
import { notFound } from '../store-error.js';
import { resolvePage, type Page } from '../paging.js';
import { containsText } from '../text-match.js';

/** A tool as an MCP server lists it. */
export interface ToolInput {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  annotations?: ToolAnnotations | null;
}

/** A tool with the server it comes from. */
export interface ToolListing extends Tool {
  serverName: string;
  environmentId: number;
}

export interface ToolFilter extends Page {
  serverId?: number;
  environmentId?: number;
  /** Case-insensitive substring of the name or description. */
  query?: string;
}

function whereOf(filter: ToolFilter): SQL | undefined {
  const where: (SQL | undefined)[] = [];
  if (filter.serverId !== undefined) where.push(eq(tools.serverId, filter.serverId));
  if (filter.environmentId !== undefined)
    where.push(eq(mcpServers.environmentId, filter.environmentId));
  if (filter.query !== undefined && filter.query !== '') {
    where.push(
      or(containsText(tools.name, filter.query), containsText(tools.description, filter.query)),
    );
  }
  return and(...where);
}

/** Tools discovered from MCP servers. Ids survive re-syncs so agent bindings do too. */
export class ToolsRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /**
   * Makes the server's tools exactly `list`: updates tools it already had (keeping their ids and
   * agent bindings), adds new ones, deletes the rest — in one atomic batch.
   */
  async replaceForServer(serverId: number, list: readonly ToolInput[]): Promise<Tool[]> {
    const now = this.#ctx.now();
    return this.#ctx.write('replace tools of MCP server', async (db) => {
      const [server] = await db
        .select({ id: mcpServers.id })
        .from(mcpServers)
        .where(eq(mcpServers.id, serverId));
      if (!server) throw notFound('MCP server', serverId);
      const removeStale = db.delete(tools).where(
        and(
          eq(tools.serverId, serverId),
          notInArray(
            tools.name,
            list.map((t) => t.name),
          ),
        ),
      );
      const upserts = list.map((tool) => {
        const values = {
          description: tool.description ?? '',
          inputSchema: tool.inputSchema ?? {},
          annotations: tool.annotations ?? null,
          updatedAt: now,
        };
        return db
          .insert(tools)
          .values({ serverId, name: tool.name, createdAt: now, ...values })
          .onConflictDoUpdate({ target: [tools.serverId, tools.name], set: values });
      });
      await db.batch([removeStale, ...upserts]);
      return db.select().from(tools).where(eq(tools.serverId, serverId)).orderBy(asc(tools.name));
    });
  }

  /** The tool with this id, or undefined. */
  async get(id: number): Promise<Tool | undefined> {
    return this.#ctx.read('get tool', async (db) => {
      const [row] = await db.select().from(tools).where(eq(tools.id, id));
      return row;
    });
  }

  /** The tool called `name` on the server, or undefined. */
  async getByName(serverId: number, name: string): Promise<Tool | undefined> {
    return this.#ctx.read('get tool by name', async (db) => {
      const [row] = await db
        .select()
        .from(tools)
        .where(and(eq(tools.serverId, serverId), eq(tools.name, name)));
      return row;
    });
  }

  /** Tools matching the filter, with their server, by server name then tool name. */
  async list(filter: ToolFilter = {}): Promise<ToolListing[]> {
    const { limit, offset } = resolvePage(filter, 1000);
    return this.#ctx.read('list tools', async (db) => {
      const rows = await db
        .select({
          tool: tools,
          serverName: mcpServers.name,
          environmentId: mcpServers.environmentId,
        })
        .from(tools)
        .innerJoin(mcpServers, eq(tools.serverId, mcpServers.id))
        .where(whereOf(filter))
        .orderBy(asc(mcpServers.name), asc(tools.name))
        .limit(limit)
        .offset(offset);
      return rows.map((r) => ({
        ...r.tool,
        serverName: r.serverName,
        environmentId: r.environmentId,
      }));
    });
  }

  /** How many tools match the filter (paging is ignored). */
  async count(filter: Omit<ToolFilter, keyof Page> = {}): Promise<number> {
    return this.#ctx.read('count tools', async (db) => {
      const [row] = await db
        .select({ n: count() })
        .from(tools)
        .innerJoin(mcpServers, eq(tools.serverId, mcpServers.id))
        .where(whereOf(filter));
      return row?.n ?? 0;
    });
  }
}
