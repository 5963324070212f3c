import {
  and,
  asc,
  count,
  desc,
  eq,
  getTableColumns,
  gte,
  inArray,
  isNotNull,
  isNull,
  lt,
  lte,
  notInArray,
  sql,
  type SQL,
} from 'drizzle-orm';
import type { LibSQLDatabase } from 'drizzle-orm/libsql';
import type { Run, RunSource, RunStatus } from '../rows.js';
import { runs } from '../schema.js';
import { eventsIfChanged, insertEvents, type EventRow } from './insert-events.js';
import type { StoreContext } from '../store-context.js';
import { notFound, StoreError, toStoreError } from '../store-error.js';
import { wellFormedText } from '../well-formed-text.js';
import { resolvePage, type Page } from '../paging.js';
import {
  decodeRows,
  directSelect,
  runDirectSelect,
  runWriteBatch,
  type BatchItem,
  type DirectSelect,
} from '../direct-select.js';
import { driverValue, prepared, slot } from '../prepared.js';

/** What a caller knows when it asks for a run; the run starts `queued`. */
export interface RunCreateInput {
  agentId?: number | null;
  agentName: string;
  environmentId?: number | null;
  task: string;
  variables?: Record<string, string>;
  source: RunSource;
  parentRunId?: number | null;
  model?: string | null;
  traceId?: string | null;
  /** The W3C traceparent of the span that started the run (a workflow step). */
  traceParent?: string | null;
  /** A second create with the same key is a CONFLICT carrying the first run's id. */
  idempotencyKey?: string | null;
  /** The run's own time limit; null or absent: the agent's or the config's. */
  timeoutMs?: number | null;
  /** Create the run already claimed by this worker (an idle worker of the same process). */
  claimedBy?: { workerId: string; leaseMs: number };
  /** What started it, beyond its source and parent (a workflow step, a schedule, the platform). */
  origin?: RunOrigin;
}

/** What started a run, kept as columns to query by (a workflow run's cancel finds its runs). */
export interface RunOrigin {
  workflowRunId?: number;
  /** The step's path in its workflow. */
  workflowStep?: string;
  scheduleId?: number;
  /** The management platform's id of the run it asked for. */
  platformRunId?: string;
}

/** `failed` is accepted as an alias of `error`, as the CLI and REST filters allow. */
export type RunStatusFilter = RunStatus | 'failed';

/** What recovering runs of dead workers did: runs put back in the queue, runs ended. */
export interface RecoveredRuns {
  requeued: Run[];
  failed: Run[];
}

/**
 * How runs of a worker that is gone are recovered: each goes back to the queue to be resumed
 * from its journal (a sub-agent's run too: its resumed parent waits for it), except a run that
 * has used `maxAttempts` attempts (ended with `exhausted`, in which `{attempts}` is replaced by
 * its number of attempts).
 */
export interface RecoveryPolicy {
  maxAttempts: number;
  exhausted: string;
}

/** Why an attempt ended, as the `attempt_ended` event of a run put back in the queue says. */
export type AttemptEnd = 'process lost' | 'lease lost' | 'graceful stop';

export interface RunListFilter extends Page {
  status?: RunStatusFilter | readonly RunStatusFilter[];
  agentId?: number;
  agentName?: string;
  environmentId?: number;
  source?: RunSource;
  parentRunId?: number;
  /** Only finished runs whose completedAt - startedAt is at least this long. */
  minDurationMs?: number;
  /** Queued at or after. */
  since?: Date;
  /** Queued before. */
  until?: Date;
}

/** Counters a worker reports while a run is going. */
export interface RunProgress {
  stepsTaken?: number;
  inputTokens?: number;
  outputTokens?: number;
  model?: string | null;
  traceId?: string | null;
}

/** Events written with the end of a run (the runner's last buffered ones). */
export interface FinalEvents {
  events: ReadonlyArray<{ type: string; payload?: unknown; durationMs?: number | null }>;
}

export interface RunCompletion extends RunProgress {
  finalResponse?: string | null;
  /** Appended atomically with the completion. */
  finalEvents?: FinalEvents;
  /** When given, the update only applies while this worker still holds the run. */
  workerId?: string;
}

export interface RunFailure extends RunProgress {
  status?: 'error' | 'timeout' | 'cancelled';
  error: string;
  /** Appended atomically with the failure. */
  finalEvents?: FinalEvents;
  /** When given, the update only applies while this worker still holds the run. */
  workerId?: string;
}

