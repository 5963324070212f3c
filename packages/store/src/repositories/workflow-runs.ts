import {
  and,
  asc,
  desc,
  eq,
  getTableColumns,
  inArray,
  isNotNull,
  isNull,
  lte,
  or,
  sql,
  type SQL,
} from 'drizzle-orm';
import type { SQLiteUpdateSetSource } from 'drizzle-orm/sqlite-core';
import type { WorkflowRun, WorkflowRunStatus } from '../rows.js';
import { approvals, environments, workflowRuns, workflows } from '../schema.js';
import type { StoreContext } from '../store-context.js';
import { notFound, StoreError } from '../store-error.js';
import { resolvePage, type Page } from '../paging.js';
import { prepared, slot } from '../prepared.js';
import type { LibSQLDatabase } from 'drizzle-orm/libsql';
import { stepChangeItems, type WorkflowStepChanges } from './workflow-steps.js';
import {
  decodeRows,
  directSelect,
  runDirectFirst,
  runWriteBatch,
  type BatchItem,
} from '../direct-select.js';

export interface WorkflowRunCreateInput {
  /** Row id of the workflow; the key and name are copied so history survives the definition. */
  workflowId?: number | null;
  workflowKey: string;
  workflowName: string;
  environmentId?: number | null;
  /** The definition the run follows from start to end, whatever a later sync stores. */
  definition?: Record<string, unknown> | null;
  source?: string | null;
  input?: unknown;
  status?: WorkflowRunStatus;
  timeoutAt?: Date | null;
  /** A second start with the same key answers the first run (see `findByIdempotencyKey`). */
  idempotencyKey?: string | null;
  /** Create the run already held by this worker (an idle worker of the same process). */
  claimedBy?: { workerId: string; leaseMs: number };
  /** W3C traceparent of what started the run (a schedule's fire): its advances nest under it. */
  traceParent?: string | null;
}

/**
 * A new run of a workflow the caller already holds (`createFromWorkflow`): the workflow's row,
 * how the caller found it, and the exact text of the definition it checked the input against.
 */
export interface WorkflowRunFromWorkflowInput {
  workflow: {
    /** Row id. */
    id: number;
    /** The workflow's own id (its key). */
    workflowId: string;
    /** The definition's text as the workflow row stores it. */
    definitionText: string;
    /** Where it was found: its environment's name, or its environment's row id. */
    environment: { name: string } | { id: number };
  };
  /** The definition the text holds, answered as the run's (never read back). */
  definition: Record<string, unknown>;
  source?: string | null;
  input?: unknown;
  timeoutAt?: Date | null;
  idempotencyKey?: string | null;
  claimedBy?: { workerId: string; leaseMs: number };
  traceParent?: string | null;
}

export interface WorkflowRunPatch {
  status?: WorkflowRunStatus;
  currentStep?: string | null;
  output?: unknown;
  error?: string | null;
}

export interface WorkflowRunFilter extends Page {
  workflowId?: number;
  workflowKey?: string;
  environmentId?: number;
  status?: WorkflowRunStatus | readonly WorkflowRunStatus[];
}

/** Where a worker leaves a run it advanced as far as it could: waiting, or due again later. */
export interface WorkflowRunRelease {
  status: 'running' | 'waiting_approval';
  currentStep?: string | null;
  /** When it needs advancing again (a timer, a retry, an approval's deadline); null: never by time. */
  wakeAt: Date | null;
}

export const WORKFLOW_RUN_ENDED: readonly WorkflowRunStatus[] = [
  'completed',
  'failed',
  'cancelled',
  'timed_out',
];
const ACTIVE: readonly WorkflowRunStatus[] = ['pending', 'running', 'waiting_approval'];

const RUN_FIELDS = getTableColumns(workflowRuns);
/**
 * What others may change in a run while a worker holds it (its workflow or environment
 * removed, its current step set by a tool): the rest is as the worker took it, or the worker's
 * own doing. A worker's finish reads only these back.
 */
