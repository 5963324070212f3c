import { and, asc, eq, isNotNull, isNull, lte, or, sql, type SQL } from 'drizzle-orm';
import type { Schedule } from '../rows.js';
import { schedules } from '../schema.js';
import type { StoreContext } from '../store-context.js';
import { isStoreError, notFound, StoreError } from '../store-error.js';

export interface ScheduleInput {
  cron: string;
  enabled?: boolean;
  variables?: Record<string, string>;
  nextRunAt?: Date | null;
}

export interface ScheduleFilter {
  enabled?: boolean;
}

export interface ScheduleRan {
  lastRunAt: Date;
  nextRunAt: Date | null;
}

/** Cron schedules, one per agent, claimed with a lease so one process fires each due schedule. */
export class SchedulesRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /** Creates or replaces the agent's schedule; NOT_FOUND if the agent does not exist. */
  async upsertForAgent(agentId: number, input: ScheduleInput): Promise<Schedule> {
    const now = this.#ctx.now();
    const values = {
      cron: input.cron,
      enabled: input.enabled ?? true,
      variables: input.variables ?? {},
      nextRunAt: input.nextRunAt ?? null,
      updatedAt: now,
    };
    try {
      return await this.#ctx.write('save schedule', async (db) => {
        const [row] = await db
          .insert(schedules)
          .values({ agentId, createdAt: now, ...values })
          .onConflictDoUpdate({ target: schedules.agentId, set: values })
          .returning();
        return row as Schedule;
      });
    } catch (err) {
      if (isStoreError(err, 'INVALID_REFERENCE')) throw notFound('agent', agentId);
      throw err;
    }
  }

  /** The schedule with this id, or undefined. */
  async get(id: number): Promise<Schedule | undefined> {
    return this.#ctx.read('get schedule', async (db) => {
      const [row] = await db.select().from(schedules).where(eq(schedules.id, id));
      return row;
    });
  }

  /** The agent's schedule, or undefined. */
  async getForAgent(agentId: number): Promise<Schedule | undefined> {
    return this.#ctx.read('get schedule of agent', async (db) => {
      const [row] = await db.select().from(schedules).where(eq(schedules.agentId, agentId));
      return row;
    });
  }

  /** Schedules matching the filter, soonest first. */
  async list(filter: ScheduleFilter = {}): Promise<Schedule[]> {
    const where: SQL[] = [];
    if (filter.enabled !== undefined) where.push(eq(schedules.enabled, filter.enabled));
    return this.#ctx.read('list schedules', (db) =>
      db
        .select()
        .from(schedules)
        .where(and(...where))
        .orderBy(asc(sql`coalesce(${schedules.nextRunAt}, 9e18)`), asc(schedules.id)),
    );
  }

  /**
   * Claims the most overdue enabled schedule whose nextRunAt has come and whose lease is free or
   * expired, for `owner` during `leaseMs`; undefined when none is due. One atomic UPDATE.
   */
  async claimDue(
    owner: string,
    leaseMs: number,
    now: Date = this.#ctx.now(),
  ): Promise<Schedule | undefined> {
    return this.#ctx.write('claim a due schedule', async (db) => {
      const due = db
        .select({ id: schedules.id })
        .from(schedules)
        .where(
          and(
            eq(schedules.enabled, true),
            isNotNull(schedules.nextRunAt),
            lte(schedules.nextRunAt, now),
            or(isNull(schedules.leaseExpiresAt), lte(schedules.leaseExpiresAt, now)),
          ),
        )
        .orderBy(asc(schedules.nextRunAt), asc(schedules.id))
        .limit(1);
      const [row] = await db
        .update(schedules)
        .set({ leaseOwner: owner, leaseExpiresAt: new Date(now.getTime() + leaseMs) })
        .where(
          and(
            sql`${schedules.id} = (${due})`,
            or(isNull(schedules.leaseExpiresAt), lte(schedules.leaseExpiresAt, now)),
          ),
        )
        .returning();
      return row;
    });
  }

  /** Records a firing and releases the lease; CONFLICT if `owner` no longer holds it. */
  async markRan(id: number, owner: string, ran: ScheduleRan): Promise<Schedule> {
    const now = this.#ctx.now();
    return this.#ctx.write('record schedule run', async (db) => {
      const [row] = await db
        .update(schedules)
        .set({
          lastRunAt: ran.lastRunAt,
          nextRunAt: ran.nextRunAt,
          leaseOwner: null,
          leaseExpiresAt: null,
          updatedAt: now,
        })
        .where(and(eq(schedules.id, id), eq(schedules.leaseOwner, owner)))
        .returning();
      if (row) return row;
      const [current] = await db.select().from(schedules).where(eq(schedules.id, id));
      if (!current) throw notFound('schedule', id);
      throw new StoreError(
        'CONFLICT',
        `Schedule ${id} is not leased to ${JSON.stringify(owner)}; its lease expired or another process claimed it.`,
        {
          details: { scheduleId: id, leaseOwner: current.leaseOwner },
        },
      );
    });
  }

  /** Gives the lease back without recording a run; false if `owner` did not hold it. */
  async releaseLease(id: number, owner: string): Promise<boolean> {
    return this.#ctx.write('release schedule lease', async (db) => {
      const result = await db
        .update(schedules)
        .set({ leaseOwner: null, leaseExpiresAt: null })
        .where(and(eq(schedules.id, id), eq(schedules.leaseOwner, owner)));
      return result.rowsAffected > 0;
    });
  }

  /** Deletes the agent's schedule; false if it had none. */
  async deleteForAgent(agentId: number): Promise<boolean> {
    return this.#ctx.write('delete schedule', async (db) => {
      const result = await db.delete(schedules).where(eq(schedules.agentId, agentId));
      return result.rowsAffected > 0;
    });
  }
}