const ACTIVE: RunStatus[] = ['queued', 'running'];
/** Every column of a run, in table order: what a write answering the whole run returns. */
const RUN_COLUMNS = getTableColumns(runs);

function statusesOf(filter: RunListFilter['status']): RunStatus[] | undefined {
  if (filter === undefined) return undefined;
  const list: readonly RunStatusFilter[] = typeof filter === 'string' ? [filter] : filter;
  return [...new Set(list.map((s): RunStatus => (s === 'failed' ? 'error' : s)))];
}

function whereOf(filter: Omit<RunListFilter, keyof Page>): SQL | undefined {
  const where: SQL[] = [];
  const statuses = statusesOf(filter.status);
  if (statuses !== undefined) where.push(inArray(runs.status, statuses));
  if (filter.agentId !== undefined) where.push(eq(runs.agentId, filter.agentId));
  if (filter.agentName !== undefined) where.push(eq(runs.agentName, filter.agentName));
  if (filter.environmentId !== undefined) where.push(eq(runs.environmentId, filter.environmentId));
  if (filter.source !== undefined) where.push(eq(runs.source, filter.source));
  if (filter.parentRunId !== undefined) where.push(eq(runs.parentRunId, filter.parentRunId));
  if (filter.since !== undefined) where.push(gte(runs.queuedAt, filter.since));
  if (filter.until !== undefined) where.push(lt(runs.queuedAt, filter.until));
  if (filter.minDurationMs !== undefined) {
    where.push(sql`${runs.completedAt} - ${runs.startedAt} >= ${filter.minDurationMs}`);
  }
  return and(...where);
}

/** completedAt - startedAt in ms, or null while the run has not both started and ended. */
export function runDurationMs(run: Pick<Run, 'startedAt' | 'completedAt'>): number | null {
  if (!run.startedAt || !run.completedAt) return null;
  return run.completedAt.getTime() - run.startedAt.getTime();
}

