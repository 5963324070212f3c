// Cancelling a workflow run left its approval pending, and approving it said the run goes on
// while it stayed cancelled (issue 31). Over MCP: cancel_workflow_run withdraws it, and
// approve/reject_workflow_step answer the caller's error APPROVAL_WITHDRAWN.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createWorkflowDoor } from '@junction/workflows';
import { call, connectInMemory, createHarness, dataOf, refusal, type Harness } from './harness.js';

let h: Harness;
let client: Client;
let closeClient: () => Promise<void>;

beforeAll(async () => {
  h = await createHarness();
  await h.store.workflows.upsert(h.env.id, {
    workflowId: 'gate',
    name: 'Gate',
    definition: {
      id: 'gate',
      start: 'review',
      states: [
        { id: 'review', type: 'human_approval', message: 'Ship it?', next: 'done' },
        { id: 'done', type: 'inject', data: { shipped: true }, end: true },
      ],
    },
  });
  const door = createWorkflowDoor({ store: h.store, publicUrl: 'http://127.0.0.1:8587' });
  ({ client, close: closeClient } = await connectInMemory({ ...h.deps, workflows: door }));
});

afterAll(async () => {
  await closeClient();
  await h.close();
});

describe('the approval of a cancelled workflow run over MCP', () => {
  it('is withdrawn, and deciding it is refused with APPROVAL_WITHDRAWN', async () => {
    const run = await h.store.workflowRuns.create({
      workflowKey: 'gate',
      workflowName: 'Gate',
      environmentId: h.env.id,
      status: 'waiting_approval',
    });
    const approvalId = `appr-${run.id}-review`;
    await h.store.approvals.create({
      approvalId,
      workflowRunId: run.id,
      stepName: 'review',
      message: 'Ship it?',
    });
    const cancelled = await call(client, 'cancel_workflow_run', {
      workflow_run_id: String(run.id),
    });
    expect(cancelled.isError).toBeFalsy();
    const listed = dataOf(
      await call(client, 'list_workflow_approvals', { status: 'cancelled' }),
    ) as { approvals: Array<{ approval_id: string; status: string }> };
    expect(listed.approvals).toEqual([
      expect.objectContaining({ approval_id: approvalId, status: 'cancelled' }),
    ]);
    for (const tool of ['approve_workflow_step', 'reject_workflow_step']) {
      const refused = refusal(await call(client, tool, { approval_id: approvalId }));
      expect(refused.code).toBe('APPROVAL_WITHDRAWN');
      expect(refused.message).toContain(`workflow run ${run.id} was cancelled`);
    }
  });
});
