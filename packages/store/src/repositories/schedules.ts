import { and, asc, eq, inArray, isNotNull, lte, notInArray, sql, type SQL } from 'drizzle-orm';
import type { Schedule } from '../rows.js';
import {
  schedules,
  type ScheduleCatchUp,
  type ScheduleKind,
  type ScheduleOrigin,
  type ScheduleOutcome,
  type ScheduleOverlap,
} from '../schema.js';
import type { StoreContext } from '../store-context.js';
import { isStoreError, notFound } from '../store-error.js';

/** What a file or an operator sets of a schedule (the times come from its cron, computed above). */
export interface ScheduleSpec {
  cron: string;
  timezone?: string | null;
  enabled?: boolean;
  /** An agent run's task; null: the agent's default. */
  task?: string | null;
  variables?: Record<string, string>;
  /** A workflow run's input. */
  input?: Record<string, unknown> | null;
  catchUp?: ScheduleCatchUp;
  overlap?: ScheduleOverlap;
  origin: ScheduleOrigin;
  /** The next fire after now by the cron; null when the schedule is disabled. */
  nextRunAt: Date | null;
}

/** The agent or workflow a schedule fires. */
export interface ScheduleTarget {
  kind: ScheduleKind;
  /** The agent's id (kind agent) or the workflow's row id (kind workflow). */
  id: number;
  /** The agent's name or the workflow's id, as lists show it. */
  name: string;
  environmentId: number;
}

export interface ScheduleFilter {
  enabled?: boolean;
  kind?: ScheduleKind;
  environmentId?: number;
}

/** What one fire did, recorded with the schedule's next time (see `advance`). */
export interface ScheduleFired {
  nextRunAt: Date | null;
  lastRunAt?: Date;
  lastOutcome: ScheduleOutcome;
  lastError?: string | null;
  lastRunId?: number | null;
}

function targetColumn(kind: ScheduleKind) {
  return kind === 'agent' ? schedules.agentId : schedules.workflowId;
}

/**
 * Cron schedules of agents and workflows, one per target. Which process fires them is the
 * scheduler lease's business (`leases`); a fire is recorded with `advance`, which moves the
 * next time only from the one the firer read, so a fire is recorded once.
 */