/** Agent runs: the queue (queued → running) and the history (completed, error, timeout, cancelled). */
export class RunsRepository {
  readonly #ctx: StoreContext;
  /** Creates waiting for the next group insert. */
  readonly #pending: Array<{
    input: RunCreateInput;
    now: Date;
    resolve: (run: Run) => void;
    reject: (err: unknown) => void;
  }> = [];
  /** The group insert waiting for its turn, if any. */
  #scheduled: Promise<void> | undefined;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /**
   * Writes a `queued` run and returns it; CONFLICT if the idempotency key was used before.
   * Runs created while the write queue is busy go in together, one INSERT of many rows (a
   * group commit): under load every write costs one statement and one commit, not one each.
   */
  async create(input: RunCreateInput): Promise<Run> {
    if (input.idempotencyKey != null) return this.#createKeyed(input);
    return new Promise<Run>((resolve, reject) => {
      this.#pending.push({ input, now: this.#ctx.now(), resolve, reject });
      if (this.#pending.length === 1) this.#scheduleInsert();
    });
  }

  #scheduleInsert(): void {
    // After the I/O callbacks of this turn of the event loop: the requests that arrived
    // together (say, on 50 connections) are written together, in one statement and one commit.
    const scheduled = new Promise<void>((resolve) => {
      setImmediate(() => {
        void this.#ctx
          .write('queue runs', (db) => this.#insertPending(db))
          .catch((err: unknown) => {
            // The write never ran (the store is closed): everyone still waiting hears why.
            for (const item of this.#pending.splice(0)) item.reject(err);
          })
          .finally(() => {
            if (this.#scheduled === scheduled) this.#scheduled = undefined;
            resolve();
          });
      });
    });
    this.#scheduled = scheduled;
  }

  /** Resolves once every run handed to `create` so far is written (or refused). */
  async settle(): Promise<void> {
    while (this.#scheduled) await this.#scheduled;
  }

  async #insertPending(db: LibSQLDatabase): Promise<void> {
    const batch = this.#pending.splice(0, MAX_CREATE_BATCH);
    if (this.#pending.length > 0) this.#scheduleInsert();
    if (batch.length === 0) return;
    try {
      const values: Record<string, unknown> = {};
      const written = batch.map(({ input, now }) => createValues(input, now));
      written.forEach((row, i) => addCreateValues(values, row, i));
      const rows = await runDirectSelect(
        this.#ctx.rows,
        directSelect(db, `runs.createMany:${batch.length}`, CREATED_FIELDS, (d, fields) =>
          createRuns(d, batch.length, fields),
        ),
        values,
      );
      // Ids are given in VALUES order, so sorted ids pair up with the batch.
      const ids = rows.map((row) => row.id).sort((a, b) => a - b);
      if (ids.length !== batch.length) {
        throw new StoreError(
          'STORE_QUERY_FAILED',
          `Inserted ${ids.length} runs for ${batch.length} requests.`,
        );
      }
      batch.forEach((item, i) =>
        item.resolve(createdRun(written[i] as CreateRow, ids[i] as number)),
      );
    } catch (err) {
      if (batch.length === 1) {
        for (const item of batch) item.reject(toStoreError(err, createOperation(item.input)));
        return;
      }
      // One bad row (say, an agent deleted meanwhile) must not fail the others: each alone.
      for (const item of batch) {
        try {
          const [row] = await prepared(db, 'runs.create', createRun).all(
            createValues(item.input, item.now),
          );
          if (!row) throw new StoreError('STORE_QUERY_FAILED', 'The run was not inserted.');
          item.resolve(row);
        } catch (single) {
          item.reject(toStoreError(single, createOperation(item.input)));
        }
      }
    }
  }

  /** A create with an idempotency key: alone, so a repeated key is a CONFLICT for its caller. */
  async #createKeyed(input: RunCreateInput): Promise<Run> {
    const now = this.#ctx.now();
    return this.#ctx.write(
      `queue a run of agent ${JSON.stringify(input.agentName)}`,
      async (db) => {
        const [row] = await prepared(db, 'runs.create', createRun).all(createValues(input, now));
        if (row) return row;
        const [existing] = await db
          .select({ id: runs.id })
          .from(runs)
          .where(eq(runs.idempotencyKey, input.idempotencyKey ?? ''));
        throw new StoreError(
          'CONFLICT',
          `A run with idempotency key ${JSON.stringify(input.idempotencyKey)} already exists (run ${existing?.id ?? '?'}); fetch that run instead of queueing another.`,
          { idempotencyKey: input.idempotencyKey ?? null, runId: existing?.id ?? null },
        );
      },
    );
  }

  /** The run with this id, or undefined. */
  async get(id: number): Promise<Run | undefined> {
    return this.#ctx.read('get run', (db) => prepared(db, 'runs.get', getRun).get({ id }));
  }

  /** The run created with this idempotency key, or undefined. */
  async findByIdempotencyKey(key: string): Promise<Run | undefined> {
    return this.#ctx.read('find run by idempotency key', (db) =>
      prepared(db, 'runs.findByIdempotencyKey', (d) =>
        d
          .select()
          .from(runs)
          .where(eq(runs.idempotencyKey, slot('key') as unknown as string))
          .prepare(),
      ).get({ key }),
    );
  }

  /**
   * Asks a run to stop. A queued run ends `cancelled` at once (`ended`); a running one is
   * marked, and its worker ends it `cancelled` when it next looks (`runsToCancel`). Asking
   * again is harmless. NOT_FOUND for an unknown id; CONFLICT (details.status) once it has ended.
   */
  async requestCancel(id: number, error: string): Promise<{ run: Run; ended: boolean }> {
    const now = this.#ctx.now();
    return this.#ctx.write(`cancel run ${id}`, async (db) => {
      const [ended] = await db
        .update(runs)
        .set({ status: 'cancelled', error, completedAt: now, cancelRequestedAt: now })
        .where(and(eq(runs.id, id), eq(runs.status, 'queued')))
        .returning();
      if (ended) return { run: ended, ended: true };
      const [marked] = await db
        .update(runs)
        .set({ cancelRequestedAt: sql`coalesce(${runs.cancelRequestedAt}, ${now.getTime()})` })
        .where(and(eq(runs.id, id), eq(runs.status, 'running')))
        .returning();
      if (marked) return { run: marked, ended: false };
      const current = await prepared(db, 'runs.get', getRun).get({ id });
      if (!current) throw notFound('run', id, 'Check the id with `junction runs list`.');
      throw new StoreError(
        'CONFLICT',
        `Run ${id} already ended ${current.status}; only a queued or running run can be cancelled.`,
        { runId: id, status: current.status },
      );
    });
  }

  /** Ids of the runs a workflow run started (`origin.workflowRunId`) that have not ended. */
  async activeIdsOfWorkflowRun(workflowRunId: number): Promise<number[]> {
    return this.#ctx.read('find the runs of a workflow run', async (db) => {
      const rows = await db
        .select({ id: runs.id })
        .from(runs)
        .where(and(eq(runs.originWorkflowRunId, workflowRunId), inArray(runs.status, ACTIVE)));
      return rows.map((row) => row.id);
    });
  }

  /** Ids of the running runs `workerId` holds that someone asked to stop. */
  async runsToCancel(workerId: string): Promise<number[]> {
    return this.#ctx.read('find runs asked to stop', async (db) => {
      const rows = await db
        .select({ id: runs.id })
        .from(runs)
        .where(
          and(
            eq(runs.workerId, workerId),
            isNotNull(runs.cancelRequestedAt),
            eq(runs.status, 'running'),
          ),
        );
      return rows.map((row) => row.id);
    });
  }

  /**
   * Frees an idempotency key so a later create may use it again (the key outlived its
   * window): clears it on run `runId` only while that run still holds it. False when it no
   * longer does, e.g. another caller released it first; the run itself is kept.
   */
  async releaseIdempotencyKey(runId: number, key: string): Promise<boolean> {
    return this.#ctx.write(`release idempotency key of run ${runId}`, async (db) => {
      const result = await db
        .update(runs)
        .set({ idempotencyKey: null })
        .where(and(eq(runs.id, runId), eq(runs.idempotencyKey, key)));
      return result.rowsAffected > 0;
    });
  }

  /** Runs matching the filter, newest first. */
  async list(filter: RunListFilter = {}): Promise<Run[]> {
    const { limit, offset } = resolvePage(filter);
    return this.#ctx.read('list runs', (db) =>
      db
        .select()
        .from(runs)
        .where(whereOf(filter))
        .orderBy(desc(runs.id))
        .limit(limit)
        .offset(offset),
    );
  }

  /**
   * Runs that finished after `after` (a `completedAt` and an id, the last one a reader has
   * seen), oldest first: a reader that keeps the last one it handled sees every finished run
   * once, whichever process finished it.
   */
  async finishedAfter(after: { at: Date; id: number }, limit = 50): Promise<Run[]> {
    const at = after.at.getTime();
    return this.#ctx.read('list finished runs', (db) =>
      db
        .select()
        .from(runs)
        .where(
          and(
            isNotNull(runs.completedAt),
            sql`(${runs.completedAt} > ${at} OR (${runs.completedAt} = ${at} AND ${runs.id} > ${after.id}))`,
          ),
        )
        .orderBy(asc(runs.completedAt), asc(runs.id))
        .limit(limit),
    );
  }

  /** How many runs match the filter (paging is ignored). */
  async count(filter: Omit<RunListFilter, keyof Page> = {}): Promise<number> {
    return this.#ctx.read('count runs', async (db) => {
      const [row] = await db.select({ n: count() }).from(runs).where(whereOf(filter));
      return row?.n ?? 0;
    });
  }

  /**
   * Claims the oldest queued run for `workerId` with a lease of `leaseMs`, or returns undefined
   * when the queue is empty. One UPDATE … RETURNING, so two processes never get the same run.
   */
  async claimNext(workerId: string, leaseMs: number): Promise<Run | undefined> {
    const now = this.#ctx.now();
    return this.#ctx.write('claim the next queued run', (db) =>
      prepared(db, 'runs.claimNext', claimNextRun).get({
        workerId,
        startedAt: now.getTime(),
        leaseExpiresAt: now.getTime() + leaseMs,
      }),
    );
  }

  /** Claims one queued run by id (a caller that runs it itself); undefined if it is not queued. */
  async claim(id: number, workerId: string, leaseMs: number): Promise<Run | undefined> {
    const now = this.#ctx.now();
    return this.#ctx.write(`claim run ${id}`, (db) =>
      prepared(db, 'runs.claim', claimRun).get({
        id,
        workerId,
        startedAt: now.getTime(),
        leaseExpiresAt: now.getTime() + leaseMs,
      }),
    );
  }

  /**
   * Puts a run this worker holds back in the queue (a graceful stop), to be resumed from its
   * journal, with an `attempt_ended` event saying why; false if someone asked it to stop, or
   * this worker no longer holds it.
   */
  async requeue(id: number, workerId: string, why: AttemptEnd = 'graceful stop'): Promise<boolean> {
    const now = this.#ctx.now();
    return this.#ctx.write(`requeue run ${id}`, async (db) => {
      const held = and(heldBy(id, workerId), REQUEUABLE);
      const [ending] = await db.select(ENDING_FIELDS).from(runs).where(held);
      if (!ending) return false;
      const result = await db.update(runs).set(REQUEUED).where(held);
      if (result.rowsAffected === 0) return false;
      await insertEvents(db, id, [attemptEnded(ending, why)], now);
      return true;
    });
  }

  /**
   * Recovers `running` runs whose lease ran out (their worker died or stalled) by `policy`:
   * back to the queue to be resumed (an `attempt_ended` event says `lease lost`), or ended.
   */
  async recoverExpired(
    policy: RecoveryPolicy,
    now: Date = this.#ctx.now(),
  ): Promise<RecoveredRuns> {
    return this.#ctx.write('recover runs with expired leases', (db) =>
      recoverWhere(db, and(eq(runs.status, 'running'), lte(runs.leaseExpiresAt, now)) as SQL, {
        policy,
        now,
        why: 'lease lost',
      }),
    );
  }

  /**
   * Recovers one `running` run of a worker known to be dead (its process is gone), by the rule
   * of `recoverExpired` (`process lost`); undefined if the run is no longer that worker's.
   */
  async recoverAbandoned(
    id: number,
    workerId: string,
    policy: RecoveryPolicy,
  ): Promise<{ run: Run; requeued: boolean } | undefined> {
    const now = this.#ctx.now();
    return this.#ctx.write(`recover run ${id}`, async (db) => {
      const held = heldBy(id, workerId);
      const { requeued, failed } = await recoverWhere(db, held as SQL, {
        policy,
        now,
        why: 'process lost',
      });
      if (requeued[0]) return { run: requeued[0], requeued: true };
      return failed[0] ? { run: failed[0], requeued: false } : undefined;
    });
  }

  /** Extends the lease of a run this worker holds; false if it no longer holds it. */
  async renewLease(id: number, workerId: string, leaseMs: number): Promise<boolean> {
    const until = new Date(this.#ctx.now().getTime() + leaseMs);
    return this.#ctx.write('renew run lease', async (db) => {
      const result = await prepared(db, 'runs.renewLease', renewLease).run({
        id,
        workerId,
        leaseExpiresAt: until.getTime(),
      });
      return result.rowsAffected > 0;
    });
  }

  /** Records counters of a run in progress; NOT_FOUND if the id is unknown. */
  async updateProgress(id: number, progress: RunProgress): Promise<Run> {
    return this.#ctx.write('update run progress', async (db) => {
      const [row] = await db
        .update(runs)
        .set(progressFields(progress))
        .where(eq(runs.id, id))
        .returning();
      if (!row) throw notFound('run', id);
      return row;
    });
  }

  /** Ends a queued or running run as `completed`; CONFLICT if it had already ended. */
  async markCompleted(id: number, result: RunCompletion = {}): Promise<Run> {
    return this.#finish(id, result.workerId, result.finalEvents, {
      ...progressFields(result),
      status: 'completed',
      finalResponse: result.finalResponse ?? null,
      error: null,
    });
  }

  /** Ends a queued or running run as `error` (default), `timeout` or `cancelled`; CONFLICT if it had already ended. */
  async markFailed(id: number, failure: RunFailure): Promise<Run> {
    return this.#finish(id, failure.workerId, failure.finalEvents, {
      ...progressFields(failure),
      status: failure.status ?? 'error',
      error: failure.error,
    });
  }

  /** Deletes finished runs (and their events) queued before `before`; returns how many. */
  async pruneOlderThan(before: Date): Promise<number> {
    return this.#ctx.write('prune runs', async (db) => {
      const result = await db
        .delete(runs)
        .where(and(lt(runs.queuedAt, before), notInArray(runs.status, ACTIVE)));
      return result.rowsAffected;
    });
  }

  /** A run's end and its last events in one transaction: both are written, or neither. */
  async #endWithEvents(
    db: LibSQLDatabase,
    update: DirectSelect<Run>,
    values: Record<string, unknown>,
    events: BatchItem,
  ): Promise<Run[]> {
    const [ended] = await runWriteBatch(db, [{ select: update, values }, events]);
    return decodeRows(update, ended?.rows ?? []);
  }

  async #finish(
    id: number,
    workerId: string | undefined,
    finalEvents: FinalEvents | undefined,
    fields: Partial<typeof runs.$inferInsert>,
  ): Promise<Run> {
    const now = this.#ctx.now();
    return this.#ctx.write(`finish run ${id}`, async (db) => {
      const values: Record<string, unknown> = { id, workerId: workerId ?? null };
      for (const [key, value] of Object.entries(fields)) values[key] = driverValue(value);
      values.completedAt = now.getTime();
      const columns = Object.keys(fields).sort();
      const key = `runs.finish:${columns.join(',')}:${workerId !== undefined}`;
      const update = directSelect(db, key, RUN_COLUMNS, (d, fields) =>
        finishRun(d, fields, columns, workerId !== undefined),
      );
      // The end and the last events in one transaction (one commit, never one without the
      // other); the events go in only when this writer really ended the run, so nothing lands
      // on a run someone else already finished or took over.
      const events = finalEvents?.events ?? [];
      const ended =
        events.length === 0
          ? await runDirectSelect(this.#ctx.rows, update, values)
          : await this.#endWithEvents(db, update, values, eventsIfChanged(id, events, now));
      const [row] = ended;
      if (row) return row;
      const current = await prepared(db, 'runs.get', getRun).get({ id });
      if (!current) throw notFound('run', id, 'Check the id with `junction runs list`.');
      const message = ACTIVE.includes(current.status)
        ? `Run ${id} is now held by worker ${JSON.stringify(current.workerId)}, not ${JSON.stringify(workerId)}; its lease expired and another worker took it over.`
        : `Run ${id} already ended with status ${current.status}; a finished run cannot change.`;
      throw new StoreError('CONFLICT', message, {
        runId: id,
        status: current.status,
        workerId: current.workerId,
      });
    });
  }
}

