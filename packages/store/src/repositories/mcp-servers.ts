import { and, asc, count, eq, notInArray, type SQL } from 'drizzle-orm';
import type { McpServer, McpServerStatus, McpTransport } from '../rows.js';
import { mcpServers } from '../schema.js';
import type { StoreContext } from '../store-context.js';
import { notFound } from '../store-error.js';

/** A resolved MCP server: a command to spawn (stdio) or a URL to reach (http, sse). */
export interface McpServerInput {
  name: string;
  transport: McpTransport;
  configId?: number | null;
  command?: string | null;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string | null;
  url?: string | null;
  headers?: Record<string, string>;
  status?: McpServerStatus;
  lastError?: string | null;
}

export interface McpServerFilter {
  environmentId?: number;
  configId?: number;
  status?: McpServerStatus;
}

function whereOf(filter: McpServerFilter): SQL | undefined {
  const where: SQL[] = [];
  if (filter.environmentId !== undefined)
    where.push(eq(mcpServers.environmentId, filter.environmentId));
  if (filter.configId !== undefined) where.push(eq(mcpServers.configId, filter.configId));
  if (filter.status !== undefined) where.push(eq(mcpServers.status, filter.status));
  return and(...where);
}

/** MCP servers resolved from the templates of an environment. */
export class McpServersRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /** Creates or updates the server called `input.name` in the environment; its id stays stable. */
  async upsert(environmentId: number, input: McpServerInput): Promise<McpServer> {
    const now = this.#ctx.now();
    const values = {
      configId: input.configId ?? null,
      transport: input.transport,
      command: input.command ?? null,
      args: input.args ?? [],
      env: input.env ?? {},
      cwd: input.cwd ?? null,
      url: input.url ?? null,
      headers: input.headers ?? {},
      status: input.status ?? 'pending',
      lastError: input.lastError ?? null,
      updatedAt: now,
      // As setStatus: a sync that connected stamps the time (the dashboard showed "—").
      ...(input.status === 'connected' ? { lastSyncedAt: now } : {}),
    };
    return this.#ctx.write(`save MCP server ${JSON.stringify(input.name)}`, async (db) => {
      const [row] = await db
        .insert(mcpServers)
        .values({ environmentId, name: input.name, createdAt: now, ...values })
        .onConflictDoUpdate({ target: [mcpServers.environmentId, mcpServers.name], set: values })
        .returning();
      return row as McpServer;
    });
  }

  /** The server with this id, or undefined. */
  async get(id: number): Promise<McpServer | undefined> {
    return this.#ctx.read('get MCP server', async (db) => {
      const [row] = await db.select().from(mcpServers).where(eq(mcpServers.id, id));
      return row;
    });
  }

  /** The server called `name` in the environment, or undefined. */
  async getByName(environmentId: number, name: string): Promise<McpServer | undefined> {
    return this.#ctx.read('get MCP server by name', async (db) => {
      const [row] = await db
        .select()
        .from(mcpServers)
        .where(and(eq(mcpServers.environmentId, environmentId), eq(mcpServers.name, name)));
      return row;
    });
  }

  /** Servers matching the filter, by environment then name. */
  async list(filter: McpServerFilter = {}): Promise<McpServer[]> {
    return this.#ctx.read('list MCP servers', (db) =>
      db
        .select()
        .from(mcpServers)
        .where(whereOf(filter))
        .orderBy(asc(mcpServers.environmentId), asc(mcpServers.name)),
    );
  }

  /** How many servers match the filter (health's `mcp_servers`, the `mcp_servers_active` gauge). */
  async count(filter: McpServerFilter = {}): Promise<number> {
    return this.#ctx.read('count MCP servers', async (db) => {
      const [row] = await db.select({ n: count() }).from(mcpServers).where(whereOf(filter));
      return row?.n ?? 0;
    });
  }

  /** Records whether sync could connect; `connected` also stamps lastSyncedAt. */
  async setStatus(
    id: number,
    status: McpServerStatus,
    lastError: string | null = null,
  ): Promise<McpServer> {
    const now = this.#ctx.now();
    return this.#ctx.write('set MCP server status', async (db) => {
      const [row] = await db
        .update(mcpServers)
        .set({
          status,
          lastError,
          updatedAt: now,
          ...(status === 'connected' ? { lastSyncedAt: now } : {}),
        })
        .where(eq(mcpServers.id, id))
        .returning();
      if (!row) throw notFound('MCP server', id);
      return row;
    });
  }

  /** Deletes the server and, by cascade, its tools and their agent bindings. */
  async delete(id: number): Promise<boolean> {
    return this.#ctx.write('delete MCP server', async (db) => {
      const result = await db.delete(mcpServers).where(eq(mcpServers.id, id));
      return result.rowsAffected > 0;
    });
  }

  /** Deletes the environment's servers whose names are not in `keepNames`. */
  async deleteExcept(environmentId: number, keepNames: readonly string[]): Promise<number> {
    return this.#ctx.write('delete stale MCP servers', async (db) => {
      const result = await db
        .delete(mcpServers)
        .where(
          and(
            eq(mcpServers.environmentId, environmentId),
            notInArray(mcpServers.name, [...keepNames]),
          ),
        );
      return result.rowsAffected;
    });
  }
}