const RUN_FIELDS_OTHERS_CHANGE = {
  workflowId: RUN_FIELDS.workflowId,
  environmentId: RUN_FIELDS.environmentId,
  currentStep: RUN_FIELDS.currentStep,
  startedAt: RUN_FIELDS.startedAt,
};
/** Every column but the definition: a writer that holds the definition does not read it back. */
const { definition: _definition, ...RUN_FIELDS_BUT_DEFINITION } = RUN_FIELDS;

/** Executions of workflows, each advanced by one worker at a time under a lease. */
export class WorkflowRunsRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /** Records a new workflow run (default `pending`, due at once). */
  async create(input: WorkflowRunCreateInput): Promise<WorkflowRun> {
    const now = this.#ctx.now();
    const claimed = input.claimedBy;
    const status = claimed ? 'running' : (input.status ?? 'pending');
    const json = (value: unknown): string | null =>
      value === undefined || value === null ? null : JSON.stringify(value);
    return this.#ctx.write(`start workflow ${JSON.stringify(input.workflowKey)}`, async (db) => {
      // Built once: the start of a workflow run is on its hot path (see bench/workflow). The
      // definition is not read back: the run's is the one given.
      const insert = directSelect(db, 'workflowRuns.create', RUN_FIELDS_BUT_DEFINITION, createRun);
      const row = await runDirectFirst(this.#ctx.rows, insert, {
        workflowId: input.workflowId ?? null,
        workflowKey: input.workflowKey,
        workflowName: input.workflowName,
        environmentId: input.environmentId ?? null,
        definition: json(input.definition),
        source: input.source ?? null,
        status,
        input: json(input.input),
        timeoutAt: input.timeoutAt?.getTime() ?? null,
        idempotencyKey: input.idempotencyKey ?? null,
        workerId: claimed?.workerId ?? null,
        leaseExpiresAt: claimed ? now.getTime() + claimed.leaseMs : null,
        advances: claimed ? 1 : 0,
        wakeAt: now.getTime(),
        createdAt: now.getTime(),
        startedAt: status === 'pending' ? null : now.getTime(),
        traceParent: input.traceParent ?? null,
      });
      if (row) return withDefinition(row, input.definition);
      const [first] = await db
        .select()
        .from(workflowRuns)
        .where(eq(workflowRuns.idempotencyKey, input.idempotencyKey as string));
      return first as WorkflowRun;
    });
  }

  /**
   * Records a new run of a workflow the caller already holds, in one statement that reads the
   * workflow's row as it writes the run (its key, name, environment and definition are copied
   * from the row, as `create` copies them): only if that row is still `workflow.id`, enabled,
   * under that key in that environment, with exactly that definition text. Undefined when it
   * is not (the workflow changed, was disabled, renamed or removed since the caller read it)
   * or when the idempotency key is taken: the caller then finds the workflow again and uses
   * `create`. Saves the workflow's read (and its definition's parse) on the start of a run.
   */
  async createFromWorkflow(input: WorkflowRunFromWorkflowInput): Promise<WorkflowRun | undefined> {
    const now = this.#ctx.now();
    const claimed = input.claimedBy;
    const status = claimed ? 'running' : 'pending';
    const byName = 'name' in input.workflow.environment;
    const at = now.getTime();
    const inputText =
      input.input === undefined || input.input === null ? null : JSON.stringify(input.input);
    const values = {
      workflowRowId: input.workflow.id,
      workflowKey: input.workflow.workflowId,
      definition: input.workflow.definitionText,
      environment:
        'name' in input.workflow.environment
          ? input.workflow.environment.name
          : input.workflow.environment.id,
      source: input.source ?? null,
      status,
      input: inputText,
      timeoutAt: input.timeoutAt?.getTime() ?? null,
      idempotencyKey: input.idempotencyKey ?? null,
      workerId: claimed?.workerId ?? null,
      leaseExpiresAt: claimed ? at + claimed.leaseMs : null,
      advances: claimed ? 1 : 0,
      wakeAt: at,
      createdAt: at,
      startedAt: status === 'pending' ? null : at,
      traceParent: input.traceParent ?? null,
    };
    return this.#ctx.write(
      `start workflow ${JSON.stringify(input.workflow.workflowId)}`,
      async (db) => {
        const insert = directSelect(
          db,
          `workflowRuns.createFromWorkflow:${byName}`,
          CREATED_FROM_WORKFLOW,
          (d, fields) => createRunFromWorkflow(d, byName, fields),
        );
        const row = await runDirectFirst(this.#ctx.rows, insert, values);
        if (row === undefined) return undefined;
        // The run as written: what the statement copied from the workflow's row, read back;
        // the rest as given (reading it back would give the same).
        const date = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));
        const run: WorkflowRun = {
          id: row.id,
          workflowId: input.workflow.id,
          workflowKey: input.workflow.workflowId,
          workflowName: row.workflowName,
          environmentId: row.environmentId,
          definition: definitionOf(input.definition),
          status,
          source: values.source,
          input: inputText === null ? null : (JSON.parse(inputText) as unknown),
          output: null,
          error: null,
          currentStep: null,
          workerId: values.workerId,
          leaseExpiresAt: date(values.leaseExpiresAt),
          wakeAt: new Date(at),
          advances: values.advances,
          timeoutAt: date(values.timeoutAt),
          idempotencyKey: values.idempotencyKey,
          createdAt: new Date(at),
          startedAt: date(values.startedAt),
          completedAt: null,
          traceParent: values.traceParent,
        };
        return run;
      },
    );
  }

  /** The workflow run with this id, or undefined. */
  async get(id: number): Promise<WorkflowRun | undefined> {
    return this.#ctx.read('get workflow run', async (db) => {
      const [row] = await db.select().from(workflowRuns).where(eq(workflowRuns.id, id));
      return row;
    });
  }

  /** The run started with this idempotency key, or undefined. */
  async findByIdempotencyKey(key: string): Promise<WorkflowRun | undefined> {
    return this.#ctx.read('find workflow run by idempotency key', async (db) => {
      const [row] = await db
        .select()
        .from(workflowRuns)
        .where(eq(workflowRuns.idempotencyKey, key));
      return row;
    });
  }

  /** Workflow runs matching the filter, newest first. */
  async list(filter: WorkflowRunFilter = {}): Promise<WorkflowRun[]> {
    const { limit, offset } = resolvePage(filter);
    const where: SQL[] = [];
    if (filter.workflowId !== undefined) where.push(eq(workflowRuns.workflowId, filter.workflowId));
    if (filter.workflowKey !== undefined)
      where.push(eq(workflowRuns.workflowKey, filter.workflowKey));
    if (filter.environmentId !== undefined)
      where.push(eq(workflowRuns.environmentId, filter.environmentId));
    if (filter.status !== undefined) {
      const statuses = typeof filter.status === 'string' ? [filter.status] : [...filter.status];
      where.push(inArray(workflowRuns.status, statuses));
    }
    return this.#ctx.read('list workflow runs', (db) =>
      db
        .select()
        .from(workflowRuns)
        .where(and(...where))
        .orderBy(desc(workflowRuns.id))
        .limit(limit)
        .offset(offset),
    );
  }

  /**
   * Takes the run due longest for `workerId` until `leaseMs` from now: one that has not ended,
   * whose wake time has come (a run waiting only for a person has none), and that nobody holds
   * (or whose holder's lease ran out).
   * Undefined when none is due. Atomic: two workers never take the same run.
   */
  async claimNext(workerId: string, leaseMs: number): Promise<WorkflowRun | undefined> {
    const now = this.#ctx.now();
    return this.#ctx.write('claim a due workflow run', (db) =>
      prepared(db, 'workflowRuns.claimNext', claimNextRun).get({
        workerId,
        now: now.getTime(),
        leaseExpiresAt: now.getTime() + leaseMs,
      }),
    );
  }

  /** Extends the lease of a run this worker holds; false if it no longer holds it. */
  async renewLease(id: number, workerId: string, leaseMs: number): Promise<boolean> {
    const until = new Date(this.#ctx.now().getTime() + leaseMs);
    return this.#ctx.write('renew workflow run lease', async (db) => {
      const result = await db
        .update(workflowRuns)
        .set({ leaseExpiresAt: until })
        .where(held(id, workerId));
      return result.rowsAffected > 0;
    });
  }

  /**
   * The runs that have not ended held by a worker whose id starts with `prefix` (`host:`): the
   * ids and holders only, for a process looking for dead workers of its host.
   */
  async heldByPrefix(prefix: string): Promise<Array<{ id: number; workerId: string }>> {
    return this.#ctx.read('list held workflow runs', async (db) => {
      const rows = await db
        .select({ id: workflowRuns.id, workerId: workflowRuns.workerId })
        .from(workflowRuns)
        .where(
          and(
            inArray(workflowRuns.status, [...ACTIVE]),
            isNotNull(workflowRuns.workerId),
            sql`substr(${workflowRuns.workerId}, 1, ${prefix.length}) = ${prefix}`,
          ),
        );
      return rows as Array<{ id: number; workerId: string }>;
    });
  }

  /**
   * Ends the lease `workerId` holds on a run now (its process is known to be gone), so the next
   * claim anywhere takes the run over; false if that worker no longer holds it.
   */
  async expireLease(id: number, workerId: string): Promise<boolean> {
    const now = this.#ctx.now();
    return this.#ctx.write('expire workflow run lease', async (db) => {
      const result = await db
        .update(workflowRuns)
        .set({ leaseExpiresAt: now })
        .where(held(id, workerId));
      return result.rowsAffected > 0;
    });
  }

  /** Hands a run this worker holds back, waiting or due later; false if it no longer holds it. */
  async release(
    id: number,
    workerId: string,
    release: WorkflowRunRelease,
    steps?: WorkflowStepChanges,
  ): Promise<boolean> {
    const now = this.#ctx.now();
    return this.#ctx.write('release workflow run', async (db) => {
      const withStep = release.currentStep !== undefined;
      const update = directSelect(db, `workflowRuns.release:${withStep}`, {}, (d) =>
        d
          .update(workflowRuns)
          .set({
            status: slot('status') as unknown as WorkflowRunStatus,
            wakeAt: slot('wakeAt') as unknown as Date,
            workerId: null,
            leaseExpiresAt: null,
            ...(withStep ? { currentStep: slot('currentStep') as unknown as string } : {}),
          })
          .where(heldSlots()),
      );
      const values: Record<string, unknown> = {
        id,
        workerId,
        status: release.status,
        wakeAt: release.wakeAt?.getTime() ?? null,
        ...(withStep ? { currentStep: release.currentStep } : {}),
      };
      // The step records and the release: one transaction.
      const items = [...stepItems(db, id, steps, now), { select: update, values }];
      const results = await runWriteBatch(db, items);
      return (results.at(-1)?.rowsAffected ?? 0) > 0;
    });
  }

  /**
   * Ends a run this worker holds (`completed`, `failed`, `timed_out`); CONFLICT if it no longer
   * holds it (it was cancelled, or its lease ran out and another worker took it).
   */
  async finish(
    id: number,
    workerId: string,
    end: {
      status: WorkflowRunStatus;
      output?: unknown;
      error?: string | null;
      /** The step it ended at (the last one entered); the current one is kept when not given. */
      currentStep?: string | null;
    },
    steps?: WorkflowStepChanges,
    known?: Pick<WorkflowRun, 'definition'> | WorkflowRun,
  ): Promise<WorkflowRun> {
    const now = this.#ctx.now();
    // A caller holding the run's definition (it never changes) does not have it read back; the
    // worker holding the whole run has only what others may have changed meanwhile read back.
    const held = known !== undefined && 'id' in known && known.id === id ? known : undefined;
    return this.#ctx.write(`finish workflow run ${id}`, async (db) => {
      const heldUpdate = held
        ? directSelect(db, 'workflowRuns.finish:held', RUN_FIELDS_OTHERS_CHANGE, finishRun)
        : undefined;
      const update = heldUpdate
        ? undefined
        : known
          ? directSelect(db, 'workflowRuns.finish:known', RUN_FIELDS_BUT_DEFINITION, finishRun)
          : directSelect(db, 'workflowRuns.finish', RUN_FIELDS, finishRun);
      const output =
        end.output === undefined || end.output === null ? null : JSON.stringify(end.output);
      const values = {
        id,
        workerId,
        status: end.status,
        output,
        error: end.error ?? null,
        currentStep: end.currentStep ?? null,
        completedAt: now.getTime(),
      };
      // The step records and the end: one transaction. Records are kept even when the end is
      // refused (the run was cancelled meanwhile): they say what ran. A run that ends other
      // than completed (failed, timed out while waiting) withdraws its pending approvals first,
      // while it is still held: nobody can decide them any more.
      const withdraw =
        end.status === 'completed'
          ? []
          : [
              {
                select: directSelect(db, 'workflowRuns.finish:withdraw', {}, withdrawApprovals),
                values,
              },
            ];
      const items = [
        ...stepItems(db, id, steps, now),
        ...withdraw,
        { select: (heldUpdate ?? update)!, values },
      ];
      const results = await runWriteBatch(db, items);
      const ended = results.at(-1)?.rows ?? [];
      const [changed] = heldUpdate ? decodeRows(heldUpdate, ended) : [];
      if (held && changed) {
        // The run as held, with the end as written (as reading it back would give it).
        return {
          ...held,
          ...changed,
          status: end.status,
          output: output === null ? null : (JSON.parse(output) as unknown),
          error: values.error,
          completedAt: new Date(values.completedAt),
          workerId: null,
          leaseExpiresAt: null,
          wakeAt: null,
        };
      }
      const [row] = update ? decodeRows(update, ended) : [];
      if (row) return known ? withDefinition(row, known.definition) : (row as WorkflowRun);
      const [current] = await db.select().from(workflowRuns).where(eq(workflowRuns.id, id));
      if (!current) throw notFound('workflow run', id);
      throw new StoreError(
        'CONFLICT',
        `Workflow run ${id} is ${current.status} and not held by ${JSON.stringify(workerId)}; another party ended or took it.`,
        { workflowRunId: id, status: current.status, workerId: current.workerId },
      );
    });
  }

  /**
   * Makes a run due now (an approval was decided): a waiting run becomes `running` again so a
   * worker takes it. False if it has ended.
   */
  async wake(id: number): Promise<boolean> {
    const now = this.#ctx.now();
    return this.#ctx.write(`wake workflow run ${id}`, async (db) => {
      const result = await db
        .update(workflowRuns)
        .set({
          wakeAt: now,
          status: sql`CASE WHEN ${workflowRuns.status} = 'waiting_approval' THEN 'running' ELSE ${workflowRuns.status} END`,
        })
        .where(and(eq(workflowRuns.id, id), inArray(workflowRuns.status, [...ACTIVE])));
      return result.rowsAffected > 0;
    });
  }

  /**
   * Cancels a run that has not ended, whoever holds it (its worker's next write fails and it
   * stops), and withdraws its pending approvals (`cancelled`: nobody can decide them any more),
   * in one transaction; CONFLICT with the status when it has ended, NOT_FOUND when unknown.
   */
  async cancel(id: number, reason = 'cancelled'): Promise<WorkflowRun> {
    const now = this.#ctx.now();
    return this.#ctx.write(`cancel workflow run ${id}`, async (db) => {
      const active = and(eq(workflowRuns.id, id), inArray(workflowRuns.status, [...ACTIVE]));
      const [, cancelled] = await db.batch([
        // First, while the run is still active: a run that ended keeps its approvals as they are.
        db
          .update(approvals)
          .set({ status: 'cancelled', decidedAt: now })
          .where(
            and(
              eq(approvals.workflowRunId, id),
              eq(approvals.status, 'pending'),
              sql`exists (select 1 from ${workflowRuns} where ${active})`,
            ),
          ),
        db
          .update(workflowRuns)
          .set({
            status: 'cancelled',
            error: reason,
            completedAt: now,
            workerId: null,
            leaseExpiresAt: null,
            wakeAt: null,
          })
          .where(active)
          .returning(),
      ]);
      const [row] = cancelled;
      if (row) return row;
      const [current] = await db.select().from(workflowRuns).where(eq(workflowRuns.id, id));
      if (!current) throw notFound('workflow run', id, 'List runs with `junction workflow runs`.');
      throw new StoreError(
        'CONFLICT',
        `Workflow run ${id} already ended ${current.status}; only a run that has not ended can be cancelled.`,
        { workflowRunId: id, status: current.status },
      );
    });
  }

  /** Changes status, current step, output or error (tests and tools; workers use the above). */
  async update(id: number, patch: WorkflowRunPatch): Promise<WorkflowRun> {
    const now = this.#ctx.now();
    const fields: SQLiteUpdateSetSource<typeof workflowRuns> = {};
    if (patch.status !== undefined) fields.status = patch.status;
    if (patch.currentStep !== undefined) fields.currentStep = patch.currentStep;
    if (patch.output !== undefined) fields.output = patch.output;
    if (patch.error !== undefined) fields.error = patch.error;
    if (patch.status !== undefined && patch.status !== 'pending') {
      fields.startedAt = sql`COALESCE(${workflowRuns.startedAt}, ${now.getTime()})`;
    }
    if (patch.status !== undefined && WORKFLOW_RUN_ENDED.includes(patch.status)) {
      fields.completedAt = now;
    }
    return this.#ctx.write('update workflow run', async (db) => {
      const [row] = await db
        .update(workflowRuns)
        .set(fields)
        .where(eq(workflowRuns.id, id))
        .returning();
      if (!row) throw notFound('workflow run', id);
      return row;
    });
  }
}

