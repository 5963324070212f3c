import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { SQLiteUpdateSetSource } from 'drizzle-orm/sqlite-core';
import type { WorkflowRun, WorkflowRunStatus } from '../rows.js';
import { workflowRuns } from '../schema.js';
import type { StoreContext } from '../store-context.js';
import { notFound } from '../store-error.js';
import { resolvePage, type Page } from '../paging.js';

export interface WorkflowRunCreateInput {
  /** Row id of the workflow; the key and name are copied so history survives the definition. */
  workflowId?: number | null;
  workflowKey: string;
  workflowName: string;
  input?: unknown;
  status?: WorkflowRunStatus;
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
  status?: WorkflowRunStatus;
}

const ENDED: readonly WorkflowRunStatus[] = ['completed', 'error', 'cancelled'];

/** Executions of workflows. */
export class WorkflowRunsRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /** Records a new workflow run (default status `queued`; `running` also stamps startedAt). */
  async create(input: WorkflowRunCreateInput): Promise<WorkflowRun> {
    const now = this.#ctx.now();
    const status = input.status ?? 'queued';
    return this.#ctx.write(`start workflow ${JSON.stringify(input.workflowKey)}`, async (db) => {
      const [row] = await db
        .insert(workflowRuns)
        .values({
          workflowId: input.workflowId ?? null,
          workflowKey: input.workflowKey,
          workflowName: input.workflowName,
          status,
          input: input.input ?? null,
          createdAt: now,
          startedAt: status === 'queued' ? null : now,
        })
        .returning();
      return row as WorkflowRun;
    });
  }

  /** The workflow run with this id, or undefined. */
  async get(id: number): Promise<WorkflowRun | undefined> {
    return this.#ctx.read('get workflow run', async (db) => {
      const [row] = await db.select().from(workflowRuns).where(eq(workflowRuns.id, id));
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
    if (filter.status !== undefined) where.push(eq(workflowRuns.status, filter.status));
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
   * Changes status, current step, output or error. Moving to `running` stamps startedAt once;
   * moving to completed / error / cancelled stamps completedAt.
   */
  async update(id: number, patch: WorkflowRunPatch): Promise<WorkflowRun> {
    const now = this.#ctx.now();
    const fields: SQLiteUpdateSetSource<typeof workflowRuns> = {};
    if (patch.status !== undefined) fields.status = patch.status;
    if (patch.currentStep !== undefined) fields.currentStep = patch.currentStep;
    if (patch.output !== undefined) fields.output = patch.output;
    if (patch.error !== undefined) fields.error = patch.error;
    if (patch.status !== undefined && patch.status !== 'queued') {
      fields.startedAt = sql`COALESCE(${workflowRuns.startedAt}, ${now.getTime()})`;
    }
    if (patch.status !== undefined && ENDED.includes(patch.status)) fields.completedAt = now;
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
