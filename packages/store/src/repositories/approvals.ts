import { and, desc, eq, gt, isNotNull, isNull, lte, or, type SQL } from 'drizzle-orm';
import type { Approval, ApprovalStatus } from '../rows.js';
import { approvals } from '../schema.js';
import type { StoreContext } from '../store-context.js';
import { isStoreError, notFound, StoreError } from '../store-error.js';
import { resolvePage, type Page } from '../paging.js';

export interface ApprovalCreateInput {
  /** Public id used in approval URLs, e.g. `appr-<runId>-<stepId>`. */
  approvalId: string;
  workflowRunId: number;
  stepName: string;
  /** The step's place in the definition (see workflow_steps.path). */
  stepPath?: string | null;
  message?: string;
  approvers?: string[];
  /** When set and expiresAt is not, the approval expires this many seconds after creation. */
  timeoutSeconds?: number | null;
  expiresAt?: Date | null;
}

export interface ApprovalDecision {
  decision: 'approved' | 'rejected';
  decidedBy?: string | null;
  comment?: string | null;
}

export interface ApprovalFilter extends Page {
  status?: ApprovalStatus;
  workflowRunId?: number;
}

/** Human approval requests raised by workflow steps: pending → approved | rejected | timed_out. */
export class ApprovalsRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /** Records a pending approval; CONFLICT if the approvalId exists, NOT_FOUND if the workflow run does not. */
  async create(input: ApprovalCreateInput): Promise<Approval> {
    const now = this.#ctx.now();
    const timeoutSeconds = input.timeoutSeconds ?? null;
    const expiresAt =
      input.expiresAt !== undefined
        ? input.expiresAt
        : timeoutSeconds === null
          ? null
          : new Date(now.getTime() + timeoutSeconds * 1000);
    try {
      return await this.#ctx.write(
        `create approval ${JSON.stringify(input.approvalId)}`,
        async (db) => {
          const [row] = await db
            .insert(approvals)
            .values({
              approvalId: input.approvalId,
              workflowRunId: input.workflowRunId,
              stepName: input.stepName,
              stepPath: input.stepPath ?? null,
              message: input.message ?? '',
              approvers: input.approvers ?? [],
              status: 'pending',
              timeoutSeconds,
              createdAt: now,
              expiresAt,
            })
            .returning();
          return row as Approval;
        },
      );
    } catch (err) {
      if (isStoreError(err, 'INVALID_REFERENCE'))
        throw notFound('workflow run', input.workflowRunId);
      throw err;
    }
  }

  /** The approval with this approvalId, or undefined. */
  async get(approvalId: string): Promise<Approval | undefined> {
    return this.#ctx.read('get approval', async (db) => {
      const [row] = await db.select().from(approvals).where(eq(approvals.approvalId, approvalId));
      return row;
    });
  }

  /** Approvals matching the filter, newest first. */
  async list(filter: ApprovalFilter = {}): Promise<Approval[]> {
    const { limit, offset } = resolvePage(filter);
    const where: SQL[] = [];
    if (filter.status !== undefined) where.push(eq(approvals.status, filter.status));
    if (filter.workflowRunId !== undefined)
      where.push(eq(approvals.workflowRunId, filter.workflowRunId));
    return this.#ctx.read('list approvals', (db) =>
      db
        .select()
        .from(approvals)
        .where(and(...where))
        .orderBy(desc(approvals.id))
        .limit(limit)
        .offset(offset),
    );
  }

  /**
   * Approves or rejects a pending approval, once: NOT_FOUND if unknown, CONFLICT if it was already
   * decided or has expired (an expired one is marked `timed_out` on the way).
   */
  async decide(approvalId: string, decision: ApprovalDecision): Promise<Approval> {
    const now = this.#ctx.now();
    return this.#ctx.write(`decide approval ${JSON.stringify(approvalId)}`, async (db) => {
      const [row] = await db
        .update(approvals)
        .set({
          status: decision.decision,
          decidedBy: decision.decidedBy ?? null,
          comment: decision.comment ?? null,
          decidedAt: now,
        })
        .where(
          and(
            eq(approvals.approvalId, approvalId),
            eq(approvals.status, 'pending'),
            notExpired(now),
          ),
        )
        .returning();
      if (row) return row;
      const [current] = await db
        .select()
        .from(approvals)
        .where(eq(approvals.approvalId, approvalId));
      if (!current) throw notFound('approval', approvalId);
      let status = current.status;
      if (status === 'pending') {
        await db
          .update(approvals)
          .set({ status: 'timed_out', decidedAt: now })
          .where(and(eq(approvals.id, current.id), eq(approvals.status, 'pending')));
        status = 'timed_out';
      }
      throw new StoreError(
        'CONFLICT',
        `Approval ${JSON.stringify(approvalId)} is already ${status}; it can be decided only once, while pending.`,
        { approvalId, status },
      );
    });
  }

  /** Records that the approval.requested webhook was handed over for delivery. */
  async markNotified(approvalId: string): Promise<void> {
    const now = this.#ctx.now();
    await this.#ctx.write(`mark approval ${JSON.stringify(approvalId)} notified`, (db) =>
      db.update(approvals).set({ notifiedAt: now }).where(eq(approvals.approvalId, approvalId)),
    );
  }

  /** Marks pending approvals whose expiresAt has passed as `timed_out`; returns them. */
  async expireDue(now: Date = this.#ctx.now()): Promise<Approval[]> {
    return this.#ctx.write('expire approvals', (db) =>
      db
        .update(approvals)
        .set({ status: 'timed_out', decidedAt: now })
        .where(
          and(
            eq(approvals.status, 'pending'),
            isNotNull(approvals.expiresAt),
            lte(approvals.expiresAt, now),
          ),
        )
        .returning(),
    );
  }
}

// A pending approval past its expiresAt can no longer be decided, even before the sweeper runs.
function notExpired(now: Date): SQL | undefined {
  return or(isNull(approvals.expiresAt), gt(approvals.expiresAt, now));
}
