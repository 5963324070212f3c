// Cancelling a workflow run left its approval `pending`, and approving it afterwards answered
// that the run "goes on" while it stayed cancelled (issue 31). Cancel withdraws the approval
// (`cancelled`); deciding it is refused with APPROVAL_WITHDRAWN, whatever the decision.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createWorkflowDoor, type WorkflowDoor } from '../src/index.js';
import { createHarness, type Harness } from './harness.js';
import { eventually } from '@junction/tooling/fixtures/eventually.mjs';

let h: Harness;
let door: WorkflowDoor;
beforeEach(async () => {
  h = await createHarness();
  door = createWorkflowDoor({
    store: h.store,
    publicUrl: 'http://127.0.0.1:8587',
    due: () => h.workers.due(),
    cancelRun: (runId, options) => h.door.cancel(runId, options),
  });
  h.workflow(
    'gate.workflow.yaml',
    `id: gate
start: ask
states:
  - {id: ask, type: human_approval, message: "Ship it?", transition: done}
  - {id: done, type: inject, data: {shipped: true}, end: true}
`,
  );
  await h.sync();
});
afterEach(async () => {
  await h.close();
});

describe('a cancelled workflow run', () => {
  it('withdraws its pending approval, and refuses any decision on it after', async () => {
    const { run } = await door.start({ workflow_id: 'gate', source: 'api' });
    await h.waitFor(run.id, ['waiting_approval']);
    const [pending] = await h.store.approvals.list({ workflowRunId: run.id });
    expect(pending?.status).toBe('pending');

    await door.cancel(run.id, { source: 'cli' });
    const withdrawn = await h.store.approvals.get(pending!.approvalId);
    expect(withdrawn).toMatchObject({ status: 'cancelled' });
    expect(await h.store.approvals.list({ status: 'pending' })).toHaveLength(0);

    for (const decision of ['approved', 'rejected'] as const) {
      await expect(
        door.decide(pending!.approvalId, { decision, approver: 'alice', source: 'rest' }),
      ).rejects.toMatchObject({
        code: 'APPROVAL_WITHDRAWN',
        message: expect.stringContaining(`workflow run ${run.id} was cancelled`),
        details: { approval: { status: 'cancelled' }, workflow_run_id: run.id },
      });
    }
    expect((await h.store.workflowRuns.get(run.id))?.status).toBe('cancelled');
    expect((await h.store.approvals.get(pending!.approvalId))?.status).toBe('cancelled');
  });

  it('a run that times out while waiting withdraws its approval too', async () => {
    h.workflow(
      'brief.workflow.yaml',
      `id: brief
timeout: 1s
start: ask
states:
  - {id: ask, type: human_approval, message: "Quick?", transition: done}
  - {id: done, type: inject, data: {ok: true}, end: true}
`,
    );
    await h.sync();
    const { run } = await door.start({ workflow_id: 'brief', source: 'api' });
    expect((await h.waitFor(run.id, ['timed_out'])).status).toBe('timed_out');
    const [approval] = await h.store.approvals.list({ workflowRunId: run.id });
    expect(approval?.status).toBe('cancelled');
    await expect(
      door.decide(approval!.approvalId, { decision: 'approved', source: 'cli' }),
    ).rejects.toMatchObject({
      code: 'APPROVAL_WITHDRAWN',
      message: expect.stringContaining(`workflow run ${run.id} ended timed_out`),
    });
  });

  it('keeps an approval that was decided before the cancel as it was decided', async () => {
    h.workflow(
      'two.workflow.yaml',
      `id: two
start: ask
states:
  - {id: ask, type: human_approval, message: "First?", transition: wait}
  - {id: wait, type: timer, duration: 1h, end: true}
`,
    );
    await h.sync();
    const { run } = await door.start({ workflow_id: 'two', source: 'api' });
    await h.waitFor(run.id, ['waiting_approval']);
    const [approval] = await h.store.approvals.list({ workflowRunId: run.id });
    await door.decide(approval!.approvalId, { decision: 'approved', source: 'cli' });
    const steps = async (): Promise<string[]> =>
      (await h.store.workflowSteps.list(run.id)).map((s) => `${s.stepName}:${s.status}`);
    await eventually('the timer step to run', async () => (await steps()).includes('wait:running'));
    await door.cancel(run.id);
    expect((await h.store.approvals.get(approval!.approvalId))?.status).toBe('approved');
  });
});
