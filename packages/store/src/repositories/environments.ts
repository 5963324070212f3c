import { asc, eq, sql } from 'drizzle-orm';
import type { Environment } from '../rows.js';
import { environments } from '../schema.js';
import type { StoreContext } from '../store-context.js';
import { notFound } from '../store-error.js';
import { prepared, slot } from '../prepared.js';

export interface EnvironmentInput {
  name: string;
  description?: string;
}

export interface EnvironmentPatch {
  name?: string;
  description?: string;
  lastSyncedAt?: Date | null;
}

/** One line of `junction env list`. */
export interface EnvironmentSummary {
  id: number;
  name: string;
  agents: number;
  mcpConfigs: number;
  servers: number;
  tools: number;
  lastSyncedAt: Date | null;
}

/** Environments: the named workspaces (development, production...) everything else hangs off. */
export class EnvironmentsRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /** Creates an environment; CONFLICT if the name is taken. */
  async create(input: EnvironmentInput): Promise<Environment> {
    const now = this.#ctx.now();
    return this.#ctx.write(`create environment ${JSON.stringify(input.name)}`, async (db) => {
      const [row] = await db
        .insert(environments)
        .values({
          name: input.name,
          description: input.description ?? '',
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      return row as Environment;
    });
  }

  /** Returns the environment called `name`, creating it first if it does not exist. */
  async ensure(name: string, description = ''): Promise<Environment> {
    const now = this.#ctx.now();
    return this.#ctx.write(`ensure environment ${JSON.stringify(name)}`, async (db) => {
      // ON CONFLICT DO NOTHING keeps this safe when another process creates it at the same moment.
      await db
        .insert(environments)
        .values({ name, description, createdAt: now, updatedAt: now })
        .onConflictDoNothing({ target: environments.name });
      const [row] = await db.select().from(environments).where(eq(environments.name, name));
      return row as Environment;
    });
  }

  /** The environment with this id, or undefined. */
  async get(id: number): Promise<Environment | undefined> {
    return this.#ctx.read('get environment', (db) =>
      prepared(db, 'environments.get', (d) =>
        d
          .select()
          .from(environments)
          .where(eq(environments.id, slot('id') as unknown as number))
          .prepare(),
      ).get({ id }),
    );
  }

  /** The environment with this name, or undefined. */
  async getByName(name: string): Promise<Environment | undefined> {
    return this.#ctx.read('get environment by name', (db) =>
      prepared(db, 'environments.getByName', (d) =>
        d
          .select()
          .from(environments)
          .where(eq(environments.name, slot('name') as unknown as string))
          .prepare(),
      ).get({ name }),
    );
  }

  /** All environments, by name. */
  async list(): Promise<Environment[]> {
    return this.#ctx.read('list environments', (db) =>
      prepared(db, 'environments.list', (d) =>
        d.select().from(environments).orderBy(asc(environments.name)).prepare(),
      ).all(),
    );
  }

  /** Every environment with its agent, MCP config, server and tool counts, by name. */
  async listWithCounts(): Promise<EnvironmentSummary[]> {
    return this.#ctx.read('list environments with counts', (db) =>
      db
        .select({
          id: environments.id,
          name: environments.name,
          // Correlated subqueries spelled out in full: drizzle drops table prefixes inside sql``.
          agents:
            sql<number>`(SELECT count(*) FROM "agents" a WHERE a."environment_id" = "environments"."id")`.mapWith(
              Number,
            ),
          mcpConfigs:
            sql<number>`(SELECT count(*) FROM "mcp_configs" c WHERE c."environment_id" = "environments"."id")`.mapWith(
              Number,
            ),
          servers:
            sql<number>`(SELECT count(*) FROM "mcp_servers" s WHERE s."environment_id" = "environments"."id")`.mapWith(
              Number,
            ),
          tools:
            sql<number>`(SELECT count(*) FROM "tools" t JOIN "mcp_servers" s ON t."server_id" = s."id" WHERE s."environment_id" = "environments"."id")`.mapWith(
              Number,
            ),
          lastSyncedAt: environments.lastSyncedAt,
        })
        .from(environments)
        .orderBy(asc(environments.name)),
    );
  }

  /** Changes name, description or last sync time; NOT_FOUND if the id is unknown. */
  async update(id: number, patch: EnvironmentPatch): Promise<Environment> {
    const now = this.#ctx.now();
    return this.#ctx.write('update environment', async (db) => {
      const [row] = await db
        .update(environments)
        .set({ ...patch, updatedAt: now })
        .where(eq(environments.id, id))
        .returning();
      if (!row) throw notFound('environment', id);
      return row;
    });
  }

  /** Records that `junction sync` finished for this environment. */
  async markSynced(id: number, at: Date = this.#ctx.now()): Promise<Environment> {
    return this.update(id, { lastSyncedAt: at });
  }

  /** Deletes the environment and, by cascade, its configs, servers, tools, agents and workflows. */
  async delete(id: number): Promise<boolean> {
    return this.#ctx.write('delete environment', async (db) => {
      const result = await db.delete(environments).where(eq(environments.id, id));
      return result.rowsAffected > 0;
    });
  }
}
