import { asc, eq } from 'drizzle-orm';
import type { WorkflowStep, WorkflowStepStatus } from '../rows.js';
import { workflowSteps } from '../schema.js';
import type { StoreContext } from '../store-context.js';
import { isStoreError, notFound } from '../store-error.js';

export interface WorkflowStepStartInput {
  stepName: string;
  type: string;
  input?: unknown;
  /** Default `running`, which stamps startedAt; `pending` leaves it empty. */
  status?: WorkflowStepStatus;
}

export interface WorkflowStepPatch {
  status?: WorkflowStepStatus;
  output?: unknown;
  error?: string | null;
}

const ENDED: readonly WorkflowStepStatus[] = ['completed', 'error', 'skipped'];

/** The steps of workflow runs, one row per execution of a step. */
export class WorkflowStepsRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /** Records that a step began; NOT_FOUND if the workflow run does not exist. */
  async start(workflowRunId: number, input: WorkflowStepStartInput): Promise<WorkflowStep> {
    const now = this.#ctx.now();
    const status = input.status ?? 'running';
    try {
      return await this.#ctx.write(
        `start workflow step ${JSON.stringify(input.stepName)}`,
        async (db) => {
          const [row] = await db
            .insert(workflowSteps)
            .values({
              workflowRunId,
              stepName: input.stepName,
              type: input.type,
              status,
              input: input.input ?? null,
              startedAt: status === 'pending' ? null : now,
            })
            .returning();
          return row as WorkflowStep;
        },
      );
    } catch (err) {
      if (isStoreError(err, 'INVALID_REFERENCE')) throw notFound('workflow run', workflowRunId);
      throw err;
    }
  }

  /** Changes status, output or error; ending statuses stamp completedAt. */
  async update(id: number, patch: WorkflowStepPatch): Promise<WorkflowStep> {
    const now = this.#ctx.now();
    const fields: Partial<typeof workflowSteps.$inferInsert> = {};
    if (patch.status !== undefined) fields.status = patch.status;
    if (patch.output !== undefined) fields.output = patch.output;
    if (patch.error !== undefined) fields.error = patch.error;
    if (patch.status !== undefined && ENDED.includes(patch.status)) fields.completedAt = now;
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

  /** The step with this id, or undefined. */
  async get(id: number): Promise<WorkflowStep | undefined> {
    return this.#ctx.read('get workflow step', async (db) => {
      const [row] = await db.select().from(workflowSteps).where(eq(workflowSteps.id, id));
      return row;
    });
  }

  /** The steps of a workflow run in the order they started. */
  async list(workflowRunId: number): Promise<WorkflowStep[]> {
    return this.#ctx.read('list workflow steps', (db) =>
      db
        .select()
        .from(workflowSteps)
        .where(eq(workflowSteps.workflowRunId, workflowRunId))
        .orderBy(asc(workflowSteps.id)),
    );
  }
}
