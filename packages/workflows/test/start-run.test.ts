// Starting a run of a workflow this process started before: the run is written in one
// statement that holds only while the workflow is unchanged, and every change (definition,
// input schema, disabled, removed, another environment) is seen exactly as a first start sees it.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { withSpan } from '@junction/telemetry';
import { startWorkflowRun, type StartWorkflowRequest } from '../src/index.js';
import { workflowTraceParent } from '../src/workflow-workers.js';
import { createHarness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

const start = (request: Partial<StartWorkflowRequest> & { workflow_id: string }) =>
  startWorkflowRun(
    { store: h.store, due: () => h.workers.due(), reserve: () => h.workers.reserve() },
    { input: {}, source: 'api', ...request },
  );

const file = (output: string, schema = '') => `id: again
name: Again
${schema}start: only
states:
  - {id: only, type: transform, expression: '${output}', end: true}
`;

describe('a second start of a workflow', () => {
  it('follows the definition as it is now, however it changed', async () => {
    h.workflow('again.workflow.yaml', file('{"v": 1}'));
    await h.sync();
    // Runs written in one statement (the workflow unchanged since this process last found it).
    let direct = 0;
    const createFromWorkflow = h.store.workflowRuns.createFromWorkflow.bind(h.store.workflowRuns);
    h.store.workflowRuns.createFromWorkflow = async (input) => {
      const run = await createFromWorkflow(input);
      if (run) direct += 1;
      return run;
    };
    for (let i = 0; i < 3; i++) {
      const { run, replayed } = await start({ workflow_id: 'again', input: { i } });
      expect(replayed).toBe(false);
      expect(run).toMatchObject({ workflowKey: 'again', workflowName: 'Again', input: { i } });
      expect(run.definition).toMatchObject({ id: 'again' });
      expect((await h.waitFor(run.id)).output).toEqual({ v: 1 });
    }
    expect(direct).toBeGreaterThanOrEqual(2);
    // A new definition: the next run follows it (and carries it).
    h.workflow('again.workflow.yaml', file('{"v": 2}').replace('name: Again', 'name: Again 2'));
    await h.sync();
    const { run: second } = await start({ workflow_id: 'again' });
    expect(second.workflowName).toBe('Again 2');
    expect(second.definition).toMatchObject({ states: [{ expression: '{"v": 2}' }] });
    expect((await h.waitFor(second.id)).output).toEqual({ v: 2 });
    expect((await h.store.workflowRuns.get(second.id))?.definition).toEqual(second.definition);
    // An input the new schema refuses is refused, though the previous one took it.
    await start({ workflow_id: 'again', input: { n: 'x' } });
    h.workflow(
      'again.workflow.yaml',
      file('{"v": 3}', 'inputSchema: {type: object, properties: {n: {type: number}}}\n'),
    );
    await h.sync();
    await expect(start({ workflow_id: 'again', input: { n: 'x' } })).rejects.toMatchObject({
      code: 'WORKFLOW_INPUT_INVALID',
    });
    const { run: third } = await start({ workflow_id: 'again', input: { n: 3 } });
    expect((await h.waitFor(third.id)).output).toEqual({ v: 3 });
    const before = direct;
    await start({ workflow_id: 'again', input: { n: 4 } });
    expect(direct).toBe(before + 1);
    // Disabled, then gone.
    const [row] = await h.store.workflows.list();
    await h.store.workflows.setEnabled(row!.id, false);
    await expect(start({ workflow_id: 'again' })).rejects.toMatchObject({
      code: 'WORKFLOW_DISABLED',
    });
    await h.store.workflows.setEnabled(row!.id, true);
    expect((await start({ workflow_id: 'again' })).run.workflowId).toBe(row!.id);
    await h.store.workflows.delete(row!.id);
    await expect(start({ workflow_id: 'again' })).rejects.toMatchObject({
      code: 'WORKFLOW_NOT_FOUND',
    });
  });

  it('answers a repeated idempotency key with the first run, and tells environments apart', async () => {
    h.workflow('again.workflow.yaml', file('{"v": 1}'));
    await h.sync();
    const env = await h.store.environments.getByName('default');
    const first = await start({ workflow_id: 'again', idempotency_key: 'k-1' });
    const again = await start({ workflow_id: 'again', idempotency_key: 'k-1' });
    expect(again).toMatchObject({ replayed: true, run: { id: first.run.id } });
    const other = await start({ workflow_id: 'again', idempotency_key: 'k-2' });
    expect(other.replayed).toBe(false);
    expect(other.run.id).not.toBe(first.run.id);
    // By environment id and by name: the same workflow, each way seen as a first start sees it.
    for (let i = 0; i < 2; i++) {
      expect((await start({ workflow_id: 'again', environment_id: env!.id })).run.workflowId).toBe(
        first.run.workflowId,
      );
      expect((await start({ workflow_id: 'again', environment: 'default' })).run.workflowId).toBe(
        first.run.workflowId,
      );
    }
    await expect(
      start({ workflow_id: 'again', environment_id: env!.id + 100 }),
    ).rejects.toMatchObject({ code: 'WORKFLOW_NOT_FOUND' });
    await expect(start({ workflow_id: 'again', environment: 'elsewhere' })).rejects.toMatchObject({
      code: 'WORKFLOW_NOT_FOUND',
    });
    for (const id of [first.run.id, other.run.id]) {
      expect((await h.waitFor(id)).status).toBe('completed');
    }
  });
});

describe('a run started inside a trace (issue 19)', () => {
  it("nests every advance under the starter's span (a schedule's fire), on both ways of starting", async () => {
    h.workflow('again.workflow.yaml', file('{"v": 1}'));
    await h.sync();
    const fire = async () =>
      withSpan(h.tracing.tracer, 'scheduler.fire', {}, async (span) => ({
        started: await start({ workflow_id: 'again' }),
        parent: span.spanContext(),
      }));
    // The first start reads the workflow; the second is written in one statement.
    for (const { started, parent } of [await fire(), await fire()]) {
      const traceparent = `00-${parent.traceId}-${parent.spanId}-01`;
      expect(started.run.traceParent).toBe(traceparent);
      const ended = await h.waitFor(started.run.id);
      expect(ended).toMatchObject({ status: 'completed', traceParent: traceparent });
      const advances = h.tracing
        .memoryExporter!.getFinishedSpans()
        .filter(
          (s) => s.name === 'workflow.run' && s.attributes['workflow.run_id'] === started.run.id,
        );
      expect(advances.length).toBeGreaterThanOrEqual(1);
      for (const advance of advances) {
        expect(advance.spanContext().traceId).toBe(parent.traceId);
        expect(advance.parentSpanContext?.spanId).toBe(parent.spanId);
      }
    }
    // Started outside any span: a random trace of its own is stored, which every advance shares.
    const alone = await start({ workflow_id: 'again' });
    expect(alone.run.traceParent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(workflowTraceParent(alone.run)).toBe(alone.run.traceParent);
    await h.waitFor(alone.run.id);
  });
});
