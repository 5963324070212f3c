// Cancelling a workflow run stops the agent run its step waits on (issue 14's cancel, with
// issue 16's run cancel): the step's run ends `cancelled`, no later step starts.
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
});
afterEach(async () => {
  await h.close();
});

describe('cancelling a workflow run', () => {
  it('cancels the agent run its step waits on, and starts no further step', async () => {
    h.agent('slowpoke');
    h.agent('never');
    h.workflow(
      'two.workflow.yaml',
      `id: two
start: first
states:
  - {id: first, type: agent, agent: slowpoke, task: "take your time", transition: second}
  - {id: second, type: agent, agent: never, task: "not reached", end: true}
`,
    );
    await h.sync();
    h.fake.script([{ delayMs: 20_000, text: 'far too late' }, { text: 'second' }]);
    const { run } = await door.start({ workflow_id: 'two', source: 'api' });
    await eventually('the model to be asked', () => h.fake.requests.length > 0);
    const [agentRun] = await h.store.runs.list({ status: 'running' });
    expect(agentRun?.source).toBe('workflow');
    const cancelled = await door.cancel(run.id, { source: 'cli' });
    expect(cancelled.status).toBe('cancelled');
    // The agent run stops at once (it executes in this process) and ends cancelled.
    const ended = await h.door.waitFor(agentRun!.id, { timeoutMs: 3000 });
    expect(ended).toMatchObject({ status: 'cancelled', error: 'Run cancelled.' });
    await new Promise((r) => setTimeout(r, 300));
    expect(h.fake.requests.length).toBe(1);
    expect((await h.store.workflowRuns.get(run.id))?.status).toBe('cancelled');
    const audit = await (async () => {
      await h.store.auditLog.flush();
      return h.store.auditLog.list({ action: 'cancel_run' });
    })();
    expect(audit[0]).toMatchObject({ source: 'cli', outcome: 'success' });
  });
});
