import { and, asc, eq, getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { LibSQLDatabase } from 'drizzle-orm/libsql';
import type { SQLiteUpdateSetSource } from 'drizzle-orm/sqlite-core';
import type { WorkflowStep, WorkflowStepStatus } from '../rows.js';
import { workflowSteps } from '../schema.js';
import type { StoreContext } from '../store-context.js';
import { prepared, slot } from '../prepared.js';
import {
  decodeRows,
  directSelect,
  runWriteBatch,
  type BatchItem,
  type BatchResult,
} from '../direct-select.js';
import { isStoreError, notFound } from '../store-error.js';

export interface WorkflowStepStartInput {
  /** Where in the definition (see the schema); unique per run with the attempt. */
  path?: string;
  attempt?: number;
  stepName: string;
  type: string;
  input?: unknown;
  /** Default `running`, which stamps startedAt; `pending` leaves it empty. */
  status?: WorkflowStepStatus;
  output?: unknown;
  error?: string | null;
  wakeAt?: Date | null;
  approvalId?: string | null;
  /** The agent run the attempt started. */
  runId?: number | null;
  /** When it began, when not when it is written (an agent step's record waits for its run). */
  startedAt?: Date;
  /** When it ended, when not when it is written. */
  completedAt?: Date;
}

export interface WorkflowStepPatch {
  status?: WorkflowStepStatus;
  output?: unknown;
  error?: string | null;
  runId?: number | null;
  wakeAt?: Date | null;
  approvalId?: string | null;
  /** When it ended, when not when it is written (with an ended status). */
  completedAt?: Date;
}

export const WORKFLOW_STEP_ENDED: readonly WorkflowStepStatus[] = [
  'completed',
  'failed',
  'approved',
  'rejected',
  'timed_out',
  'skipped',
];

/** The steps of workflow runs: one row per attempt of a step at a place in the definition. */
export class WorkflowStepsRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /**
   * Records that an attempt of a step began (or, with an ended status, that it ran at once).
   * An attempt already recorded at that place is returned as it is, so a worker resuming a
   * run never records one twice. NOT_FOUND if the workflow run does not exist.
   */
  async start(workflowRunId: number, input: WorkflowStepStartInput): Promise<WorkflowStep> {
    const now = this.#ctx.now();
    const path = input.path ?? input.stepName;
    const attempt = input.attempt ?? 1;
    try {
      return await this.#ctx.write(`start workflow step ${JSON.stringify(path)}`, async (db) => {
        const [row] = await db
          .insert(workflowSteps)
          .values(insertValues(workflowRunId, input, now))
          .onConflictDoNothing({
            target: [workflowSteps.workflowRunId, workflowSteps.path, workflowSteps.attempt],
          })
          .returning();
        if (row) return row;
        const [existing] = await db
          .select()
          .from(workflowSteps)
          .where(
            and(
              eq(workflowSteps.workflowRunId, workflowRunId),
              eq(workflowSteps.path, path),
              eq(workflowSteps.attempt, attempt),
            ),
          );
        return existing as WorkflowStep;
      });
    } catch (err) {
      if (isStoreError(err, 'INVALID_REFERENCE')) throw notFound('workflow run', workflowRunId);
      throw err;
    }
  }

  /** Changes a step; moving to an ended status stamps completedAt. NOT_FOUND if unknown. */
  async update(id: number, patch: WorkflowStepPatch): Promise<WorkflowStep> {
    const fields = patchFields(patch, this.#ctx.now());
    return this.#ctx.write('update workflow step', async (db) => {
      const [row] = await db
        .update(workflowSteps)
        .set(fields)
        .where(eq(workflowSteps.id, id))
        .returning();
      if (!row) throw notFound('workflow step', id);
      return row;
    });
  }

  /**
   * Writes step attempts and changes in one transaction: the engine gathers the records of
   * steps that need nothing outside the run (and the ends of agent steps, which can be read
   * again from their runs) and writes them with its next durable step. Attempts already
   * recorded at their place are left as they are. Returns the attempts it inserted.
   */
  async apply(
    workflowRunId: number,
    changes: {
      inserts: WorkflowStepStartInput[];
      updates: Array<{ id: number; patch: WorkflowStepPatch }>;
    },
  ): Promise<WorkflowStep[]> {
    if (changes.inserts.length === 0 && changes.updates.length === 0) return [];
    const now = this.#ctx.now();
    return this.#ctx.write('record workflow steps', async (db) => {
      const items = stepChangeItems(db, workflowRunId, changes, now, true);
      return insertedSteps(items, await runWriteBatch(db, items));
    });
  }

  /** Every step attempt of a workflow run, in the order they began. */
  async list(workflowRunId: number): Promise<WorkflowStep[]> {
    return this.#ctx.read('list workflow steps', (db) =>
      prepared(db, 'workflowSteps.list', (d) =>
        d
          .select()
          .from(workflowSteps)
          .where(eq(workflowSteps.workflowRunId, slot('workflowRunId') as unknown as number))
          .orderBy(asc(workflowSteps.id))
          .prepare(),
      ).all({ workflowRunId }),
    );
  }
}

