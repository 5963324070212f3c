// Deciding approvals, the one way every surface does it (the webhook port's URLs, REST, MCP,
// the CLI), and the signed links an approval.requested payload carries.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Approval, Store, WorkflowRun } from '@junction/store';
import { isStoreError, WORKFLOW_RUN_ENDED } from '@junction/store';
import { storedWorkflowOf } from './definition.js';
import { WorkflowError } from './errors.js';
import type { Graph, State } from './model.js';

export interface DecideDeps {
  store: Pick<Store, 'approvals' | 'workflowRuns' | 'auditLog'>;
  /** Told that the approval's run is due again, so a worker takes it at once. */
  due?: () => void;
  now?: () => Date;
}

export interface DecisionInput {
  decision: 'approved' | 'rejected';
  /** Who decides; checked against the approval's approvers when it lists any. */
  approver?: string;
  /** The approver's comment, or the reason of a rejection. */
  comment?: string;
  /** Where the decision came from, for the audit log: webhook, rest, mcp, cli. */
  source: string;
  /** True when a signed link authorised it (no key): the approver is taken as given. */
  viaToken?: boolean;
}

/** What a decision on an approval shows: the approval as decided, or as it already was. */
export function approvalView(approval: Approval): Record<string, unknown> {
  return {
    approval_id: approval.approvalId,
    workflow_run_id: approval.workflowRunId,
    step_name: approval.stepName,
    message: approval.message,
    approvers: approval.approvers,
    status: approval.status,
    timeout_seconds: approval.timeoutSeconds,
    decided_by: approval.decidedBy,
    comment: approval.comment,
    created_at: approval.createdAt.toISOString(),
    decided_at: approval.decidedAt?.toISOString() ?? null,
    expires_at: approval.expiresAt?.toISOString() ?? null,
  };
}

/** The approval, or APPROVAL_NOT_FOUND. */
export async function requireApproval(
  store: Pick<Store, 'approvals'>,
  approvalId: string,
): Promise<Approval> {
  const approval = await store.approvals.get(approvalId);
  if (!approval) {
    throw new WorkflowError(
      'APPROVAL_NOT_FOUND',
      `No approval has id "${approvalId}"; list pending ones with \`junction workflow approvals\`.`,
      { approval_id: approvalId },
    );
  }
  return approval;
}

/**
 * Whether `approver` may decide: anyone when the approval lists no approvers; otherwise one of
 * them, compared exactly but without regard to case (`alice`, `team:platform`).
 */
export function mayDecide(approval: Approval, approver: string | undefined): boolean {
  if (approval.approvers.length === 0) return true;
  if (approver === undefined) return false;
  const who = approver.trim().toLowerCase();
  return approval.approvers.some((a) => a.trim().toLowerCase() === who);
}

/**
 * Approves or rejects a pending approval once, and makes its run due: APPROVAL_NOT_FOUND (404),
 * APPROVAL_DECIDED with the first decision (409), APPROVAL_EXPIRED past its time (410),
 * APPROVAL_WITHDRAWN when its run was cancelled (409),
 * APPROVER_NOT_ALLOWED when approvers are listed and `approver` is none of them (403). Every
 * decision, and every refused one, is audited.
 */
export async function decideApproval(
  deps: DecideDeps,
  approvalId: string,
  input: DecisionInput,
): Promise<Approval> {
  const { store } = deps;
  const approval = await requireApproval(store, approvalId);
  const audit = (outcome: 'success' | 'denied', details: Record<string, unknown>): void => {
    void store.auditLog
      .record({
        actor: input.approver ?? null,
        source: input.source,
        action: input.decision === 'approved' ? 'approve_workflow_step' : 'reject_workflow_step',
        arguments: {
          approval_id: approvalId,
          ...(input.comment ? { comment: input.comment } : {}),
        },
        outcome,
        details: {
          workflow_run_id: approval.workflowRunId,
          via_token: input.viaToken ?? false,
          ...details,
        },
      })
      .catch(() => undefined);
  };
  if (approval.status === 'pending' && !mayDecide(approval, input.approver)) {
    audit('denied', { reason: 'approver not listed' });
    throw new WorkflowError(
      'APPROVER_NOT_ALLOWED',
      input.approver === undefined
        ? `Approval "${approvalId}" may be decided only by ${approval.approvers.join(', ')}; say who you are (approver).`
        : `"${input.approver}" may not decide approval "${approvalId}"; its approvers are ${approval.approvers.join(', ')}.`,
      { approval_id: approvalId, approvers: approval.approvers },
    );
  }
  try {
    const decided = await store.approvals.decide(approvalId, {
      decision: input.decision,
      decidedBy: input.approver ?? null,
      comment: input.comment ?? null,
    });
    audit('success', { status: decided.status });
    await store.workflowRuns.wake(decided.workflowRunId);
    deps.due?.();
    return decided;
  } catch (err) {
    if (!isStoreError(err, 'CONFLICT')) throw err;
    const current = await requireApproval(store, approvalId);
    audit('denied', { status: current.status });
    if (current.status === 'timed_out') {
      // Its run is due: the worker follows the step's timeout path.
      await store.workflowRuns.wake(current.workflowRunId);
      deps.due?.();
      throw new WorkflowError(
        'APPROVAL_EXPIRED',
        `Approval "${approvalId}" timed out at ${current.expiresAt?.toISOString() ?? current.decidedAt?.toISOString()}; it can no longer be decided.`,
        { approval: approvalView(current) },
      );
    }
    if (current.status === 'cancelled') {
      // Withdrawn when its run ended without it: cancelled, or failed or timed out meanwhile.
      const ended = (await store.workflowRuns.get(current.workflowRunId))?.status ?? 'cancelled';
      const how = ended === 'cancelled' ? 'was cancelled' : `ended ${ended}`;
      throw new WorkflowError(
        'APPROVAL_WITHDRAWN',
        `Approval "${approvalId}" was withdrawn: workflow run ${current.workflowRunId} ${how}${current.decidedAt ? ` at ${current.decidedAt.toISOString()}` : ''}, so there is nothing left to decide. Start a new run with \`junction workflow run\`.`,
        { approval: approvalView(current), workflow_run_id: current.workflowRunId },
      );
    }
    throw new WorkflowError(
      'APPROVAL_DECIDED',
      `Approval "${approvalId}" was already ${current.status}${current.decidedBy ? ` by ${current.decidedBy}` : ''}; it can be decided only once.`,
      { approval: approvalView(current) },
    );
  }
}