/**
 * What a package outside the run door may do with runs: read them. Runs are written only
 * through the run door (@junction/agent-core/runs), so a consumer's slice of the store takes
 * this in place of `RunsRepository` and the compiler keeps the door.
 */
export type RunReader = Pick<
  RunsRepository,
  'get' | 'list' | 'count' | 'finishedAfter' | 'findByIdempotencyKey' | 'activeIdsOfWorkflowRun'
>;

/** The run columns a progress report sets. */
export function progressFields(progress: RunProgress): Partial<typeof runs.$inferInsert> {
  const fields: Partial<typeof runs.$inferInsert> = {};
  if (progress.stepsTaken !== undefined) fields.stepsTaken = progress.stepsTaken;
  if (progress.inputTokens !== undefined) fields.inputTokens = progress.inputTokens;
  if (progress.outputTokens !== undefined) fields.outputTokens = progress.outputTokens;
  if (progress.model !== undefined) fields.model = progress.model;
  if (progress.traceId !== undefined) fields.traceId = progress.traceId;
  return fields;
}

// ---- the hot statements, prepared once per database (see prepared.ts) ----
// Slots take driver values: epoch ms for dates, JSON text for `variables`.

/** The operation a failed create names. */
function createOperation(input: RunCreateInput): string {
  return `queue a run of agent ${JSON.stringify(input.agentName)}`;
}