/** Step changes to write in one batch (see `apply`). */
export interface WorkflowStepChanges {
  inserts: WorkflowStepStartInput[];
  updates: Array<{ id: number; patch: WorkflowStepPatch }>;
}

const INSERT_COLUMNS = [
  'workflowRunId',
  'path',
  'attempt',
  'stepName',
  'type',
  'status',
  'input',
  'output',
  'error',
  'runId',
  'wakeAt',
  'approvalId',
  'startedAt',
  'completedAt',
] as const;
/** Rows per prepared insert; more are written in several. */
const INSERT_CHUNK = 16;

const STEP_FIELDS = getTableColumns(workflowSteps);

/** An insert of `count` attempts (skipping places already recorded), built once per count. */
function insertSteps(db: LibSQLDatabase, count: number, fields: Partial<typeof STEP_FIELDS>) {
  const insert = db
    .insert(workflowSteps)
    .values(
      Array.from(
        { length: count },
        (_, i) =>
          Object.fromEntries(
            INSERT_COLUMNS.map((c) => [c, slot(`${c}_${i}`)]),
          ) as unknown as typeof workflowSteps.$inferInsert,
      ),
    )
    .onConflictDoNothing({
      target: [workflowSteps.workflowRunId, workflowSteps.path, workflowSteps.attempt],
    });
  // The last records of an advance need no rows back.
  return Object.keys(fields).length > 0 ? insert.returning(fields) : insert;
}

/** A value of a step column as the driver stores it (dates as epoch ms, input/output as JSON). */
function stepDriverValue(column: string, value: unknown): unknown {
  if (value instanceof Date) return value.getTime();
  if ((column === 'input' || column === 'output') && value !== null && value !== undefined) {
    return JSON.stringify(value);
  }
  return value ?? null;
}

/**
 * The statements that write `changes` (updates first, then the inserts in as few statements as
 * their number allows), for a write batch (`runWriteBatch`) that may end with the run's own
 * change: all of it one transaction. With `returning`, the inserts answer their rows
 * (`insertedSteps`).
 */
export function stepChangeItems(
  db: LibSQLDatabase,
  workflowRunId: number,
  changes: WorkflowStepChanges,
  now: Date,
  returning: boolean,
): BatchItem[] {
  const items: BatchItem[] = [];
  for (const { id, patch } of changes.updates) {
    // Built once per set of changed columns (an agent step's end is always the same one).
    const fields = patchFields(patch, now) as Record<string, unknown>;
    const columns = Object.keys(fields).sort();
    const select = directSelect(db, `workflowSteps.update:${columns.join(',')}`, {}, (d) =>
      d
        .update(workflowSteps)
        .set(Object.fromEntries(columns.map((c) => [c, slot(c)])))
        .where(eq(workflowSteps.id, slot('id') as unknown as number)),
    );
    const values: Record<string, unknown> = { id };
    for (const column of columns) values[column] = stepDriverValue(column, fields[column]);
    items.push({ select, values });
  }
  const nowMs = now.getTime();
  if (changes.inserts.length === 0) return items;
  // Usually one statement over the rows as one JSON parameter: the rows are read by SQLite
  // rather than bound one value at a time (14 per row, each found, converted and bound).
  const rows = insertRowsJson(changes.inserts, nowMs);
  if (rows !== undefined) {
    const select = directSelect(
      db,
      `workflowSteps.insertJson:${returning}`,
      returning ? STEP_FIELDS : {},
      insertStepsFromJson,
    );
    items.push({ select, values: { workflowRunId, rows } });
    return items;
  }
  for (let start = 0; start < changes.inserts.length; start += INSERT_CHUNK) {
    const chunk = changes.inserts.slice(start, start + INSERT_CHUNK);
    const values: Record<string, unknown> = {};
    for (let i = 0; i < chunk.length; i++) {
      insertSlots(values, INSERT_SLOTS[i] as readonly string[], workflowRunId, chunk[i]!, nowMs);
    }
    const select = directSelect(
      db,
      `workflowSteps.insert:${chunk.length}:${returning}`,
      returning ? STEP_FIELDS : {},
      (d, fields) => insertSteps(d, chunk.length, fields),
    );
    items.push({ select, values });
  }
  return items;
}

