import { and, asc, count, desc, eq, getTableColumns, notInArray, sql, type SQL } from 'drizzle-orm';
import type { Agent, Environment, Tool } from '../rows.js';
import { agentAgents, agents, agentTools, environments, tools } from '../schema.js';
import type { StoreContext } from '../store-context.js';
import { notFound, StoreError } from '../store-error.js';
import { resolvePage, type Page } from '../paging.js';
import { directSelect, type DirectFields } from '../direct-select.js';
import { prepared, slot } from '../prepared.js';

/** The fields of an agent record; everything but the name is optional. */
export interface AgentInput {
  name: string;
  description?: string;
  model?: string | null;
  maxSteps?: number | null;
  promptPath?: string | null;
  frontMatter?: Record<string, unknown>;
  scheduleCron?: string | null;
  scheduleEnabled?: boolean;
  scheduleVariables?: Record<string, string>;
  codingEnabled?: boolean;
  codingBackend?: string | null;
  codingWorkspacePath?: string | null;
}

export type AgentPatch = Partial<AgentInput>;

/** An agent as lists show it. */
export interface AgentSummary {
  id: number;
  name: string;
  environmentId: number;
  environmentName: string;
  description: string;
  model: string | null;
  maxSteps: number | null;
  updatedAt: Date;
}

export interface AgentFilter extends Page {
  environmentId?: number;
  environmentName?: string;
  name?: string;
  scheduleEnabled?: boolean;
}

const FILTER_KEYS = ['environmentId', 'environmentName', 'name', 'scheduleEnabled'] as const;
type FilterKey = (typeof FILTER_KEYS)[number];

/** The filter fields that are set, in a fixed order (they name the prepared statement). */
function filterKeys(filter: Omit<AgentFilter, keyof Page>): FilterKey[] {
  return FILTER_KEYS.filter((key) => filter[key] !== undefined);
}

/** The WHERE clause for the set filter fields, each compared with the slot of its name. */
function whereSlots(keys: readonly FilterKey[]): SQL | undefined {
  const where: SQL[] = [];
  for (const key of keys) {
    if (key === 'environmentId') where.push(eq(agents.environmentId, slot('environmentId')));
    if (key === 'name') where.push(eq(agents.name, slot('name')));
    if (key === 'scheduleEnabled') where.push(eq(agents.scheduleEnabled, slot('scheduleEnabled')));
    if (key === 'environmentName') {
      where.push(
        sql`"agents"."environment_id" IN (SELECT e."id" FROM "environments" e WHERE e."name" = ${slot('environmentName')})`,
      );
    }
  }
  return and(...where);
}

/** Driver values of the filter's slots. */
function slotValues(filter: Omit<AgentFilter, keyof Page>): Record<string, unknown> {
  return {
    environmentId: filter.environmentId ?? null,
    environmentName: filter.environmentName ?? null,
    name: filter.name ?? null,
    scheduleEnabled: filter.scheduleEnabled === undefined ? null : filter.scheduleEnabled ? 1 : 0,
  };
}

/** Every column of an agent, for the reads that answer whole agents. */
const AGENT_FIELDS = getTableColumns(agents);

/** An agent's columns then its environment's, flat (`a.<column>`, `e.<column>`), for one direct read. */
const WITH_ENVIRONMENT_FIELDS: DirectFields = {
  ...Object.fromEntries(Object.entries(AGENT_FIELDS).map(([k, c]) => [`a.${k}`, c])),
  ...Object.fromEntries(
    Object.entries(getTableColumns(environments)).map(([k, c]) => [`e.${k}`, c]),
  ),
};

/** What running an agent needs from its row: which agent it is and the model it asks for. */
export type AgentRef = Pick<Agent, 'id' | 'name' | 'environmentId' | 'model'>;

/** What `findByName` answers. */
export interface FoundAgent {
  /** The agent the name means, unless none or several (with none preferred) have it. */
  agent: AgentRef | undefined;
  /** How many environments have an agent of that name. */
  count: number;
}

/** The columns of `findByName`: the agent's reference, how many share its name, and whether its environment is the preferred one. */
const FIND_FIELDS = {
  id: agents.id,
  name: agents.name,
  environmentId: agents.environmentId,
  model: agents.model,
  count:
    sql<number>`(SELECT count(*) FROM "agents" AS "same" WHERE "same"."name" = "agents"."name")`.mapWith(
      Number,
    ),
  preferred: sql<boolean>`${environments.name} = ${slot('preferred')}`.mapWith(Boolean),
};

/** The columns of an agent summary. */
const SUMMARY_FIELDS = {
  id: agents.id,
  name: agents.name,
  environmentId: agents.environmentId,
  environmentName: environments.name,
  description: agents.description,
  model: agents.model,
  maxSteps: agents.maxSteps,
  updatedAt: agents.updatedAt,
};