export class SchedulesRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /**
   * Creates or replaces the schedule of an agent or workflow. With `keepOperator` (what a sync
   * does), a schedule an operator set is left as it is and returned. NOT_FOUND if the target
   * does not exist.
   */
  async set(
    target: ScheduleTarget,
    spec: ScheduleSpec,
    options: { keepOperator?: boolean } = {},
  ): Promise<Schedule> {
    const now = this.#ctx.now();
    const values = {
      kind: target.kind,
      target: target.name,
      environmentId: target.environmentId,
      cron: spec.cron,
      timezone: spec.timezone ?? null,
      enabled: spec.enabled ?? true,
      task: spec.task ?? null,
      variables: spec.variables ?? {},
      input: spec.input ?? null,
      origin: spec.origin,
      catchUp: spec.catchUp ?? 'once',
      overlap: spec.overlap ?? 'skip',
      nextRunAt: spec.nextRunAt,
      updatedAt: now,
    };
    const column = targetColumn(target.kind);
    try {
      return await this.#ctx.write('save schedule', async (db) => {
        const [existing] = await db.select().from(schedules).where(eq(column, target.id));
        if (existing && options.keepOperator && existing.origin === 'operator') return existing;
        if (existing) {
          // The same times as before keep their next fire: a fire due and not yet taken (say,
          // one missed while no scheduler ran) is not pushed past by a sync.
          const sameTimes =
            existing.cron === values.cron &&
            existing.timezone === values.timezone &&
            existing.enabled === values.enabled;
          const [row] = await db
            .update(schedules)
            .set(sameTimes ? { ...values, nextRunAt: existing.nextRunAt } : values)
            .where(eq(schedules.id, existing.id))
            .returning();
          return row as Schedule;
        }
        const [row] = await db
          .insert(schedules)
          .values({
            ...values,
            ...(target.kind === 'agent' ? { agentId: target.id } : { workflowId: target.id }),
            createdAt: now,
          })
          .returning();
        return row as Schedule;
      });
    } catch (err) {
      if (isStoreError(err, 'INVALID_REFERENCE')) throw notFound(target.kind, target.id);
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

  /** The schedule of an agent (by agent id) or workflow (by row id), or undefined. */
  async getFor(kind: ScheduleKind, id: number): Promise<Schedule | undefined> {
    return this.#ctx.read('get schedule of target', async (db) => {
      const [row] = await db
        .select()
        .from(schedules)
        .where(eq(targetColumn(kind), id));
      return row;
    });
  }

  /** Schedules matching the filter, soonest first (disabled ones last). */
  async list(filter: ScheduleFilter = {}): Promise<Schedule[]> {
    const where: SQL[] = [];
    if (filter.enabled !== undefined) where.push(eq(schedules.enabled, filter.enabled));
    if (filter.kind !== undefined) where.push(eq(schedules.kind, filter.kind));
    if (filter.environmentId !== undefined) {
      where.push(eq(schedules.environmentId, filter.environmentId));
    }
    return this.#ctx.read('list schedules', (db) =>
      db
        .select()
        .from(schedules)
        .where(and(...where))
        .orderBy(asc(sql`coalesce(${schedules.nextRunAt}, 9e18)`), asc(schedules.id)),
    );
  }

  /** Enabled schedules whose next time has come, most overdue first. */
  async due(now: Date = this.#ctx.now(), limit = 100): Promise<Schedule[]> {
    return this.#ctx.read('list due schedules', (db) =>
      db
        .select()
        .from(schedules)
        .where(
          and(
            eq(schedules.enabled, true),
            isNotNull(schedules.nextRunAt),
            lte(schedules.nextRunAt, now),
          ),
        )
        .orderBy(asc(schedules.nextRunAt), asc(schedules.id))
        .limit(limit),
    );
  }

  /** The soonest next time of an enabled schedule, or null when none will fire. */
  async soonest(): Promise<Date | null> {
    const [row] = await this.#ctx.read('soonest schedule', (db) =>
      db
        .select({ at: sql<number | null>`min(${schedules.nextRunAt})` })
        .from(schedules)
        .where(and(eq(schedules.enabled, true), isNotNull(schedules.nextRunAt))),
    );
    return row?.at == null ? null : new Date(Number(row.at));
  }

  /** How many enabled schedules are due and not yet fired (`scheduler_runs_pending`). */
  async countDue(now: Date = this.#ctx.now()): Promise<number> {
    const [row] = await this.#ctx.read('count due schedules', (db) =>
      db
        .select({ n: sql<number>`count(*)` })
        .from(schedules)
        .where(
          and(
            eq(schedules.enabled, true),
            isNotNull(schedules.nextRunAt),
            lte(schedules.nextRunAt, now),
          ),
        ),
    );
    return Number(row?.n ?? 0);
  }

  /**
   * Records a fire and the next time, only if the schedule's next time is still `expected`
   * (the one its firer read): false when another fire (or an edit) moved it meanwhile.
   */
  async advance(id: number, expected: Date | null, fired: ScheduleFired): Promise<boolean> {
    const now = this.#ctx.now();
    return this.#ctx.write('record schedule fire', async (db) => {
      const result = await db
        .update(schedules)
        .set({
          nextRunAt: fired.nextRunAt,
          ...(fired.lastRunAt !== undefined ? { lastRunAt: fired.lastRunAt } : {}),
          lastOutcome: fired.lastOutcome,
          lastError: fired.lastError ?? null,
          ...(fired.lastRunId !== undefined ? { lastRunId: fired.lastRunId } : {}),
          updatedAt: now,
        })
        .where(
          and(
            eq(schedules.id, id),
            expected === null
              ? sql`${schedules.nextRunAt} IS NULL`
              : eq(schedules.nextRunAt, expected),
          ),
        );
      return result.rowsAffected > 0;
    });
  }

  /** Deletes a schedule; false if there was none. */
  async remove(id: number): Promise<boolean> {
    return this.#ctx.write('delete schedule', async (db) => {
      const result = await db.delete(schedules).where(eq(schedules.id, id));
      return result.rowsAffected > 0;
    });
  }

  /**
   * Deletes the file schedules of `kind` in an environment except those of `keep` (target ids):
   * a sync drops the schedule of a file whose `schedule:` went away. Operator schedules stay.
   * Returns how many went.
   */
  async removeFileSchedulesExcept(
    kind: ScheduleKind,
    environmentId: number,
    keep: readonly number[],
  ): Promise<number> {
    return this.#ctx.write('delete file schedules', async (db) => {
      const result = await db
        .delete(schedules)
        .where(
          and(
            eq(schedules.kind, kind),
            eq(schedules.environmentId, environmentId),
            eq(schedules.origin, 'file'),
            keep.length > 0 ? notInArray(targetColumn(kind), [...keep]) : undefined,
          ),
        );
      return result.rowsAffected;
    });
  }

  /** The schedules of these targets (by id), for views that show them beside their agents. */
  async listFor(kind: ScheduleKind, ids: readonly number[]): Promise<Schedule[]> {
    if (ids.length === 0) return [];
    return this.#ctx.read('list schedules of targets', (db) =>
      db
        .select()
        .from(schedules)
        .where(inArray(targetColumn(kind), [...ids])),
    );
  }
}