/** The columns of a row of `insertRowsJson`, in order (the run's id is a parameter of its own). */
const JSON_ROW_COLUMNS = INSERT_COLUMNS.slice(1);

/**
 * In JSON.stringify's text, an escape of a NUL or of half a surrogate pair that stood in a
 * text value itself (JSON.stringify escapes both): preceded by an even run of backslashes, so
 * not the text of an escape inside input or output, which are JSON text themselves.
 */
const UNSAFE_ESCAPE = /(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f])/i;

/**
 * The rows of `inserts` as a JSON array of arrays of driver values (JSON_ROW_COLUMNS order,
 * input and output as their JSON text), or undefined when a value would not come out of
 * SQLite's JSON exactly as it goes in when bound (text with a NUL or a lone surrogate, a
 * number that is not finite, anything but text, numbers and null): those rows are bound
 * value by value instead.
 */
function insertRowsJson(
  inserts: readonly WorkflowStepStartInput[],
  nowMs: number,
): string | undefined {
  const rows: unknown[][] = new Array(inserts.length);
  for (let r = 0; r < inserts.length; r++) {
    const input = inserts[r]!;
    const status = input.status ?? 'running';
    const row = [
      stepDriverValue('path', input.path ?? input.stepName),
      stepDriverValue('attempt', input.attempt ?? 1),
      stepDriverValue('stepName', input.stepName),
      stepDriverValue('type', input.type),
      status,
      stepDriverValue('input', input.input),
      stepDriverValue('output', input.output),
      stepDriverValue('error', input.error),
      stepDriverValue('runId', input.runId),
      stepDriverValue('wakeAt', input.wakeAt),
      stepDriverValue('approvalId', input.approvalId),
      ...stepTimes(input, status, nowMs),
    ];
    for (const value of row) {
      if (value !== null && typeof value !== 'string' && !Number.isFinite(value)) return undefined;
    }
    rows[r] = row;
  }
  const text = JSON.stringify(rows);
  return UNSAFE_ESCAPE.test(text) ? undefined : text;
}

/**
 * An insert of the attempts in a JSON array (`insertRowsJson`, the `rows` slot) for the run in
 * the `workflowRunId` slot, in the array's order, skipping places already recorded.
 */
function insertStepsFromJson(db: LibSQLDatabase, fields: Partial<typeof STEP_FIELDS>) {
  const from: Record<string, SQL> = { workflowRunId: slot('workflowRunId') };
  JSON_ROW_COLUMNS.forEach((column, i) => {
    from[column] = sql.raw(`"value" ->> ${i}`);
  });
  const columns = sql.join(
    Object.keys(STEP_FIELDS).map((c) => from[c] ?? sql`NULL`),
    sql`, `,
  );
  // The WHERE clause keeps SQLite from reading ON CONFLICT as part of the SELECT.
  const insert = db
    .insert(workflowSteps)
    .select(sql`select ${columns} from json_each(${slot('rows')}) where true order by "key"`)
    .onConflictDoNothing({
      target: [workflowSteps.workflowRunId, workflowSteps.path, workflowSteps.attempt],
    });
  return Object.keys(fields).length > 0 ? insert.returning(fields) : insert;
}

