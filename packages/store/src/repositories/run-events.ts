import { and, asc, count, eq, gt, sql, type SQL } from 'drizzle-orm';
import type { RunEvent } from '../rows.js';
import { runEvents, runs } from '../schema.js';
import { progressFields, type RunProgress } from './runs.js';
import type { StoreContext } from '../store-context.js';
import { isStoreError, notFound } from '../store-error.js';
import { resolvePage, type Page } from '../paging.js';

/** One thing that happened in a run: a model turn, a tool call, a log line. */
export interface RunEventInput {
  type: string;
  payload?: unknown;
  durationMs?: number | null;
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

  /** The seq the run's next event gets (1 for a run without events). */
  async nextSeq(runId: number): Promise<number> {
    return this.#ctx.read('next run event seq', async (db) => {
      const [row] = await db
        .select({ max: sql<number | null>`MAX(${runEvents.seq})` })
        .from(runEvents)
        .where(eq(runEvents.runId, runId));
      return (row?.max ?? 0) + 1;
    });
  }

  /**
   * Writes events numbered from `firstSeq` and updates the run's counters in one batch: the
   * hot path of a running agent, one write instead of one per event. The run's lease holder
   * is its only event writer; a clash with another writer is a CONFLICT (unique run, seq).
   */
  async record(
    runId: number,
    firstSeq: number,
    events: readonly RunEventInput[],
    progress?: RunProgress,
  ): Promise<void> {
    const now = this.#ctx.now();
    const fields = progress ? progressFields(progress) : {};
    if (events.length === 0 && Object.keys(fields).length === 0) return;
    try {
      await this.#ctx.write('record run events', async (db) => {
        const insert =
          events.length > 0
            ? [
                db.insert(runEvents).values(
                  events.map((input, i) => ({
                    runId,
                    seq: firstSeq + i,
                    type: input.type,
                    payload: input.payload ?? null,
                    durationMs: input.durationMs ?? null,
                    createdAt: now,
                  })),
                ),
              ]
            : [];
        const update =
          Object.keys(fields).length > 0
            ? [db.update(runs).set(fields).where(eq(runs.id, runId))]
            : [];
        const [first, ...rest] = [...insert, ...update];
        if (!first) return;
        if (rest.length === 0) await first;
        else await db.batch([first, ...rest]);
      });
    } catch (err) {
      if (isStoreError(err, 'INVALID_REFERENCE'))
        throw notFound('run', runId, 'Check the id with `junction runs list`.');
      throw err;
    }
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