/** Most runs one group insert writes. */
const MAX_CREATE_BATCH = 64;

const CREATE_COLUMNS = [
  'agentId',
  'agentName',
  'environmentId',
  'status',
  'workerId',
  'startedAt',
  'leaseExpiresAt',
  'task',
  'variables',
  'source',
  'parentRunId',
  'model',
  'traceId',
  'traceParent',
  'idempotencyKey',
  'timeoutMs',
  'queuedAt',
  'attempt',
  'originWorkflowRunId',
  'originWorkflowStep',
  'originScheduleId',
  'originPlatformRunId',
] as const;

/** The driver values of one create, by column. */
type CreateRow = Record<(typeof CREATE_COLUMNS)[number], unknown>;

/** The slots of row `i` of a create (suffixed `_i` in a group insert). */
function createRow(suffix: string): Record<(typeof CREATE_COLUMNS)[number], SQL> {
  return Object.fromEntries(
    CREATE_COLUMNS.map((column) => [column, slot(`${column}${suffix}`)]),
  ) as Record<(typeof CREATE_COLUMNS)[number], SQL>;
}

/** Driver values of a create (the single insert; `addCreateValues` names them for a group). */
function createValues(input: RunCreateInput, now: Date): CreateRow {
  const claimed = input.claimedBy;
  const row: CreateRow = {
    agentId: input.agentId ?? null,
    agentName: input.agentName,
    environmentId: input.environmentId ?? null,
    status: claimed ? 'running' : 'queued',
    workerId: claimed?.workerId ?? null,
    startedAt: claimed ? now.getTime() : null,
    leaseExpiresAt: claimed ? now.getTime() + claimed.leaseMs : null,
    task: input.task,
    variables: JSON.stringify(input.variables ?? {}),
    source: input.source,
    parentRunId: input.parentRunId ?? null,
    model: input.model ?? null,
    traceId: input.traceId ?? null,
    traceParent: input.traceParent ?? null,
    idempotencyKey: input.idempotencyKey ?? null,
    timeoutMs: input.timeoutMs ?? null,
    queuedAt: now.getTime(),
    // A run written claimed starts its first attempt as it is written.
    attempt: claimed ? 1 : 0,
    originWorkflowRunId: input.origin?.workflowRunId ?? null,
    originWorkflowStep: input.origin?.workflowStep ?? null,
    originScheduleId: input.origin?.scheduleId ?? null,
    originPlatformRunId: input.origin?.platformRunId ?? null,
  };
  return row;
}

