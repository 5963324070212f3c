import { and, asc, count, desc, eq, gt, isNotNull, sql, type SQL } from 'drizzle-orm';
import type { RunEvent } from '../rows.js';
import { runEvents, runs, type PinnedStart } from '../schema.js';
import { progressFields, type RunProgress } from './runs.js';
import { insertEvents } from './insert-events.js';
import type { StoreContext } from '../store-context.js';
import { isStoreError, notFound } from '../store-error.js';
import { resolvePage, type Page } from '../paging.js';

/** One thing that happened in a run: a model turn, a tool call, a log line. */
export interface RunEventInput {
  type: string;
  payload?: unknown;
  /** What a resumed run needs of the event (`run_events.journal`): never shown as the event. */
  journal?: unknown;
  durationMs?: number | null;
}

/**
 * A write of a run's journal that must not happen unless `workerId` still holds the run (it is
 * about to act on it); `pinned`, the first time, records what the run started with.
 */
export interface RecordFence {
  workerId: string;
  pinned?: PinnedStart;
}

/** One journal entry of a run: an event that carries what a resumed attempt needs. */
export interface JournalEntry {
  seq: number;
  type: string;
  journal: unknown;
}

export interface RunEventFilter extends Page {
  /** Only events with a larger seq (for tailing). */
  afterSeq?: number;
  type?: string;
}

/** Run events, numbered 1, 2, 3 … per run. */
export class RunEventsRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /** Appends an event with the run's next seq; NOT_FOUND if the run does not exist. */
  async append(runId: number, input: RunEventInput): Promise<RunEvent> {
    const now = this.#ctx.now();
    try {
      return await this.#ctx.write('append run event', async (db) => {
        // The seq is computed inside the INSERT, so concurrent writers in other processes
        // (each statement holds the write lock) can never pick the same number.
        const [row] = await db
          .insert(runEvents)
          .values({
            runId,
            seq: sql`(SELECT COALESCE(MAX(${runEvents.seq}), 0) + 1 FROM ${runEvents} WHERE ${runEvents.runId} = ${runId})`,
            type: input.type,
            payload: input.payload ?? null,
            durationMs: input.durationMs ?? null,
            createdAt: now,
          })
          .returning();
        return row as RunEvent;
      });
    } catch (err) {
      if (isStoreError(err, 'INVALID_REFERENCE'))
        throw notFound('run', runId, 'Check the id with `junction runs list`.');
      throw err;
    }
  }

  /**
   * Appends events and updates the run's counters in one batch: the hot path of a running
   * agent, one write instead of one per event.
   */
  async record(
    runId: number,
    events: readonly RunEventInput[],
    progress?: RunProgress,
    fence?: RecordFence,
  ): Promise<boolean> {
    const now = this.#ctx.now();
    const fields = progress ? progressFields(progress) : {};
    if (!fence && events.length === 0 && Object.keys(fields).length === 0) return true;
    try {
      return await this.#ctx.write('record run events', async (db) => {
        if (fence) {
          // The run is about to act (a tool call): marked so, and written only while held.
          const held = await db
            .update(runs)
            .set({
              actedAt: sql`coalesce(${runs.actedAt}, ${now.getTime()})`,
              ...(fence.pinned
                ? { pinned: sql`coalesce(${runs.pinned}, ${JSON.stringify(fence.pinned)})` }
                : {}),
            })
            .where(
              and(
                eq(runs.id, runId),
                eq(runs.status, 'running'),
                eq(runs.workerId, fence.workerId),
              ),
            );
          if (held.rowsAffected === 0) return false;
        }
        if (events.length > 0) await insertEvents(db, runId, events, now);
        if (Object.keys(fields).length > 0)
          await db.update(runs).set(fields).where(eq(runs.id, runId));
        return true;
      });
    } catch (err) {
      if (isStoreError(err, 'INVALID_REFERENCE'))
        throw notFound('run', runId, 'Check the id with `junction runs list`.');
      throw err;
    }
  }

  /** The run's journal: its events that carry what a resumed attempt needs, in seq order. */
  async journal(runId: number): Promise<JournalEntry[]> {
    return this.#ctx.read('read run journal', async (db) => {
      const rows = await db
        .select({ seq: runEvents.seq, type: runEvents.type, journal: runEvents.journal })
        .from(runEvents)
        .where(and(eq(runEvents.runId, runId), isNotNull(runEvents.journal)))
        .orderBy(asc(runEvents.seq));
      return rows as JournalEntry[];
    });
  }

  /** The run's last `n` events, in seq order. */
  async last(runId: number, n: number): Promise<RunEvent[]> {
    return this.#ctx.read('list last run events', async (db) => {
      const rows = await db
        .select()
        .from(runEvents)
        .where(eq(runEvents.runId, runId))
        .orderBy(desc(runEvents.seq))
        .limit(n);
      return rows.reverse();
    });
  }

  /** The run's events in seq order. */
  async list(runId: number, filter: RunEventFilter = {}): Promise<RunEvent[]> {
    const { limit, offset } = resolvePage(filter, 1000);
    const where: SQL[] = [eq(runEvents.runId, runId)];
    if (filter.afterSeq !== undefined) where.push(gt(runEvents.seq, filter.afterSeq));
    if (filter.type !== undefined) where.push(eq(runEvents.type, filter.type));
    return this.#ctx.read('list run events', (db) =>
      db
        .select()
        .from(runEvents)
        .where(and(...where))
        .orderBy(asc(runEvents.seq))
        .limit(limit)
        .offset(offset),
    );
  }

  /** How many events the run has. */
  async count(runId: number): Promise<number> {
    return this.#ctx.read('count run events', async (db) => {
      const [row] = await db
        .select({ n: count() })
        .from(runEvents)
        .where(eq(runEvents.runId, runId));
      return row?.n ?? 0;
    });
  }
}