/** A run a worker may take now. */
function claimable(now: Date): SQL {
  return and(
    inArray(workflowRuns.status, [...ACTIVE]),
    lte(workflowRuns.wakeAt, now),
    or(isNull(workflowRuns.workerId), lte(workflowRuns.leaseExpiresAt, now)),
  ) as SQL;
}

/** Takes the due run first in line (see `claimNext`); slots: workerId, now, leaseExpiresAt. */
function claimNextRun(db: LibSQLDatabase) {
  const now = slot('now') as unknown as Date;
  const due = db
    .select({ id: workflowRuns.id })
    .from(workflowRuns)
    .where(claimable(now))
    .orderBy(asc(workflowRuns.wakeAt), asc(workflowRuns.id))
    .limit(1);
  return db
    .update(workflowRuns)
    .set({
      workerId: slot('workerId') as unknown as string,
      leaseExpiresAt: slot('leaseExpiresAt') as unknown as Date,
      advances: sql`${workflowRuns.advances} + 1`,
      status: 'running',
      startedAt: sql`COALESCE(${workflowRuns.startedAt}, ${slot('now')})`,
    })
    .where(and(sql`${workflowRuns.id} = (${due})`, claimable(now)))
    .returning()
    .prepare();
}

/** The run, still active and held by this worker. */
function held(id: number, workerId: string): SQL {
  return and(
    eq(workflowRuns.id, id),
    eq(workflowRuns.workerId, workerId),
    inArray(workflowRuns.status, [...ACTIVE]),
  ) as SQL;
}