/** Slot names of row `i` of a group insert, made once per row number. */
const suffixedColumns: string[][] = [];

/** Adds the driver values of row `index` of a group insert to `values` (no copy per row). */
function addCreateValues(values: Record<string, unknown>, row: CreateRow, index: number): void {
  const names = (suffixedColumns[index] ??= CREATE_COLUMNS.map((c) => `${c}_${index}`));
  CREATE_COLUMNS.forEach((column, i) => {
    values[names[i] as string] = row[column];
  });
}

function createRun(db: LibSQLDatabase) {
  return db
    .insert(runs)
    .values(createRow(''))
    .onConflictDoNothing({ target: runs.idempotencyKey })
    .returning()
    .prepare();
}

/** What a group insert returns: only the ids; the rest of each run is what was written. */
const CREATED_FIELDS = { id: runs.id };

/** Text as the database gives it back: every argument is bound well-formed (U+FFFD for a lone surrogate). */
function asStored(text: unknown): string | null {
  return text === null ? null : wellFormedText(text as string);
}

function dateOrNull(ms: unknown): Date | null {
  return ms === null ? null : new Date(ms as number);
}

/**
 * The run a create wrote, from the driver values it wrote and the id the database gave it:
 * exactly what `RETURNING *` would answer (a test holds them equal), without reading 25
 * columns back. The columns a create does not write have their schema defaults.
 */
