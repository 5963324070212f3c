import { and, asc, eq, notInArray, type SQL } from 'drizzle-orm';
import type { Workflow } from '../rows.js';
import { environments, workflows } from '../schema.js';
import type { StoreContext } from '../store-context.js';
import { prepared, slot } from '../prepared.js';
import { notFound } from '../store-error.js';

/** A workflow definition as loaded from `workflows/<id>.workflow.yaml`. */
export interface WorkflowInput {
  /** The workflow's own id (the file's), unique per environment. */
  workflowId: string;
  name: string;
  definition: Record<string, unknown>;
  path?: string | null;
  enabled?: boolean;
}

export interface WorkflowFilter {
  environmentId?: number;
  enabled?: boolean;
}

/** Workflow definitions per environment. */
export class WorkflowsRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /** Creates or updates the workflow with this workflowId in the environment; the row id stays stable. */
  async upsert(environmentId: number, input: WorkflowInput): Promise<Workflow> {
    const now = this.#ctx.now();
    const values = {
      name: input.name,
      definition: input.definition,
      path: input.path ?? null,
      enabled: input.enabled ?? true,
      updatedAt: now,
    };
    return this.#ctx.write(`save workflow ${JSON.stringify(input.workflowId)}`, async (db) => {
      const [row] = await db
        .insert(workflows)
        .values({ environmentId, workflowId: input.workflowId, createdAt: now, ...values })
        .onConflictDoUpdate({
          target: [workflows.environmentId, workflows.workflowId],
          set: values,
        })
        .returning();
      return row as Workflow;
    });
  }

  /** The workflow with this row id, or undefined. */
  async get(id: number): Promise<Workflow | undefined> {
    return this.#ctx.read('get workflow', async (db) => {
      const [row] = await db.select().from(workflows).where(eq(workflows.id, id));
      return row;
    });
  }

  /** The workflow with this workflowId in the environment, or undefined. */
  async getByWorkflowId(environmentId: number, workflowId: string): Promise<Workflow | undefined> {
    return this.#ctx.read('get workflow by workflow id', (db) =>
      prepared(db, 'workflows.getByWorkflowId', (d) =>
        d
          .select()
          .from(workflows)
          .where(
            and(
              eq(workflows.environmentId, slot('environmentId') as unknown as number),
              eq(workflows.workflowId, slot('workflowId') as unknown as string),
            ),
          )
          .prepare(),
      ).get({ environmentId, workflowId }),
    );
  }

  /** The workflow with this workflowId in the environment of this name (one read), or undefined. */
  async getByWorkflowIdIn(
    environmentName: string,
    workflowId: string,
  ): Promise<Workflow | undefined> {
    return this.#ctx.read('get workflow by workflow id and environment name', async (db) => {
      const statement = prepared(db, 'workflows.getByWorkflowIdIn', (d) =>
        d
          .select({ workflow: workflows })
          .from(workflows)
          .innerJoin(environments, eq(environments.id, workflows.environmentId))
          .where(
            and(
              eq(environments.name, slot('environmentName') as unknown as string),
              eq(workflows.workflowId, slot('workflowId') as unknown as string),
            ),
          )
          .prepare(),
      );
      return (await statement.get({ environmentName, workflowId }))?.workflow;
    });
  }

  /** Workflows matching the filter, by environment then workflowId. */
  async list(filter: WorkflowFilter = {}): Promise<Workflow[]> {
    const where: SQL[] = [];
    if (filter.environmentId !== undefined)
      where.push(eq(workflows.environmentId, filter.environmentId));
    if (filter.enabled !== undefined) where.push(eq(workflows.enabled, filter.enabled));
    return this.#ctx.read('list workflows', (db) =>
      db
        .select()
        .from(workflows)
        .where(and(...where))
        .orderBy(asc(workflows.environmentId), asc(workflows.workflowId)),
    );
  }

  /** Turns a workflow on or off; NOT_FOUND if the id is unknown. */
  async setEnabled(id: number, enabled: boolean): Promise<Workflow> {
    const now = this.#ctx.now();
    return this.#ctx.write('enable or disable workflow', async (db) => {
      const [row] = await db
        .update(workflows)
        .set({ enabled, updatedAt: now })
        .where(eq(workflows.id, id))
        .returning();
      if (!row) throw notFound('workflow', id);
      return row;
    });
  }

  /** Deletes the workflow; its past runs stay, detached. */
  async delete(id: number): Promise<boolean> {
    return this.#ctx.write('delete workflow', async (db) => {
      const result = await db.delete(workflows).where(eq(workflows.id, id));
      return result.rowsAffected > 0;
    });
  }

  /** Deletes the environment's workflows whose workflowIds are not in `keep` (files gone). */
  async deleteExcept(environmentId: number, keep: readonly string[]): Promise<number> {
    return this.#ctx.write('delete stale workflows', async (db) => {
      const result = await db
        .delete(workflows)
        .where(
          and(
            eq(workflows.environmentId, environmentId),
            notInArray(workflows.workflowId, [...keep]),
          ),
        );
      return result.rowsAffected;
    });
  }
}