/** The statements of the last step records of an advance (none when there are none). */
function stepItems(
  db: LibSQLDatabase,
  id: number,
  steps: WorkflowStepChanges | undefined,
  now: Date,
): BatchItem[] {
  if (!steps || (steps.inserts.length === 0 && steps.updates.length === 0)) return [];
  return stepChangeItems(db, id, steps, now, false);
}

/** `held` with slots: the run `id`, still active and held by `workerId`. */
function heldSlots(): SQL {
  return and(
    eq(workflowRuns.id, slot('id') as unknown as number),
    eq(workflowRuns.workerId, slot('workerId') as unknown as string),
    inArray(workflowRuns.status, [...ACTIVE]),
  ) as SQL;
}

const CREATE_COLUMNS = [
  'workflowId',
  'workflowKey',
  'workflowName',
  'environmentId',
  'definition',
  'source',
  'status',
  'input',
  'timeoutAt',
  'idempotencyKey',
  'workerId',
  'leaseExpiresAt',
  'advances',
  'wakeAt',
  'createdAt',
  'startedAt',
  'traceParent',
] as const;

function createRun(db: LibSQLDatabase, fields: typeof RUN_FIELDS_BUT_DEFINITION) {
  return db
    .insert(workflowRuns)
    .values(
      Object.fromEntries(
        CREATE_COLUMNS.map((c) => [c, slot(c)]),
      ) as unknown as typeof workflowRuns.$inferInsert,
    )
    .onConflictDoNothing({ target: workflowRuns.idempotencyKey })
    .returning(fields);
}