function createdRun(row: CreateRow, id: number): Run {
  return {
    id,
    agentId: row.agentId as number | null,
    agentName: asStored(row.agentName) as string,
    environmentId: row.environmentId as number | null,
    status: row.status as Run['status'],
    task: asStored(row.task) as string,
    variables: JSON.parse(asStored(row.variables) as string) as Record<string, string>,
    source: row.source as Run['source'],
    parentRunId: row.parentRunId as number | null,
    stepsTaken: 0,
    inputTokens: 0,
    outputTokens: 0,
    model: asStored(row.model),
    finalResponse: null,
    error: null,
    traceId: asStored(row.traceId),
    traceParent: asStored(row.traceParent),
    idempotencyKey: asStored(row.idempotencyKey),
    timeoutMs: row.timeoutMs as number | null,
    actedAt: null,
    attempt: row.attempt as number,
    pinned: null,
    originWorkflowRunId: row.originWorkflowRunId as number | null,
    originWorkflowStep: asStored(row.originWorkflowStep),
    originScheduleId: row.originScheduleId as number | null,
    originPlatformRunId: asStored(row.originPlatformRunId),
    queuedAt: new Date(row.queuedAt as number),
    startedAt: dateOrNull(row.startedAt),
    completedAt: null,
    workerId: asStored(row.workerId),
    leaseExpiresAt: dateOrNull(row.leaseExpiresAt),
    cancelRequestedAt: null,
  };
}

/** One INSERT of `count` runs (no idempotency keys: nothing can conflict). */
function createRuns(db: LibSQLDatabase, count: number, fields: typeof CREATED_FIELDS) {
  return db
    .insert(runs)
    .values(Array.from({ length: count }, (_, i) => createRow(`_${i}`)))
    .returning(fields);
}

function getRun(db: LibSQLDatabase) {
  return db
    .select()
    .from(runs)
    .where(eq(runs.id, slot('id')))
    .prepare();
}

const claimFields = {
  status: 'running' as const,
  attempt: sql`${runs.attempt} + 1`,
  workerId: slot('workerId'),
  startedAt: slot('startedAt'),
  leaseExpiresAt: slot('leaseExpiresAt'),
};

function claimNextRun(db: LibSQLDatabase) {
  const oldest = db
    .select({ id: runs.id })
    .from(runs)
    .where(eq(runs.status, 'queued'))
    .orderBy(asc(runs.queuedAt), asc(runs.id))
    .limit(1);
  return db
    .update(runs)
    .set(claimFields)
    .where(and(sql`${runs.id} = (${oldest})`, eq(runs.status, 'queued')))
    .returning()
    .prepare();
}

function claimRun(db: LibSQLDatabase) {
  return db
    .update(runs)
    .set(claimFields)
    .where(and(eq(runs.id, slot('id')), eq(runs.status, 'queued')))
    .returning()
    .prepare();
}