/** The slot names of each row of a prepared insert, in INSERT_COLUMNS order (`path_3`). */
const INSERT_SLOTS: readonly (readonly string[])[] = Array.from({ length: INSERT_CHUNK }, (_, i) =>
  INSERT_COLUMNS.map((c) => `${c}_${i}`),
);

/**
 * The driver values of one attempt's row, under `slots` (`insertValues` then `stepDriverValue`,
 * without the row in between: the last records of every advance go through here).
 */
function insertSlots(
  values: Record<string, unknown>,
  slots: readonly string[],
  workflowRunId: number,
  input: WorkflowStepStartInput,
  nowMs: number,
): void {
  const status = input.status ?? 'running';
  values[slots[0]!] = workflowRunId;
  values[slots[1]!] = stepDriverValue('path', input.path ?? input.stepName);
  values[slots[2]!] = stepDriverValue('attempt', input.attempt ?? 1);
  values[slots[3]!] = stepDriverValue('stepName', input.stepName);
  values[slots[4]!] = stepDriverValue('type', input.type);
  values[slots[5]!] = status;
  values[slots[6]!] = stepDriverValue('input', input.input);
  values[slots[7]!] = stepDriverValue('output', input.output);
  values[slots[8]!] = stepDriverValue('error', input.error);
  values[slots[9]!] = stepDriverValue('runId', input.runId);
  values[slots[10]!] = stepDriverValue('wakeAt', input.wakeAt);
  values[slots[11]!] = stepDriverValue('approvalId', input.approvalId);
  [values[slots[12]!], values[slots[13]!]] = stepTimes(input, status, nowMs);
}

/** An attempt's start and end as written: given, or the time of writing (none while pending). */
function stepTimes(
  input: WorkflowStepStartInput,
  status: WorkflowStepStatus,
  nowMs: number,
): [number | null, number | null] {
  return [
    status === 'pending' ? null : (input.startedAt?.getTime() ?? nowMs),
    WORKFLOW_STEP_ENDED.includes(status) ? (input.completedAt?.getTime() ?? nowMs) : null,
  ];
}

/** The attempts the inserts among `items` wrote (with `returning`), from the batch's results. */
export function insertedSteps(
  items: readonly BatchItem[],
  results: readonly BatchResult[],
): WorkflowStep[] {
  const inserted: WorkflowStep[] = [];
  items.forEach((item, i) => {
    if (item.select.keys.length > 0) {
      inserted.push(...(decodeRows(item.select, results[i]?.rows ?? []) as WorkflowStep[]));
    }
  });
  return inserted;
}

function insertValues(workflowRunId: number, input: WorkflowStepStartInput, now: Date) {
  const status = input.status ?? 'running';
  return {
    workflowRunId,
    path: input.path ?? input.stepName,
    attempt: input.attempt ?? 1,
    stepName: input.stepName,
    type: input.type,
    status,
    input: input.input ?? null,
    output: input.output ?? null,
    error: input.error ?? null,
    runId: input.runId ?? null,
    wakeAt: input.wakeAt ?? null,
    approvalId: input.approvalId ?? null,
    startedAt: status === 'pending' ? null : (input.startedAt ?? now),
    completedAt: WORKFLOW_STEP_ENDED.includes(status) ? (input.completedAt ?? now) : null,
  };
}

function patchFields(
  patch: WorkflowStepPatch,
  now: Date,
): SQLiteUpdateSetSource<typeof workflowSteps> {
  const fields: SQLiteUpdateSetSource<typeof workflowSteps> = {};
  if (patch.status !== undefined) fields.status = patch.status;
  if (patch.output !== undefined) fields.output = patch.output;
  if (patch.error !== undefined) fields.error = patch.error;
  if (patch.runId !== undefined) fields.runId = patch.runId;
  if (patch.wakeAt !== undefined) fields.wakeAt = patch.wakeAt;
  if (patch.approvalId !== undefined) fields.approvalId = patch.approvalId;
  if (patch.status !== undefined && WORKFLOW_STEP_ENDED.includes(patch.status)) {
    fields.completedAt = patch.completedAt ?? now;
  }
  return fields;
}
