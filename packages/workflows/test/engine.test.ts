// The engine with real parts (harness.ts): every state type, data flow between steps, agent
// steps through the one run door, waits that hold no worker.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { WorkflowRun } from '@junction/store';
import { startWorkflowRun } from '../src/index.js';
import { createHarness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

const start = (workflow_id: string, input: unknown = {}) =>
  startWorkflowRun(
    { store: h.store, due: () => h.workers.due() },
    { workflow_id, input, source: 'api' },
  );

describe('the workflow engine', () => {
  it('runs inject → agent → switch → agent → transform, each step recorded once, agent runs linked', async () => {
    h.agent('triager');
    h.agent('fixer');
    h.workflow(
      'pipeline.workflow.yaml',
      `id: pipeline
name: Pipeline
start: init
inputSchema:
  type: object
  properties: {ticket: {type: string}}
  required: [ticket]
states:
  - id: init
    type: inject
    data: {threshold: 5}
    resultPath: config
    transition: triage
  - id: triage
    type: agent
    agent: triager
    task: "Rate ticket {{ ticket }} from 1 to 10"
    resultPath: rating
    transition: route
  - id: route
    type: switch
    dataPath: rating
    conditions:
      - if: "score > config.threshold"
        next: fix
    defaultNext: done
  - id: fix
    type: agent
    agent: fixer
    prompt: "Fix {{ ticket }} (score {{ rating.score }})"
    transition: done
  - id: done
    type: transform
    expression: |
      {"ticket": workflow.input.ticket, "score": rating.score, "fixed": hasattr(steps, "fix")}
    end: true
`,
    );
    await h.sync();
    h.fake.script([{ text: '{"score": 8}' }, { text: 'fixed it' }]);
    const { run } = await start('pipeline', { ticket: 'T-1' });
    const ended = await h.waitFor(run.id);
    expect(ended).toMatchObject({
      status: 'completed',
      output: { ticket: 'T-1', score: 8, fixed: true },
    });
    // The agent saw the rendered task.
    const tasks = h.fake.requests.map((r) => JSON.stringify(r.body.messages));
    expect(tasks[0]).toContain('Rate ticket T-1 from 1 to 10');
    expect(tasks[1]).toContain('Fix T-1 (score 8)');
    const steps = await h.store.workflowSteps.list(run.id);
    expect(steps.map((s) => [s.stepName, s.status, s.attempt])).toEqual([
      ['init', 'completed', 1],
      ['triage', 'completed', 1],
      ['route', 'completed', 1],
      ['fix', 'completed', 1],
      ['done', 'completed', 1],
    ]);
    // One trace: workflow.run ⊃ workflow.step ⊃ agent.execute of the step's run.
    const spans = h.tracing.memoryExporter!.getFinishedSpans();
    const stepSpans = spans.filter(
      (s) => s.name === 'workflow.step' && s.attributes['workflow.step_type'] === 'agent',
    );
    const agentSpans = spans.filter((s) => s.name === 'agent.execute');
    expect(stepSpans).toHaveLength(2);
    expect(agentSpans).toHaveLength(2);
    for (const agentSpan of agentSpans) {
      const parent = stepSpans.find(
        (s) => s.spanContext().spanId === agentSpan.parentSpanContext?.spanId,
      );
      expect(parent).toBeDefined();
      expect(agentSpan.spanContext().traceId).toBe(parent!.spanContext().traceId);
    }
    // Counted by outcome on the process's meter.
    const text = await h.metrics.renderPrometheus();
    expect(text).toMatch(/workflow_runs_total\{[^}]*status="completed"[^}]*\} 1/);
    expect(text).toMatch(/workflow_steps_total\{[^}]*type="agent"[^}]*\} 2/);
    const agentSteps = steps.filter((s) => s.type === 'agent');
    for (const s of agentSteps) {
      const agentRun = await h.store.runs.get(s.runId!);
      expect(agentRun).toMatchObject({ status: 'completed', source: 'workflow' });
    }
  });

  it('refuses input that does not fit the inputSchema, naming the field, and writes no run', async () => {
    h.workflow(
      'strict.workflow.yaml',
      `id: strict
start: a
inputSchema: {type: object, properties: {n: {type: integer}}, required: [n]}
states:
  - {id: a, type: inject, data: {x: 1}, end: true}
`,
    );
    await h.sync();
    await expect(start('strict', {})).rejects.toMatchObject({
      code: 'WORKFLOW_INPUT_INVALID',
      message: expect.stringContaining('input.n is required'),
    });
    await expect(start('strict', { n: 'two' })).rejects.toMatchObject({
      code: 'WORKFLOW_INPUT_INVALID',
      message: expect.stringContaining('input.n must be integer'),
    });
    expect(await h.store.workflowRuns.list({})).toEqual([]);
  });

  it('runs parallel branches and a foreach with bounded concurrency, nested, and joins their outputs', async () => {
    h.agent('checker');
    h.workflow(
      'fanout.workflow.yaml',
      `id: fanout
start: setup
states:
  - id: setup
    type: inject
    data: {services: [{name: api}, {name: web}, {name: db}]}
    resultPath: ctx
    transition: both
  - id: both
    type: parallel
    branches:
      - name: checks
        states:
          - id: each
            type: foreach
            itemsPath: ctx.services
            itemName: svc
            maxConcurrency: 2
            iterator:
              states:
                - id: look
                  type: transform
                  expression: '{"service": svc.name, "position": _index}'
                  end: true
            end: true
      - name: summary
        states:
          - id: count
            type: transform
            expression: '{"total": len(ctx.services)}'
            end: true
    resultPath: joined
    transition: finish
  - id: finish
    type: transform
    expression: |
      {"names": [r.output.service for r in joined.checks.results], "total": joined.summary.total}
    end: true
`,
    );
    await h.sync();
    const { run } = await start('fanout');
    const ended = await h.waitFor(run.id);
    expect(ended.error).toBeNull();
    expect(ended.output).toEqual({ names: ['api', 'web', 'db'], total: 3 });
  });

  it('catches a failing step in try/catch, exposes _error, and runs finally', async () => {
    h.workflow(
      'guarded.workflow.yaml',
      `id: guarded
start: attempt
states:
  - id: attempt
    type: try
    try:
      states:
        - {id: boom, type: transform, expression: "1 // 0", end: true}
    catch:
      states:
        - {id: handle, type: transform, expression: '{"handled": _error}', end: true}
    finally:
      states:
        - {id: cleanup, type: inject, data: {cleaned: true}, end: true}
    transition: after
  - id: after
    type: transform
    expression: '{"block": attempt.block, "why": attempt.catch_output.handled}'
    end: true
`,
    );
    await h.sync();
    const { run } = await start('guarded');
    const ended = await h.waitFor(run.id);
    expect(ended.status).toBe('completed');
    expect(ended.output).toMatchObject({ block: 'catch' });
    expect(String((ended.output as { why: string }).why)).toContain('division by zero');
  });

  it('waits on a timer as a row with a due time, holding no worker, then goes on', async () => {
    h.workflow(
      'nap.workflow.yaml',
      `id: nap
start: sleep
states:
  - {id: sleep, type: timer, duration: 600ms, transition: after}
  - {id: after, type: inject, data: {woke: true}, resultPath: out, end: true}
`,
    );
    await h.sync();
    const { run } = await start('nap');
    const waiting = await h.waitFor(run.id, ['running'], 5_000);
    // Released: nobody holds it while it sleeps.
    await new Promise((r) => setTimeout(r, 200));
    const asleep = await h.store.workflowRuns.get(run.id);
    expect(asleep?.workerId).toBeNull();
    expect(asleep?.wakeAt?.getTime()).toBeGreaterThan(Date.now());
    expect(h.workers.inFlight()).toBe(0);
    expect(waiting.id).toBe(run.id);
    const ended = await h.waitFor(run.id);
    expect(ended).toMatchObject({ status: 'completed', output: { woke: true } });
  });

  it('ends a run handed to an idle worker with no look in the store after it; a run it could not be handed is found', async () => {
    h.workflow(
      'quick.workflow.yaml',
      `id: quick
start: a
states:
  - {id: a, type: inject, data: {ok: true}, resultPath: out, end: true}
`,
    );
    await h.sync();
    await h.workers.stop(); // only the workers under test take runs
    // A slow poll, so only a hand-off or due() can start a run within the test.
    const workers = h.newWorkers({ pollMs: 60_000, concurrency: 1 });
    let claims = 0;
    const claimNext = h.store.workflowRuns.claimNext.bind(h.store.workflowRuns);
    h.store.workflowRuns.claimNext = (workerId, leaseMs) => {
      if (workerId === workers.workerId) claims += 1; // not the harness's own workers
      return claimNext(workerId, leaseMs);
    };
    workers.start();
    await new Promise((r) => setTimeout(r, 100));
    expect(claims).toBe(1); // the look at start-up (runs left by a previous process)
    for (let i = 0; i < 3; i++) {
      const { run } = await startWorkflowRun(
        { store: h.store, due: () => workers.due(), reserve: () => workers.reserve() },
        { workflow_id: 'quick', input: {}, source: 'api' },
      );
      expect(run.workerId).toBe(workers.workerId); // written already held by the idle worker
      expect((await h.waitFor(run.id)).status).toBe('completed');
    }
    // Its end is told once the worker is idle again: a run started on hearing it is handed over.
    const chained = await new Promise<WorkflowRun>((resolve, reject) => {
      void startWorkflowRun(
        { store: h.store, due: () => workers.due(), reserve: () => workers.reserve() },
        { workflow_id: 'quick', input: {}, source: 'api' },
      ).then(({ run }) => {
        workers.onEnd(run.id, () => {
          startWorkflowRun(
            { store: h.store, due: () => workers.due(), reserve: () => workers.reserve() },
            { workflow_id: 'quick', input: {}, source: 'api' },
          ).then(({ run: next }) => resolve(next), reject);
        });
      }, reject);
    });
    expect(chained.workerId).toBe(workers.workerId);
    expect((await h.waitFor(chained.id)).status).toBe('completed');
    await new Promise((r) => setTimeout(r, 100));
    // Five runs handed over: no claim after any of them (each was a write).
    expect(claims).toBe(1);
    // A run written without a worker to hand it to is found at once on due().
    const { run } = await startWorkflowRun(
      { store: h.store, due: () => workers.due() },
      { workflow_id: 'quick', input: {}, source: 'api' },
    );
    expect(run.workerId).toBeNull();
    expect((await h.waitFor(run.id, undefined, 5_000)).status).toBe('completed');
    await new Promise((r) => setTimeout(r, 100));
    // due() → a claim that takes it; after it, one more look (more may wait) that finds none.
    expect(claims).toBe(3);
    await workers.stop();
  });

  it('fails a run whose agent step fails, naming the step, unless retry succeeds', async () => {
    h.agent('flaky');
    h.workflow(
      'retrying.workflow.yaml',
      `id: retrying
start: call
states:
  - id: call
    type: agent
    agent: flaky
    task: do it
    retry: {max_attempts: 2, backoff: 100ms}
    end: true
`,
    );
    h.workflow(
      'once.workflow.yaml',
      `id: once
start: call
states:
  - {id: call, type: agent, agent: flaky, task: do it, end: true}
`,
    );
    await h.sync();
    h.fake.script([
      { error: { status: 400, message: 'bad request' } },
      { text: 'second time lucky' },
    ]);
    const { run } = await start('retrying');
    const ended = await h.waitFor(run.id);
    expect(ended).toMatchObject({ status: 'completed', output: { response: 'second time lucky' } });
    const attempts = await h.store.workflowSteps.list(run.id);
    expect(attempts.map((s) => [s.attempt, s.status])).toEqual([
      [1, 'failed'],
      [2, 'completed'],
    ]);
    h.fake.script([{ error: { status: 400, message: 'bad request' } }]);
    const { run: single } = await start('once');
    const failed = await h.waitFor(single.id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toContain('state "call"');
  });

  it('ends a run that outlasts its timeout as timed_out, even while it waits', async () => {
    h.workflow(
      'slow.workflow.yaml',
      `id: slow
timeout: 400ms
start: nap
states:
  - {id: nap, type: timer, duration: 10s, end: true}
`,
    );
    await h.sync();
    const { run } = await start('slow');
    const ended = await h.waitFor(run.id, undefined, 5_000);
    expect(ended).toMatchObject({ status: 'timed_out' });
    expect(ended.error).toContain('timeout');
  });

  it('refuses a loop that never ends after 1000 visits of a state', async () => {
    h.workflow(
      'forever.workflow.yaml',
      `id: forever
start: spin
states:
  - id: spin
    type: switch
    conditions:
      - {if: "True", next: spin}
`,
    );
    await h.sync();
    const { run } = await start('forever');
    const ended = await h.waitFor(run.id, undefined, 60_000);
    expect(ended.status).toBe('failed');
    expect(ended.error).toContain('more than 1000 times');
  }, 90_000);
});

describe('hostile workflow input', () => {
  it('refuses input that is not an object, nests too deep, or names __proto__ — and writes no run', async () => {
    h.workflow(
      'open.workflow.yaml',
      'id: open\nstart: a\nstates:\n  - {id: a, type: inject, data: {x: 1}, end: true}\n',
    );
    await h.sync();
    let deep: unknown = 'leaf';
    for (let i = 0; i < 5_000; i++) deep = { d: deep };
    for (const [input, says] of [
      [[1, 2], 'must be a JSON object'],
      [{ a: deep }, 'nested more than 64 levels'],
      [JSON.parse('{"__proto__": {"polluted": true}}'), 'input.__proto__'],
      [JSON.parse('{"constructor": 1}'), 'input.constructor'],
    ] as const) {
      await expect(start('open', input)).rejects.toMatchObject({
        code: 'WORKFLOW_INPUT_INVALID',
        message: expect.stringContaining(says),
      });
    }
    expect(await h.store.workflowRuns.list({})).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
