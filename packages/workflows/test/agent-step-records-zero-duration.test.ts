// An agent step recorded the same start and end time (0 ms): its record is written after its
// run ended, and both times were the time of that write (issue 31). A completed run also showed
// the step before its last as its current step. The record keeps when the step really began
// and ended, and the run ends at its last step.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { startWorkflowRun, workflowStepView } from '../src/index.js';
import { createHarness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

describe('an agent step of a workflow run', () => {
  it('records when it began and when its run ended, and the run ends at its last step', async () => {
    h.agent('writer');
    h.workflow(
      'story.workflow.yaml',
      `id: story
start: ask
states:
  - {id: ask, type: human_approval, message: "Write?", transition: write}
  - {id: write, type: agent, agent: writer, task: "write", transition: wrap}
  - {id: wrap, type: inject, data: {done: true}, end: true}
`,
    );
    await h.sync();
    // The model takes at least 400 ms to answer: the step cannot take less.
    h.fake.script([{ delayMs: 400, text: 'once upon a time' }]);
    const { run } = await startWorkflowRun(
      { store: h.store, due: () => h.workers.due() },
      { workflow_id: 'story', input: {}, source: 'api' },
    );
    await h.waitFor(run.id, ['waiting_approval']);
    expect((await h.store.workflowRuns.get(run.id))?.currentStep).toBe('ask');
    const [approval] = await h.store.approvals.list({ workflowRunId: run.id });
    await h.store.approvals.decide(approval!.approvalId, { decision: 'approved' });
    await h.store.workflowRuns.wake(run.id);
    h.workers.due();
    const ended = await h.waitFor(run.id);
    expect(ended).toMatchObject({ status: 'completed', currentStep: 'wrap' });

    const steps = await h.store.workflowSteps.list(run.id);
    const write = steps.find((s) => s.stepName === 'write');
    expect(write).toBeDefined();
    const view = workflowStepView(write!);
    const took = Date.parse(view.completed_at!) - Date.parse(view.started_at!);
    expect({ took, atLeast: took >= 400 }).toEqual({ took, atLeast: true });
    const agentRun = await h.store.runs.get(write!.runId!);
    expect(write!.startedAt!.getTime()).toBeLessThanOrEqual(agentRun!.queuedAt.getTime());
    expect(write!.completedAt!.getTime()).toBe(agentRun!.completedAt!.getTime());
  });
});
