import { and, asc, eq, notInArray, type SQL } from 'drizzle-orm';
import type { McpConfig, McpConfigStatus } from '../rows.js';
import { mcpConfigs } from '../schema.js';
import type { StoreContext } from '../store-context.js';
import { notFound } from '../store-error.js';

/** One MCP template file of an environment, as sync last saw it. */
export interface McpConfigInput {
  name: string;
  path: string;
  templateHash?: string | null;
  status?: McpConfigStatus;
  lastError?: string | null;
  lastSyncedAt?: Date | null;
}

export interface McpConfigFilter {
  environmentId?: number;
  status?: McpConfigStatus;
}

/** MCP configs: one row per template file (`environments/<env>/*.json`). */
export class McpConfigsRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /** Creates or updates the config called `input.name` in the environment. */
  async upsert(environmentId: number, input: McpConfigInput): Promise<McpConfig> {
    const now = this.#ctx.now();
    const values = {
      path: input.path,
      templateHash: input.templateHash ?? null,
      status: input.status ?? 'pending',
      lastError: input.lastError ?? null,
      lastSyncedAt: input.lastSyncedAt ?? null,
      updatedAt: now,
    };
    return this.#ctx.write(`save MCP config ${JSON.stringify(input.name)}`, async (db) => {
      const [row] = await db
        .insert(mcpConfigs)
        .values({ environmentId, name: input.name, createdAt: now, ...values })
        .onConflictDoUpdate({ target: [mcpConfigs.environmentId, mcpConfigs.name], set: values })
        .returning();
      return row as McpConfig;
    });
  }

  /** The config with this id, or undefined. */
  async get(id: number): Promise<McpConfig | undefined> {
    return this.#ctx.read('get MCP config', async (db) => {
      const [row] = await db.select().from(mcpConfigs).where(eq(mcpConfigs.id, id));
      return row;
    });
  }

  /** The config called `name` in the environment, or undefined. */
  async getByName(environmentId: number, name: string): Promise<McpConfig | undefined> {
    return this.#ctx.read('get MCP config by name', async (db) => {
      const [row] = await db
        .select()
        .from(mcpConfigs)
        .where(and(eq(mcpConfigs.environmentId, environmentId), eq(mcpConfigs.name, name)));
      return row;
    });
  }

  /** Configs matching the filter, by environment then name. */
  async list(filter: McpConfigFilter = {}): Promise<McpConfig[]> {
    const where: SQL[] = [];
    if (filter.environmentId !== undefined)
      where.push(eq(mcpConfigs.environmentId, filter.environmentId));
    if (filter.status !== undefined) where.push(eq(mcpConfigs.status, filter.status));
    return this.#ctx.read('list MCP configs', (db) =>
      db
        .select()
        .from(mcpConfigs)
        .where(and(...where))
        .orderBy(asc(mcpConfigs.environmentId), asc(mcpConfigs.name)),
    );
  }

  /** Records the outcome of a sync of this config; `synced` also stamps lastSyncedAt. */
  async setStatus(
    id: number,
    status: McpConfigStatus,
    lastError: string | null = null,
  ): Promise<McpConfig> {
    const now = this.#ctx.now();
    return this.#ctx.write('set MCP config status', async (db) => {
      const [row] = await db
        .update(mcpConfigs)
        .set({
          status,
          lastError,
          updatedAt: now,
          ...(status === 'synced' ? { lastSyncedAt: now } : {}),
        })
        .where(eq(mcpConfigs.id, id))
        .returning();
      if (!row) throw notFound('MCP config', id);
      return row;
    });
  }

  /** Deletes the config and, by cascade, its servers and their tools. */
  async delete(id: number): Promise<boolean> {
    return this.#ctx.write('delete MCP config', async (db) => {
      const result = await db.delete(mcpConfigs).where(eq(mcpConfigs.id, id));
      return result.rowsAffected > 0;
    });
  }

  /** Deletes the environment's configs whose names are not in `keepNames` (files gone from disk). */
  async deleteExcept(environmentId: number, keepNames: readonly string[]): Promise<number> {
    return this.#ctx.write('delete stale MCP configs', async (db) => {
      const result = await db
        .delete(mcpConfigs)
        .where(
          and(
            eq(mcpConfigs.environmentId, environmentId),
            notInArray(mcpConfigs.name, [...keepNames]),
          ),
        );
      return result.rowsAffected;
    });
  }
}
