import { and, asc, count, desc, eq, gt, isNotNull, sql, type SQL } from 'drizzle-orm';
import type { RunEvent } from '../rows.js';
import { runEvents, type PinnedStart } from '../schema.js';
import { progressFields, type RunProgress } from './runs.js';
import { eventsIfChanged, eventsIfHeld, eventsItem, heldBy } from './insert-events.js';
import { runDirectSelect, type BatchItem, type DirectSelect } from '../direct-select.js';
import type { StoreContext } from '../store-context.js';
import { isStoreError, notFound } from '../store-error.js';
import { GroupCommit } from '../group-commit.js';
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

/** Marks a run acted (pinning what it started with, once) while `workerId` holds it. */
const FENCE: DirectSelect<unknown> = {
  sql: `UPDATE runs SET acted_at = coalesce(acted_at, ?), pinned = coalesce(pinned, ?)
  WHERE ${heldBy('?', '?')}`,
  args: [(v) => v.now, (v) => v.pinned, (v) => v.id, (v) => v.workerId],
  keys: [],
  decoders: [],
};

/** One row while `workerId` holds the run. */
const HELD: DirectSelect<unknown> = {
  sql: `SELECT 1 FROM runs WHERE ${heldBy('?', '?')}`,
  args: [(v) => v.id, (v) => v.workerId],
  keys: ['held'],
  decoders: [(v) => v],
};

/** Sets the counters given (null: left as they are); fenced by `workerId` when one is given. */
const PROGRESS: DirectSelect<unknown> = {
  sql: `UPDATE runs SET steps_taken = coalesce(?, steps_taken),
  input_tokens = coalesce(?, input_tokens), output_tokens = coalesce(?, output_tokens),
  model = coalesce(?, model), trace_id = coalesce(?, trace_id)
  WHERE (? IS NULL AND id = ?) OR (${heldBy('?', '?')})`,
  args: [
    (v) => v.stepsTaken,
    (v) => v.inputTokens,
    (v) => v.outputTokens,
    (v) => v.model,
    (v) => v.traceId,
    (v) => v.workerId,
    (v) => v.id,
    (v) => v.id,
    (v) => v.workerId,
  ],
  keys: [],
  decoders: [],
};

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
  readonly #group: GroupCommit;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
    this.#group = new GroupCommit(ctx, 'record run events');
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
   * agent, one write instead of one per event. Writes of several runs asked for in the same
   * turn of the event loop share one transaction (one commit), each answering for itself.
   */
  async record(
    runId: number,
    events: readonly RunEventInput[],
    progress?: RunProgress,
    fence?: RecordFence,
  ): Promise<boolean> {
    const now = this.#ctx.now();
    const fields = progress ? progressFields(progress) : {};
    const counters = Object.keys(fields).length > 0;
    if (!fence && events.length === 0 && !counters) return true;
    if (fence && !fence.pinned && events.length === 0 && !counters) {
      // A fence with nothing to write is a read: is the run still held?
      return this.#ctx.read(
        'record run events',
        async () =>
          (await runDirectSelect(this.#ctx.rows, HELD, { id: runId, workerId: fence.workerId }))
            .length > 0,
      );
    }
    const items: BatchItem[] = [];
    if (fence?.pinned) {
      // The run is about to act (a tool call): marked so, and written only while held.
      items.push({
        select: FENCE,
        values: {
          id: runId,
          workerId: fence.workerId,
          now: now.getTime(),
          pinned: JSON.stringify(fence.pinned),
        },
      });
    }
    if (events.length > 0) {
      items.push(
        fence?.pinned
          ? eventsIfChanged(runId, events, now)
          : fence
            ? eventsIfHeld(runId, fence.workerId, events, now)
            : eventsItem(runId, events, now),
      );
    }
    if (counters) {
      items.push({
        select: PROGRESS,
        values: {
          id: runId,
          workerId: fence?.workerId ?? null,
          stepsTaken: progress?.stepsTaken ?? null,
          inputTokens: progress?.inputTokens ?? null,
          outputTokens: progress?.outputTokens ?? null,
          model: progress?.model ?? null,
          traceId: progress?.traceId ?? null,
        },
      });
    }
    try {
      const [first] = await this.#group.add(items);
      return !fence || (first?.rowsAffected ?? 0) > 0;
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