/** What `createFromWorkflow` reads back: the run's id and what it copied from the workflow's row. */
const CREATED_FROM_WORKFLOW = {
  id: RUN_FIELDS.id,
  workflowName: RUN_FIELDS.workflowName,
  environmentId: RUN_FIELDS.environmentId,
};

/**
 * `createFromWorkflow`'s statement: INSERT … SELECT from the workflow's row (joined to its
 * environment when found by name), every column of the run in the table's order.
 */
function createRunFromWorkflow(
  db: LibSQLDatabase,
  byName: boolean,
  fields: typeof CREATED_FROM_WORKFLOW,
) {
  const from: Partial<Record<keyof typeof RUN_FIELDS, SQL>> = {
    workflowId: sql`${workflows.id}`,
    workflowKey: sql`${workflows.workflowId}`,
    workflowName: sql`${workflows.name}`,
    environmentId: sql`${workflows.environmentId}`,
    definition: sql`${workflows.definition}`,
  };
  for (const c of CREATE_COLUMNS) from[c] ??= slot(c);
  const columns = sql.join(
    (Object.keys(RUN_FIELDS) as Array<keyof typeof RUN_FIELDS>).map((c) => from[c] ?? sql`NULL`),
    sql`, `,
  );
  const where = and(
    eq(workflows.id, slot('workflowRowId') as unknown as number),
    eq(workflows.workflowId, slot('workflowKey') as unknown as string),
    sql`${workflows.enabled} = 1`,
    sql`${workflows.definition} = ${slot('definition')}`,
    byName
      ? eq(environments.name, slot('environment') as unknown as string)
      : eq(workflows.environmentId, slot('environment') as unknown as number),
  );
  // The WHERE clause also keeps SQLite from reading ON CONFLICT as a join's ON.
  const select = byName
    ? sql`select ${columns} from ${workflows} inner join ${environments} on ${environments.id} = ${workflows.environmentId} where ${where}`
    : sql`select ${columns} from ${workflows} where ${where}`;
  return db
    .insert(workflowRuns)
    .select(select)
    .onConflictDoNothing({ target: workflowRuns.idempotencyKey })
    .returning(fields);
}

