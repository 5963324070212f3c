// Human approval steps: approved, rejected, timed out (enforced: nothing decides it after),
// approvers, deciding twice, the signed links, and the audit trail of every decision.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import {
  approvalLinks,
  approvalSigningKey,
  approvalToken,
  decideApproval,
  verifyApprovalToken,
} from '../src/approvals.js';
import { startWorkflowRun } from '../src/index.js';
import { workflowTraceParent } from '../src/workflow-workers.js';
import { createHarness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

const flow = (extra = '', timeout = 600) => `id: gate
start: ask
states:
  - id: ask
    type: human_approval
    message: "Deploy {{ version }}?"
    approvers: [alice, team:platform]
    timeout_seconds: ${timeout}
    transition: deploy
${extra}
  - {id: deploy, type: inject, data: {deployed: true}, resultPath: result, end: true}
  - {id: skip, type: inject, data: {deployed: false}, resultPath: result, end: true}
`;

async function startAndWait(version = '1.2.3'): Promise<{ runId: number; approvalId: string }> {
  const { run } = await startWorkflowRun(
    { store: h.store, due: () => h.workers.due() },
    { workflow_id: 'gate', input: { version }, source: 'api' },
  );
  await h.waitFor(run.id, ['waiting_approval']);
  const [approval] = await h.store.approvals.list({ workflowRunId: run.id });
  return { runId: run.id, approvalId: approval!.approvalId };
}

const deps = () => ({ store: h.store, due: () => h.workers.due() });

describe('human approval', () => {
  it('creates the approval with the rendered message, hands it over once, and goes on when approved', async () => {
    h.workflow('gate.workflow.yaml', flow());
    await h.sync();
    const { runId, approvalId } = await startAndWait();
    expect(approvalId).toBe(`appr-${runId}-ask`);
    const approval = await h.store.approvals.get(approvalId);
    expect(approval).toMatchObject({
      message: 'Deploy 1.2.3?',
      approvers: ['alice', 'team:platform'],
      status: 'pending',
      timeoutSeconds: 600,
    });
    expect(approval?.notifiedAt).toBeInstanceOf(Date);
    expect(h.requested.map((a) => a.approvalId)).toEqual([approvalId]);
    // A waiting run holds no worker.
    expect((await h.store.workflowRuns.get(runId))?.workerId).toBeNull();

    await expect(
      decideApproval(deps(), approvalId, {
        decision: 'approved',
        approver: 'mallory',
        source: 'cli',
      }),
    ).rejects.toMatchObject({ code: 'APPROVER_NOT_ALLOWED' });
    await expect(
      decideApproval(deps(), approvalId, { decision: 'approved', source: 'cli' }),
    ).rejects.toMatchObject({
      code: 'APPROVER_NOT_ALLOWED',
    });
    const decided = await decideApproval(deps(), approvalId, {
      decision: 'approved',
      approver: 'Team:Platform',
      comment: 'go',
      source: 'rest',
    });
    expect(decided).toMatchObject({
      status: 'approved',
      decidedBy: 'Team:Platform',
      comment: 'go',
    });
    await expect(
      decideApproval(deps(), approvalId, {
        decision: 'rejected',
        approver: 'alice',
        source: 'cli',
      }),
    ).rejects.toMatchObject({
      code: 'APPROVAL_DECIDED',
      details: { approval: { status: 'approved', decided_by: 'Team:Platform' } },
    });
    const ended = await h.waitFor(runId);
    expect(ended).toMatchObject({ status: 'completed', output: { deployed: true } });
    // The advance before the approval and the one after it are in one trace (issue 19).
    const advances = h.tracing
      .memoryExporter!.getFinishedSpans()
      .filter(
        (span) => span.name === 'workflow.run' && span.attributes['workflow.run_id'] === runId,
      );
    expect(advances.length).toBeGreaterThanOrEqual(2);
    expect(new Set(advances.map((span) => span.spanContext().traceId)).size).toBe(1);
    expect(advances[0]!.spanContext().traceId).toBe(workflowTraceParent(ended).split('-')[1]);
    const steps = await h.store.workflowSteps.list(runId);
    expect(steps[0]).toMatchObject({
      stepName: 'ask',
      status: 'approved',
      output: { approved: true, approver: 'Team:Platform', comment: 'go' },
    });
    expect(h.requested).toHaveLength(1);
    await h.store.auditLog.flush();
    const audit = await h.store.auditLog.list({ action: 'approve_workflow_step' });
    expect(audit.map((a) => a.outcome).sort()).toEqual(['denied', 'denied', 'success']);
  });

  it('fails the run when rejected, or follows onRejected when the step names it', async () => {
    h.workflow('gate.workflow.yaml', flow());
    await h.sync();
    const first = await startAndWait();
    await decideApproval(deps(), first.approvalId, {
      decision: 'rejected',
      approver: 'alice',
      comment: 'not today',
      source: 'cli',
    });
    const failed = await h.waitFor(first.runId);
    expect(failed.status).toBe('failed');
    expect(failed.error).toContain('was rejected by alice: not today');

    h.workflow(
      'gate.workflow.yaml',
      flow().replace('transition: deploy', 'transition: deploy\n    onRejected: skip'),
    );
    await h.sync();
    const second = await startAndWait();
    await decideApproval(deps(), second.approvalId, {
      decision: 'rejected',
      approver: 'alice',
      source: 'cli',
    });
    expect(await h.waitFor(second.runId)).toMatchObject({
      status: 'completed',
      output: { deployed: false },
    });
  });

  it('times out: the run fails (or follows onTimeout) and nothing can approve it afterwards', async () => {
    h.workflow('gate.workflow.yaml', flow('', 1));
    await h.sync();
    const { runId, approvalId } = await startAndWait();
    // Woken by the approval's deadline, with no decision: the engine enforces the timeout.
    const ended = await h.waitFor(runId, undefined, 10_000);
    expect(ended.status).toBe('timed_out');
    expect(ended.error).toContain('not decided within 1 s');
    expect((await h.store.approvals.get(approvalId))?.status).toBe('timed_out');
    await h.store.auditLog.flush();
    expect(await h.store.auditLog.list({ action: 'approval_timed_out' })).toEqual([
      expect.objectContaining({ source: 'workflow', outcome: 'success' }),
    ]);
    await expect(
      decideApproval(deps(), approvalId, {
        decision: 'approved',
        approver: 'alice',
        source: 'cli',
      }),
    ).rejects.toMatchObject({
      code: 'APPROVAL_EXPIRED',
    });

    h.workflow(
      'gate.workflow.yaml',
      flow('', 1).replace('transition: deploy', 'transition: deploy\n    onTimeout: skip'),
    );
    await h.sync();
    const second = await startAndWait();
    expect(await h.waitFor(second.runId, undefined, 10_000)).toMatchObject({
      status: 'completed',
      output: { deployed: false },
    });
  });

  it('signs links for exactly one approval', async () => {
    const key = await approvalSigningKey(h.store);
    expect((await approvalSigningKey(h.store)).equals(key)).toBe(true);
    const token = approvalToken(key, 'appr-1-ask');
    expect(verifyApprovalToken(key, 'appr-1-ask', token)).toBe(true);
    expect(verifyApprovalToken(key, 'appr-2-ask', token)).toBe(false);
    expect(verifyApprovalToken(key, 'appr-1-ask', `${token}x`)).toBe(false);
    expect(approvalLinks('http://example.test:8587/', 'appr-1-ask', token)).toEqual({
      view_url: `http://example.test:8587/workflow-approvals/appr-1-ask?token=${token}`,
      approve_url: `http://example.test:8587/workflow-approvals/appr-1-ask/approve?token=${token}`,
      reject_url: `http://example.test:8587/workflow-approvals/appr-1-ask/reject?token=${token}`,
    });
  });
});