/**
 * A run `workerId` holds (running, under its claim): the condition of the lease's writes (its
 * raw-SQL form, for the journal's statements, is `heldBy` in insert-events.ts).
 */
function heldBy(id: number | SQL, workerId: string | SQL): SQL {
  return and(eq(runs.id, id), eq(runs.status, 'running'), eq(runs.workerId, workerId)) as SQL;
}

/** A run that may go back to the queue, to be resumed from its journal: nobody asked it to stop. */
const REQUEUABLE = isNull(runs.cancelRequestedAt);

/** The attempt of a run that is ending without ending its run. */
interface EndingAttempt {
  attempt: number;
  workerId: string | null;
  startedAt: Date | null;
}

/** The event of an attempt that ended without ending its run. */
function attemptEnded(ending: EndingAttempt, why: AttemptEnd): EventRow {
  return {
    type: 'attempt_ended',
    payload: {
      attempt: ending.attempt,
      worker_id: ending.workerId,
      reason: why,
      started_at: ending.startedAt ? ending.startedAt.toISOString() : null,
    },
  };
}

/** What `attemptEnded` needs of a run, read before it goes back to the queue. */
const ENDING_FIELDS = {
  id: runs.id,
  attempt: runs.attempt,
  workerId: runs.workerId,
  startedAt: runs.startedAt,
};

/**
 * Recovers the `running` runs matching `where` whose worker is gone: one asked to stop ends
 * `cancelled`; one that may be resumed and has attempts left goes back to the queue (with an
 * `attempt_ended` event); the rest end `error` with the policy's reason.
 */
async function recoverWhere(
  db: LibSQLDatabase,
  where: SQL,
  options: { policy: RecoveryPolicy; now: Date; why: AttemptEnd },
): Promise<RecoveredRuns> {
  const { policy, now, why } = options;
  // Asked to stop before its worker died: it ends as asked.
  const cancelled = await db
    .update(runs)
    .set(cancelledOnRecovery(now))
    .where(and(where, isNotNull(runs.cancelRequestedAt)))
    .returning();
  const before = await db
    .select(ENDING_FIELDS)
    .from(runs)
    .where(and(where, REQUEUABLE, lt(runs.attempt, policy.maxAttempts)));
  const requeued =
    before.length === 0
      ? []
      : await db
          .update(runs)
          .set(REQUEUED)
          .where(
            and(
              where,
              inArray(
                runs.id,
                before.map((r) => r.id),
              ),
            ),
          )
          .returning();
  for (const run of before) {
    if (requeued.some((r) => r.id === run.id))
      await insertEvents(db, run.id, [attemptEnded(run, why)], now);
  }
  const exhausted = await db
    .update(runs)
    .set({
      status: 'error',
      error: sql`replace(${policy.exhausted}, '{attempts}', ${runs.attempt})`,
      completedAt: now,
      leaseExpiresAt: null,
    })
    .where(and(where, REQUEUABLE))
    .returning();
  return { requeued, failed: [...cancelled, ...exhausted] };
}

/** The end of a run asked to stop whose worker is gone. */
function cancelledOnRecovery(now: Date) {
  return {
    status: 'cancelled' as const,
    error: 'Run cancelled (its worker stopped before it could end the run).',
    completedAt: now,
    leaseExpiresAt: null,
  };
}

/** What a run put back in the queue has of its attempt: nothing. */
const REQUEUED = {
  status: 'queued' as const,
  workerId: null,
  startedAt: null,
  leaseExpiresAt: null,
};

function renewLease(db: LibSQLDatabase) {
  return db
    .update(runs)
    .set({ leaseExpiresAt: slot('leaseExpiresAt') })
    .where(heldBy(slot('id'), slot('workerId')))
    .prepare();
}

/** Ends a run: sets `columns` (each from the slot of its name) plus completedAt and the lease. */
function finishRun(
  db: LibSQLDatabase,
  fields: typeof RUN_COLUMNS,
  columns: readonly string[],
  byWorker: boolean,
) {
  const set: Record<string, SQL | null> = {
    completedAt: slot('completedAt'),
    leaseExpiresAt: null,
  };
  for (const column of columns) set[column] = slot(column);
  const where = [eq(runs.id, slot('id')), inArray(runs.status, ACTIVE)];
  if (byWorker) where.push(eq(runs.workerId, slot('workerId')));
  return db
    .update(runs)
    .set(set as Partial<typeof runs.$inferInsert>)
    .where(and(...where))
    .returning(fields);
}