/** A definition as a run record holds it (what reading it back would give: null for none). */
function definitionOf(value: unknown): WorkflowRun['definition'] {
  return (value ?? null) as WorkflowRun['definition'];
}

/**
 * A run read back without its definition, completed with the one the caller holds (as reading
 * it back would give it: null for none). The row is the statement's own, so it is completed in
 * place rather than copied.
 */
function withDefinition(row: Omit<WorkflowRun, 'definition'>, definition: unknown): WorkflowRun {
  const run = row as WorkflowRun;
  run.definition = definitionOf(definition);
  return run;
}

/** The pending approvals of run `id`, withdrawn (`cancelled`) while the run is held by `workerId`. */
function withdrawApprovals(db: LibSQLDatabase) {
  return db
    .update(approvals)
    .set({ status: 'cancelled', decidedAt: slot('completedAt') as unknown as Date })
    .where(
      and(
        eq(approvals.workflowRunId, slot('id') as unknown as number),
        eq(approvals.status, 'pending'),
        sql`exists (select 1 from ${workflowRuns} where ${heldSlots()})`,
      ),
    );
}

function finishRun(db: LibSQLDatabase, fields: Partial<typeof RUN_FIELDS>) {
  return db
    .update(workflowRuns)
    .set({
      status: slot('status') as unknown as WorkflowRunStatus,
      output: slot('output'),
      error: slot('error') as unknown as string,
      currentStep: sql`coalesce(${slot('currentStep')}, ${workflowRuns.currentStep})`,
      completedAt: slot('completedAt') as unknown as Date,
      workerId: null,
      leaseExpiresAt: null,
      wakeAt: null,
    })
    .where(heldSlots())
    .returning(fields);
}