/** The states of a graph and of every block inside it (branches, iterators, try blocks). */
function* statesOf(graph: Graph): Generator<State> {
  for (const state of graph.states.values()) {
    yield state;
    if (state.type === 'parallel') for (const branch of state.branches) yield* statesOf(branch);
    else if (state.type === 'foreach') yield* statesOf(state.iterator);
    else if (state.type === 'try') {
      for (const block of [state.try, state.catch, state.finally]) {
        if (block !== undefined) yield* statesOf(block);
      }
    }
  }
}

/** The approval step called `stepName` in the run's definition, or undefined (none, or unreadable). */
function approvalStateOf(
  run: Pick<WorkflowRun, 'id' | 'definition' | 'workflowKey'>,
  stepName: string,
): Extract<State, { type: 'human_approval' }> | undefined {
  try {
    const model = storedWorkflowOf(run.definition, `workflow run ${run.id}`, run.workflowKey);
    for (const state of statesOf(model.graph)) {
      if (state.id === stepName && state.type === 'human_approval') return state;
    }
  } catch {
    // A definition that no longer parses: say what the engine does either way.
  }
  return undefined;
}

/**
 * What a decision makes the approval's workflow run do, in one sentence for whoever decided
 * (CLI, the approval page): it goes on; after a rejection, it goes on at the step's onRejected
 * or fails when the step has none.
 */
export function decisionOutcome(
  approval: Pick<Approval, 'status' | 'stepName' | 'workflowRunId'>,
  run: Pick<WorkflowRun, 'id' | 'status' | 'definition' | 'workflowKey'> | undefined,
): string {
  const which = `Workflow run ${approval.workflowRunId}`;
  if (run !== undefined && WORKFLOW_RUN_ENDED.includes(run.status)) {
    return `${which} has already ended ${run.status}.`;
  }
  if (approval.status !== 'rejected') return `${which} goes on.`;
  const found = run === undefined ? undefined : approvalStateOf(run, approval.stepName);
  if (found === undefined) {
    return `${which} goes on at the onRejected of step "${approval.stepName}", or fails if it has none.`;
  }
  const { onRejected } = found;
  return onRejected !== undefined
    ? `${which} goes on at step "${onRejected}" (the onRejected of step "${approval.stepName}").`
    : `${which} fails: step "${approval.stepName}" has no onRejected to go on at.`;
}

/** The key approval links are signed with: random, made once per store, kept in its settings. */
export async function approvalSigningKey(store: Pick<Store, 'settings'>): Promise<Buffer> {
  const existing = await store.settings.get('approvals.signing_key');
  if (typeof existing === 'string' && existing.length >= 32) return Buffer.from(existing, 'hex');
  const made = randomBytes(32).toString('hex');
  await store.settings.set('approvals.signing_key', made);
  // Two processes may make one at once: whichever was written last is the key.
  const kept = await store.settings.get('approvals.signing_key');
  return Buffer.from(typeof kept === 'string' ? kept : made, 'hex');
}

/** The token of one approval's links: valid for that approval only. */
export function approvalToken(key: Buffer, approvalId: string): string {
  return createHmac('sha256', key).update(`approval:${approvalId}`).digest('base64url');
}

/** True when `token` was signed for exactly this approval. */
export function verifyApprovalToken(key: Buffer, approvalId: string, token: string): boolean {
  const expected = Buffer.from(approvalToken(key, approvalId));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The view, approve and reject URLs of an approval on the webhook port's public address. */
export function approvalLinks(
  publicUrl: string,
  approvalId: string,
  token: string,
): { view_url: string; approve_url: string; reject_url: string } {
  const base = `${publicUrl.replace(/\/+$/, '')}/workflow-approvals/${encodeURIComponent(approvalId)}`;
  const query = `?token=${encodeURIComponent(token)}`;
  return {
    view_url: `${base}${query}`,
    approve_url: `${base}/approve${query}`,
    reject_url: `${base}/reject${query}`,
  };
}

/** The approval.requested payload of spec §2.3. */
export function approvalRequestedPayload(
  approval: Approval,
  run: Pick<WorkflowRun, 'id' | 'workflowKey' | 'workflowName'>,
  links: { view_url: string; approve_url: string; reject_url: string },
): Record<string, unknown> {
  return {
    event: 'approval.requested',
    approval_id: approval.approvalId,
    workflow_id: run.workflowKey,
    workflow_name: run.workflowName,
    run_id: String(run.id),
    step_name: approval.stepName,
    message: approval.message,
    approvers: approval.approvers,
    timeout_seconds: approval.timeoutSeconds ?? 0,
    created_at: approval.createdAt.toISOString(),
    approve_url: links.approve_url,
    reject_url: links.reject_url,
    view_url: links.view_url,
  };
}