function fieldsOf(input: AgentPatch): Partial<typeof agents.$inferInsert> {
  const fields: Partial<typeof agents.$inferInsert> = {};
  if (input.name !== undefined) fields.name = input.name;
  if (input.description !== undefined) fields.description = input.description;
  if (input.model !== undefined) fields.model = input.model;
  if (input.maxSteps !== undefined) fields.maxSteps = input.maxSteps;
  if (input.promptPath !== undefined) fields.promptPath = input.promptPath;
  if (input.frontMatter !== undefined) fields.frontMatter = input.frontMatter;
  if (input.scheduleCron !== undefined) fields.scheduleCron = input.scheduleCron;
  if (input.scheduleEnabled !== undefined) fields.scheduleEnabled = input.scheduleEnabled;
  if (input.scheduleVariables !== undefined) fields.scheduleVariables = input.scheduleVariables;
  if (input.codingEnabled !== undefined) fields.codingEnabled = input.codingEnabled;
  if (input.codingBackend !== undefined) fields.codingBackend = input.codingBackend;
  if (input.codingWorkspacePath !== undefined)
    fields.codingWorkspacePath = input.codingWorkspacePath;
  return fields;
}

function uniqueIds(ids: readonly number[], what: string): number[] {
  for (const id of ids) {
    if (!Number.isInteger(id)) {
      throw new StoreError('INVALID_INPUT', `${what} must be whole numbers; got ${String(id)}.`, {
        field: what,
      });
    }
  }
  return [...new Set(ids)];
}

/** Agents of each environment, with the tools and sub-agents bound to them. */
export class AgentsRepository {
  readonly #ctx: StoreContext;
  /** `findByName` reads waiting for their turn, by name and preferred environment. */
  readonly #finding = new Map<string, Promise<FoundAgent>>();

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /** Creates an agent; CONFLICT if the environment already has one with this name. */
  async create(environmentId: number, input: AgentInput): Promise<Agent> {
    const now = this.#ctx.now();
    return this.#ctx.write(`create agent ${JSON.stringify(input.name)}`, async (db) => {
      const [row] = await db
        .insert(agents)
        .values({
          ...fieldsOf(input),
          name: input.name,
          environmentId,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      return row as Agent;
    });
  }

