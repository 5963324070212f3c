// Workflow runs survive `kill -9` of the process advancing them, and two processes sharing
// one store advance each run exactly once (real processes: test/fixtures/workflow-worker.mjs).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from '@jest/globals';
import { newWorkerId } from '@junction/agent-core/runs';
import { decideApproval } from '../src/approvals.js';
import { startWorkflowRun } from '../src/index.js';
import { createHarness, type Harness } from './harness.js';

const workerScript = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  'fixtures',
  'workflow-worker.mjs',
);

let h: Harness;
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0))
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await h?.close();
});

function worker(tag: string): { child: ChildProcess; started: Promise<void> } {
  const child = spawn(process.execPath, [workerScript, h.dbFile, h.fake.url, tag], {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: path.dirname(workerScript),
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const started = new Promise<void>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.includes('STARTED')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`worker ${tag} exited ${code}: ${err}`)));
  });
  started.catch(() => undefined);
  return { child, started };
}

async function kill9(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

const APPROVAL_FLOW = `id: gated
start: draft
states:
  - {id: draft, type: agent, agent: writer, task: "draft it", resultPath: draft, transition: gate}
  - {id: gate, type: human_approval, message: "Ship it?", transition: ship}
  - {id: ship, type: transform, expression: '{"shipped": draft.response}', end: true}
`;

describe('workflow runs across process deaths', () => {
  it('kill -9 while waiting for approval → restart → approve → completes; no completed step runs again', async () => {
    h = await createHarness({ workers: false });
    h.agent('writer');
    h.workflow('gated.workflow.yaml', APPROVAL_FLOW);
    await h.sync();
    h.fake.script([{ text: 'the draft' }]);
    const a = worker('a');
    await a.started;
    const { run } = await startWorkflowRun(
      { store: h.store },
      { workflow_id: 'gated', source: 'api' },
    );
    await h.waitFor(run.id, ['waiting_approval']);
    await kill9(a.child);
    const b = worker('b');
    await b.started;
    const [approval] = await h.store.approvals.list({ workflowRunId: run.id });
    await decideApproval({ store: h.store }, approval!.approvalId, {
      decision: 'approved',
      approver: 'ops',
      source: 'cli',
    });
    const ended = await h.waitFor(run.id, undefined, 20_000);
    expect(ended).toMatchObject({ status: 'completed', output: { shipped: 'the draft' } });
    expect(h.fake.requests).toHaveLength(1);
    const steps = await h.store.workflowSteps.list(run.id);
    expect(steps.map((s) => [s.stepName, s.attempt, s.status])).toEqual([
      ['draft', 1, 'completed'],
      ['gate', 1, 'approved'],
      ['ship', 1, 'completed'],
    ]);
    expect(await h.store.runs.count({})).toBe(1);
  }, 180_000);

  it('kill -9 while an agent step runs → restart → the step waits on its re-queued run, never a second one', async () => {
    h = await createHarness({ workers: false });
    h.agent('writer');
    h.workflow(
      'gated.workflow.yaml',
      APPROVAL_FLOW.replace('transition: gate', 'transition: ship'),
    );
    await h.sync();
    h.fake.script([{ hang: true }, { text: 'second attempt' }]);
    const a = worker('a');
    await a.started;
    const { run } = await startWorkflowRun(
      { store: h.store },
      { workflow_id: 'gated', source: 'api' },
    );
    for (let i = 0; i < 200 && h.fake.requests.length === 0; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(h.fake.requests).toHaveLength(1);
    await kill9(a.child);
    const b = worker('b');
    await b.started;
    const ended = await h.waitFor(run.id, undefined, 30_000);
    expect(ended).toMatchObject({ status: 'completed', output: { shipped: 'second attempt' } });
    // The one agent run the step started was re-queued (it had called no tool) and re-run.
    expect(await h.store.runs.count({})).toBe(1);
    const steps = await h.store.workflowSteps.list(run.id);
    expect(steps.filter((s) => s.stepName === 'draft')).toHaveLength(1);
  }, 180_000);

  it("kill -9 after the agent step's run called a tool → that run resumes in the next process, and the step sees its one result", async () => {
    h = await createHarness({ workers: false });
    h.agent('writer');
    h.workflow(
      'retried.workflow.yaml',
      `id: retried
start: draft
states:
  - id: draft
    type: agent
    agent: writer
    task: "draft it"
    retry: {max_attempts: 2, backoff: 100ms}
    resultPath: draft
    transition: out
  - {id: out, type: transform, expression: '{"text": draft.response}', end: true}
`,
    );
    await h.sync();
    h.fake.script([{ hang: true }, { text: 'from the retry' }]);
    const a = worker('a');
    await a.started;
    const { run } = await startWorkflowRun(
      { store: h.store },
      { workflow_id: 'retried', source: 'api' },
    );
    for (let i = 0; i < 200 && h.fake.requests.length === 0; i++)
      await new Promise((r) => setTimeout(r, 50));
    const [first] = await h.store.runs.list({});
    // As the runner records it before a tool call is sent: the run has acted.
    expect(
      await h.store.runEvents.record(first!.id, [], undefined, { workerId: first!.workerId! }),
    ).toBe(true);
    await kill9(a.child);
    const b = worker('b');
    await b.started;
    const ended = await h.waitFor(run.id, undefined, 30_000);
    // Issue 32: the run is resumed by the next process; the step sees its one result.
    expect(ended).toMatchObject({ status: 'completed', output: { text: 'from the retry' } });
    expect(await h.store.runs.get(first!.id)).toMatchObject({ status: 'completed', attempt: 2 });
    expect(await h.store.runs.count({})).toBe(1);
    const attempts = (await h.store.workflowSteps.list(run.id)).filter(
      (s) => s.stepName === 'draft',
    );
    expect(attempts.map((s) => [s.attempt, s.status])).toEqual([[1, 'completed']]);
  }, 180_000);

  it('takes over at once a workflow run whose process on this host died, not when its hour-long lease runs out', async () => {
    h = await createHarness({ workers: false });
    h.workflow(
      'quick.workflow.yaml',
      `id: quick
start: only
states:
  - {id: only, type: transform, expression: '{"done": true}', end: true}
`,
    );
    await h.sync();
    const { run } = await startWorkflowRun(
      { store: h.store },
      { workflow_id: 'quick', source: 'api' },
    );
    // Held, for an hour, by a worker of this host whose process has exited.
    const gone = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => gone.once('exit', resolve));
    const deadWorker = `${newWorkerId().replace(/:\d+:/, `:${gone.pid}:`)}:wf`;
    expect(await h.store.workflowRuns.claimNext(deadWorker, 3_600_000)).toMatchObject({
      id: run.id,
      workerId: deadWorker,
    });
    h.workers.start();
    const ended = await h.waitFor(run.id);
    expect(ended).toMatchObject({ status: 'completed', output: { done: true } });
  });

  it('two processes sharing one store advance each workflow run exactly once', async () => {
    h = await createHarness({ workers: false });
    h.agent('writer');
    h.workflow(
      'pair.workflow.yaml',
      `id: pair
start: prep
states:
  - {id: prep, type: inject, data: {n: 1}, resultPath: cfg, transition: write}
  - {id: write, type: agent, agent: writer, task: "write {{ n }}", resultPath: out, transition: wrap}
  - {id: wrap, type: transform, expression: '{"text": out.response, "n": n}', end: true}
`,
    );
    await h.sync();
    const a = worker('a');
    const b = worker('b');
    await Promise.all([a.started, b.started]);
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) {
      const { run } = await startWorkflowRun(
        { store: h.store },
        { workflow_id: 'pair', input: { n: i }, source: 'api' },
      );
      ids.push(run.id);
    }
    for (const id of ids) {
      const ended = await h.waitFor(id, undefined, 30_000);
      expect(ended.status).toBe('completed');
      const steps = await h.store.workflowSteps.list(id);
      expect(steps.map((s) => `${s.path}@${s.attempt}`)).toEqual([
        'prep#1@1',
        'write#1@1',
        'wrap#1@1',
      ]);
    }
    expect(await h.store.runs.count({})).toBe(12);
    expect(h.fake.requests).toHaveLength(12);
  }, 90_000);
});
