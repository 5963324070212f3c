// Workflow trace ids were made of the run's creation time and id, under a parent of that id
// (issue 31): predictable, and alike for runs created at once in two stores. A run started
// outside any trace now stores a W3C traceparent of random ids, drawn from the door's random
// source; every advance of the run is in that trace. A run a schedule fires still nests under
// the fire (start-run.test.ts).
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createWorkflowDoor } from '../src/index.js';
import { SPAN_WORKFLOW_START } from '../src/start-run.js';
import { newTraceParent, workflowTraceParent } from '../src/workflow-workers.js';
import { createHarness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

/** A seeded source: each draw is the next bytes counting up from `seed`. */
function counting(seed: number): (size: number) => Uint8Array {
  let next = seed;
  return (size) => Uint8Array.from({ length: size }, () => next++ & 0xff);
}

/** A workflow that waits for one approval, then ends: two advances of one run. */
async function syncGate(): Promise<void> {
  h.workflow(
    'gate.workflow.yaml',
    `id: gate
start: ask
states:
  - {id: ask, type: human_approval, message: "Go?", transition: done}
  - {id: done, type: inject, data: {ok: true}, end: true}
`,
  );
  await h.sync();
}

describe('the trace of a workflow run started outside any trace', () => {
  it('is random, drawn from the injected source, stored, and shared by every advance', async () => {
    await syncGate();
    const door = createWorkflowDoor({
      store: h.store,
      publicUrl: 'http://127.0.0.1:8587',
      due: () => h.workers.due(),
      random: counting(1),
    });
    const { run } = await door.start({ workflow_id: 'gate', source: 'api' });
    expect(run.traceParent).toBe('00-0102030405060708090a0b0c0d0e0f10-1112131415161718-01');
    await h.waitFor(run.id, ['waiting_approval']);
    const [approval] = await h.store.approvals.list({ workflowRunId: run.id });
    await door.decide(approval!.approvalId, { decision: 'approved', source: 'cli' });
    const ended = await h.waitFor(run.id);
    expect(ended.traceParent).toBe(run.traceParent);
    expect(workflowTraceParent(ended)).toBe(run.traceParent);
    const advances = h.tracing
      .memoryExporter!.getFinishedSpans()
      .filter((s) => s.name === 'workflow.run' && s.attributes['workflow.run_id'] === run.id);
    expect(advances.length).toBeGreaterThanOrEqual(2);
    for (const advance of advances) {
      expect(advance.spanContext().traceId).toBe('0102030405060708090a0b0c0d0e0f10');
      expect(advance.parentSpanContext?.spanId).toBe('1112131415161718');
    }
    const second = await door.start({ workflow_id: 'gate', source: 'api' });
    expect(second.run.traceParent).not.toBe(run.traceParent);
  });

  it('with a tracer, nests every advance under a real root span, workflow.start', async () => {
    await syncGate();
    const door = createWorkflowDoor({
      store: h.store,
      publicUrl: 'http://127.0.0.1:8587',
      due: () => h.workers.due(),
      tracer: () => h.tracing.tracer,
    });
    const { run } = await door.start({ workflow_id: 'gate', source: 'api' });
    await h.waitFor(run.id, ['waiting_approval']);
    const [approval] = await h.store.approvals.list({ workflowRunId: run.id });
    await door.decide(approval!.approvalId, { decision: 'approved', source: 'cli' });
    await h.waitFor(run.id);
    const spans = h.tracing.memoryExporter!.getFinishedSpans();
    const root = spans.find(
      (s) => s.name === SPAN_WORKFLOW_START && s.attributes['workflow.run_id'] === run.id,
    );
    expect(root).toBeDefined();
    expect(root!.parentSpanContext).toBeUndefined();
    const { traceId, spanId } = root!.spanContext();
    expect(run.traceParent).toBe(`00-${traceId}-${spanId}-01`);
    const advances = spans.filter(
      (s) => s.name === 'workflow.run' && s.attributes['workflow.run_id'] === run.id,
    );
    expect(advances.length).toBeGreaterThanOrEqual(2);
    for (const advance of advances) {
      expect(advance.spanContext().traceId).toBe(traceId);
      expect(advance.parentSpanContext?.spanId).toBe(spanId);
    }
  });

  it('never uses an all-zero id, which W3C Trace Context forbids', () => {
    const zeros = [new Uint8Array(16), new Uint8Array(8)];
    let draws = 0;
    const parent = newTraceParent((size) => zeros.shift() ?? new Uint8Array(size).fill(++draws));
    expect(parent).toBe(`00-${'01'.repeat(16)}-${'02'.repeat(8)}-01`);
    expect(newTraceParent()).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  });
});