  /** Creates the agent or updates the one with the same name (sync); the id stays stable. */
  async upsert(environmentId: number, input: AgentInput): Promise<Agent> {
    const now = this.#ctx.now();
    const fields = fieldsOf(input);
    return this.#ctx.write(`save agent ${JSON.stringify(input.name)}`, async (db) => {
      const [row] = await db
        .insert(agents)
        .values({ ...fields, name: input.name, environmentId, createdAt: now, updatedAt: now })
        .onConflictDoUpdate({
          target: [agents.environmentId, agents.name],
          set: { ...fields, updatedAt: now },
        })
        .returning();
      return row as Agent;
    });
  }

  /** The agent with this id, or undefined. */
  async get(id: number): Promise<Agent | undefined> {
    return this.#ctx.selectFirst(
      'get agent',
      (db) =>
        directSelect(db, 'agents.get', AGENT_FIELDS, (d, fields) =>
          d
            .select(fields)
            .from(agents)
            .where(eq(agents.id, slot('id'))),
        ),
      { id },
    );
  }

  /** An agent with its environment, in one query (the runner's hot path). */
  async getWithEnvironment(
    id: number,
  ): Promise<{ agent: Agent; environment: Environment } | undefined> {
    const row = await this.#ctx.selectFirst(
      'get agent with environment',
      (db) =>
        directSelect(db, 'agents.getWithEnvironment', WITH_ENVIRONMENT_FIELDS, (d, fields) =>
          d
            .select(fields as typeof AGENT_FIELDS)
            .from(agents)
            .innerJoin(environments, eq(environments.id, agents.environmentId))
            .where(eq(agents.id, slot('id'))),
        ),
      { id },
    );
    if (!row) return undefined;
    // One flat row, split back into its two records.
    const agent: Record<string, unknown> = {};
    const environment: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(row)) {
      if (key.startsWith('a.')) agent[key.slice(2)] = value;
      else environment[key.slice(2)] = value;
    }
    return { agent: agent as Agent, environment: environment as Environment };
  }

  /** The agent called `name` in the environment, or undefined. */
  async getByName(environmentId: number, name: string): Promise<Agent | undefined> {
    return this.#ctx.selectFirst(
      'get agent by name',
      (db) =>
        directSelect(db, 'agents.getByName', AGENT_FIELDS, (d, fields) =>
          d
            .select(fields)
            .from(agents)
            .where(
              and(eq(agents.environmentId, slot('environmentId')), eq(agents.name, slot('name'))),
            ),
        ),
      { environmentId, name },
    );
  }

  /**
   * The agent a bare name means, for callers that take a name without an environment
   * (POST /execute): the one in environment `preferred` when it has one, else the only one.
   * `count` is how many environments have an agent of that name, so `agent` undefined with a
   * count above 1 is ambiguous (list them to say which). One short read of four columns.
   *
   * Identical lookups asked for in the same turn of the event loop share that one read, made
   * in the next turn (as run creates are grouped): under a burst of webhooks for one agent the
   * read is paid once per turn, not once per request. A read always starts after every lookup
   * it answers was asked for, so none sees older data than a read of its own would.
   */
  async findByName(name: string, preferred: string): Promise<FoundAgent> {
    const key = `${preferred}\u0000${name}`;
    let found = this.#finding.get(key);
    if (!found) {
      found = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        // Later lookups wait for a read of their own.
        this.#finding.delete(key);
        return this.#findByName(name, preferred);
      });
      this.#finding.set(key, found);
    }
    const { agent, count } = await found;
    // Each caller gets its own object.
    return { agent: agent && { ...agent }, count };
  }

  async #findByName(name: string, preferred: string): Promise<FoundAgent> {
    const row = await this.#ctx.selectFirst(
      'find agent by name',
      (db) =>
        directSelect(db, 'agents.findByName', FIND_FIELDS, (d, fields) =>
          d
            .select(fields)
            .from(agents)
            .innerJoin(environments, eq(environments.id, agents.environmentId))
            .where(eq(agents.name, slot('name')))
            .orderBy(desc(fields.preferred), asc(agents.environmentId))
            .limit(1),
        ),
      { name, preferred },
    );
    if (!row) return { agent: undefined, count: 0 };
    const { count, preferred: isPreferred, ...agent } = row;
    return { agent: count === 1 || isPreferred ? agent : undefined, count };
  }

  /** Agents matching the filter, by environment then name. */
  async list(filter: AgentFilter = {}): Promise<Agent[]> {
    const { limit, offset } = resolvePage(filter, 1000);
    const keys = filterKeys(filter);
    return this.#ctx.select(
      'list agents',
      (db) =>
        directSelect(db, `agents.list:${keys.join(',')}`, AGENT_FIELDS, (d, fields) =>
          d
            .select(fields)
            .from(agents)
            .where(whereSlots(keys))
            .orderBy(asc(agents.environmentId), asc(agents.name))
            .limit(sql.placeholder('limit'))
            .offset(sql.placeholder('offset')),
        ),
      Object.assign(slotValues(filter), { limit, offset }),
    );
  }

  /**
   * A page of agents as lists show them (no front matter or schedule variables), each with
   * its environment's name, and how many match in all: one statement instead of three.
   */
  async listSummaries(filter: AgentFilter = {}): Promise<{ items: AgentSummary[]; total: number }> {
    const { limit, offset } = resolvePage(filter, 1000);
    const keys = filterKeys(filter);
    const rows = await this.#ctx.select(
      'list agents',
      (db) =>
        directSelect(db, `agents.listSummaries:${keys.join(',')}`, SUMMARY_FIELDS, (d, fields) =>
          d
            .select(fields)
            .from(agents)
            .innerJoin(environments, eq(environments.id, agents.environmentId))
            .where(whereSlots(keys))
            .orderBy(asc(agents.environmentId), asc(agents.name))
            .limit(sql.placeholder('limit'))
            .offset(sql.placeholder('offset')),
        ),
      Object.assign(slotValues(filter), { limit, offset }),
    );
    // A page that is not full ends the matches (unless it is empty past the start): no count.
    const last = rows.length < limit && (rows.length > 0 || offset === 0);
    const total = last ? offset + rows.length : await this.count(filter);
    return { items: rows, total };
  }

  /** How many agents match the filter (paging is ignored). */
  async count(filter: Omit<AgentFilter, keyof Page> = {}): Promise<number> {
    const keys = filterKeys(filter);
    return this.#ctx.read('count agents', async (db) => {
      const row = await prepared(db, `agents.count:${keys.join(',')}`, (d) =>
        d.select({ n: count() }).from(agents).where(whereSlots(keys)).prepare(),
      ).get(slotValues(filter));
      return row?.n ?? 0;
    });
  }

  /** Changes the given fields; NOT_FOUND if the id is unknown, CONFLICT if a rename collides. */
  async update(id: number, patch: AgentPatch): Promise<Agent> {
    const now = this.#ctx.now();
    return this.#ctx.write('update agent', async (db) => {
      const [row] = await db
        .update(agents)
        .set({ ...fieldsOf(patch), updatedAt: now })
        .where(eq(agents.id, id))
        .returning();
      if (!row) throw notFound('agent', id);
      return row;
    });
  }

  /** Deletes the agent with its bindings and schedule; its runs keep their agent name. */
  async delete(id: number): Promise<boolean> {
    return this.#ctx.write('delete agent', async (db) => {
      const result = await db.delete(agents).where(eq(agents.id, id));
      return result.rowsAffected > 0;
    });
  }

  /** Deletes the environment's agents whose names are not in `keepNames` (prompt files gone). */
  async deleteExcept(environmentId: number, keepNames: readonly string[]): Promise<number> {
    return this.#ctx.write('delete stale agents', async (db) => {
      const result = await db
        .delete(agents)
        .where(
          and(eq(agents.environmentId, environmentId), notInArray(agents.name, [...keepNames])),
        );
      return result.rowsAffected;
    });
  }

  /** Makes the agent's tools exactly `toolIds`, atomically; INVALID_REFERENCE if a tool is unknown. */
  async setToolIds(agentId: number, toolIds: readonly number[]): Promise<void> {
    const ids = uniqueIds(toolIds, 'tool ids');
    await this.#ctx.write('set agent tools', async (db) => {
      await this.#requireAgent(agentId);
      const clear = db.delete(agentTools).where(eq(agentTools.agentId, agentId));
      if (ids.length === 0) {
        await clear;
        return;
      }
      await db.batch([
        clear,
        db.insert(agentTools).values(ids.map((toolId) => ({ agentId, toolId }))),
      ]);
    });
  }

  /** Ids of the tools bound to the agent, ascending. */
  async getToolIds(agentId: number): Promise<number[]> {
    return this.#ctx.read('get agent tool ids', async (db) => {
      const rows = await db
        .select({ id: agentTools.toolId })
        .from(agentTools)
        .where(eq(agentTools.agentId, agentId))
        .orderBy(asc(agentTools.toolId));
      return rows.map((r) => r.id);
    });
  }

  /** The tools bound to the agent, by name. */
  async listTools(agentId: number): Promise<Tool[]> {
    return this.#ctx.read('list agent tools', async (db) => {
      const rows = await db
        .select({ tool: tools })
        .from(agentTools)
        .innerJoin(tools, eq(agentTools.toolId, tools.id))
        .where(eq(agentTools.agentId, agentId))
        .orderBy(asc(tools.name), asc(tools.id));
      return rows.map((r) => r.tool);
    });
  }

  /** Makes the agent's sub-agents exactly `subAgentIds`, atomically; an agent cannot be its own. */
  async setSubAgentIds(agentId: number, subAgentIds: readonly number[]): Promise<void> {
    const ids = uniqueIds(subAgentIds, 'sub-agent ids');
    if (ids.includes(agentId)) {
      throw new StoreError(
        'INVALID_INPUT',
        `Agent ${agentId} cannot be its own sub-agent; remove it from the list.`,
        { agentId },
      );
    }
    await this.#ctx.write('set sub-agents', async (db) => {
      await this.#requireAgent(agentId);
      const clear = db.delete(agentAgents).where(eq(agentAgents.agentId, agentId));
      if (ids.length === 0) {
        await clear;
        return;
      }
      await db.batch([
        clear,
        db.insert(agentAgents).values(ids.map((subAgentId) => ({ agentId, subAgentId }))),
      ]);
    });
  }

  /** Ids of the agent's sub-agents, ascending. */
  async getSubAgentIds(agentId: number): Promise<number[]> {
    return this.#ctx.read('get sub-agent ids', async (db) => {
      const rows = await db
        .select({ id: agentAgents.subAgentId })
        .from(agentAgents)
        .where(eq(agentAgents.agentId, agentId))
        .orderBy(asc(agentAgents.subAgentId));
      return rows.map((r) => r.id);
    });
  }

  /** The agent's sub-agents, by name. */
  async listSubAgents(agentId: number): Promise<Agent[]> {
    return this.#ctx.read('list sub-agents', async (db) => {
      const rows = await db
        .select({ agent: agents })
        .from(agentAgents)
        .innerJoin(agents, eq(agentAgents.subAgentId, agents.id))
        .where(eq(agentAgents.agentId, agentId))
        .orderBy(asc(agents.name), asc(agents.id));
      return rows.map((r) => r.agent);
    });
  }

  async #requireAgent(agentId: number): Promise<void> {
    const found = await this.get(agentId);
    if (!found) throw notFound('agent', agentId);
  }
}
