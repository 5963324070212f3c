import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { Store } from '../src/index.js';
import { manualClock, openTestStore, STORE_KINDS, type StoreKind } from './helpers.js';

describe.each(STORE_KINDS)('workflows, approvals and schedules on %s', (kind: StoreKind) => {
  let store: Store;
  let close: () => Promise<void>;
  let clock: ReturnType<typeof manualClock>;
  let environmentId: number;

  beforeEach(async () => {
    clock = manualClock();
    ({ store, close } = await openTestStore(kind, clock.now));
    environmentId = (await store.environments.ensure('development')).id;
  });
  afterEach(async () => {
    await close();
  });

  it('upserts workflow definitions by workflowId and toggles them', async () => {
    const wf = await store.workflows.upsert(environmentId, {
      workflowId: 'deploy',
      name: 'Deploy',
      definition: { steps: [{ id: 'approve', type: 'approval' }] },
      path: 'workflows/deploy.workflow.yaml',
    });
    expect(wf).toMatchObject({
      workflowId: 'deploy',
      enabled: true,
      definition: { steps: [{ id: 'approve', type: 'approval' }] },
    });
    const again = await store.workflows.upsert(environmentId, {
      workflowId: 'deploy',
      name: 'Deploy v2',
      definition: {},
    });
    expect(again).toMatchObject({ id: wf.id, name: 'Deploy v2', path: null });
    expect((await store.workflows.setEnabled(wf.id, false)).enabled).toBe(false);
    expect(await store.workflows.list({ enabled: true })).toEqual([]);
    expect(await store.workflows.getByWorkflowId(environmentId, 'deploy')).toMatchObject({
      id: wf.id,
    });
    await store.workflows.upsert(environmentId, { workflowId: 'old', name: 'Old', definition: {} });
    expect(await store.workflows.deleteExcept(environmentId, ['deploy'])).toBe(1);
    await expect(store.workflows.setEnabled(999, true)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('writes a run of a workflow the caller holds only while that workflow is unchanged', async () => {
    const definition = { id: 'deploy', start: 'a', states: [{ id: 'a', type: 'inject' }] };
    const wf = await store.workflows.upsert(environmentId, {
      workflowId: 'deploy',
      name: 'Deploy',
      definition,
    });
    const known = (
      environment: { name: string } | { id: number },
      definitionText = JSON.stringify(definition),
    ) => ({
      workflow: { id: wf.id, workflowId: 'deploy', definitionText, environment },
      definition,
    });
    const byName = await store.workflowRuns.createFromWorkflow({
      ...known({ name: 'development' }),
      source: 'api',
      input: { ref: 'main' },
      claimedBy: { workerId: 'w1', leaseMs: 60_000 },
    });
    expect(byName).toMatchObject({
      workflowId: wf.id,
      workflowKey: 'deploy',
      workflowName: 'Deploy',
      environmentId,
      status: 'running',
      workerId: 'w1',
      advances: 1,
      input: { ref: 'main' },
      source: 'api',
    });
    expect(byName?.definition).toBe(definition);
    // Answered as reading it back gives it.
    expect(byName).toEqual(await store.workflowRuns.get(byName!.id));
    expect(byName).toMatchObject({ wakeAt: clock.now(), startedAt: clock.now() });
    const byId = await store.workflowRuns.createFromWorkflow({
      ...known({ id: environmentId }),
      idempotencyKey: 'api:k',
      timeoutAt: new Date(clock.now().getTime() + 5_000),
    });
    expect(byId).toMatchObject({ status: 'pending', workerId: null, startedAt: null, advances: 0 });
    expect(byId).toEqual(await store.workflowRuns.get(byId!.id));
    // Not written: the key taken, another environment, a definition that changed, disabled.
    const again = { ...known({ id: environmentId }), idempotencyKey: 'api:k' };
    expect(await store.workflowRuns.createFromWorkflow(again)).toBeUndefined();
    for (const other of [
      known({ name: 'production' }),
      known({ id: environmentId + 1 }),
      known({ name: 'development' }, '{}'),
    ]) {
      expect(await store.workflowRuns.createFromWorkflow(other)).toBeUndefined();
    }
    await store.workflows.setEnabled(wf.id, false);
    expect(
      await store.workflowRuns.createFromWorkflow(known({ name: 'development' })),
    ).toBeUndefined();
    expect((await store.workflowRuns.list()).map((r) => r.id).sort()).toEqual(
      [byName!.id, byId!.id].sort(),
    );
  });

  it('tracks a workflow run and its steps, stamping start and end times', async () => {
    const wf = await store.workflows.upsert(environmentId, {
      workflowId: 'deploy',
      name: 'Deploy',
      definition: {},
    });
    const run = await store.workflowRuns.create({
      workflowId: wf.id,
      workflowKey: 'deploy',
      workflowName: 'Deploy',
      input: { ref: 'main' },
    });
    expect(run).toMatchObject({
      status: 'pending',
      input: { ref: 'main' },
      startedAt: null,
      output: null,
    });

    clock.advance(100);
    const running = await store.workflowRuns.update(run.id, {
      status: 'running',
      currentStep: 'build',
    });
    expect(running.startedAt).toEqual(clock.now());
    const step = await store.workflowSteps.start(run.id, {
      stepName: 'build',
      type: 'agent',
      input: { task: 'build' },
    });
    expect(step).toMatchObject({ status: 'running', startedAt: clock.now(), completedAt: null });
    clock.advance(50);
    const stepDone = await store.workflowSteps.update(step.id, {
      status: 'completed',
      output: { ok: true },
    });
    expect(stepDone).toMatchObject({
      status: 'completed',
      output: { ok: true },
      completedAt: clock.now(),
    });
    await store.workflowSteps.start(run.id, {
      stepName: 'approve',
      type: 'approval',
      status: 'pending',
    });
    expect((await store.workflowSteps.list(run.id)).map((s) => s.stepName)).toEqual([
      'build',
      'approve',
    ]);

    clock.advance(50);
    await store.workflowRuns.update(run.id, { status: 'waiting_approval' });
    const done = await store.workflowRuns.update(run.id, {
      status: 'completed',
      output: { released: true },
    });
    expect(done.startedAt).toEqual(running.startedAt); // stamped once
    expect(done.completedAt).toEqual(clock.now());
    expect(
      (await store.workflowRuns.list({ workflowKey: 'deploy', status: 'completed' })).map(
        (r) => r.id,
      ),
    ).toEqual([run.id]);

    // History survives the definition.
    await store.workflows.delete(wf.id);
    expect(await store.workflowRuns.get(run.id)).toMatchObject({
      workflowId: null,
      workflowKey: 'deploy',
      workflowName: 'Deploy',
    });
    await expect(
      store.workflowSteps.start(777, { stepName: 's', type: 't' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(store.workflowRuns.update(777, { status: 'failed' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('lets one worker at a time advance a due run, under a lease; release, wake, finish, cancel', async () => {
    const run = await store.workflowRuns.create({ workflowKey: 'wf', workflowName: 'WF' });
    const taken = await store.workflowRuns.claimNext('w1', 1_000);
    expect(taken).toMatchObject({ id: run.id, status: 'running', workerId: 'w1' });
    expect(await store.workflowRuns.claimNext('w2', 1_000)).toBeUndefined();
    // Waiting for a person: not due by time until woken.
    expect(
      await store.workflowRuns.release(run.id, 'w1', { status: 'waiting_approval', wakeAt: null }),
    ).toBe(true);
    clock.advance(10_000);
    expect(await store.workflowRuns.claimNext('w2', 1_000)).toBeUndefined();
    expect(await store.workflowRuns.wake(run.id)).toBe(true);
    expect((await store.workflowRuns.get(run.id))?.status).toBe('running');
    expect((await store.workflowRuns.claimNext('w2', 1_000))?.workerId).toBe('w2');
    // A timer: due later; a lapsed lease lets another worker take it over.
    await store.workflowRuns.release(run.id, 'w2', {
      status: 'running',
      wakeAt: new Date(clock.now().getTime() + 5_000),
    });
    expect(await store.workflowRuns.claimNext('w3', 1_000)).toBeUndefined();
    clock.advance(5_000);
    expect((await store.workflowRuns.claimNext('w3', 1_000))?.workerId).toBe('w3');
    clock.advance(1_001);
    expect((await store.workflowRuns.claimNext('w4', 1_000))?.workerId).toBe('w4');
    await expect(
      store.workflowRuns.finish(run.id, 'w3', { status: 'completed' }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    const done = await store.workflowRuns.finish(run.id, 'w4', {
      status: 'completed',
      output: { ok: 1 },
    });
    expect(done).toMatchObject({ status: 'completed', workerId: null, output: { ok: 1 } });
    await expect(store.workflowRuns.cancel(run.id)).rejects.toMatchObject({ code: 'CONFLICT' });
    const other = await store.workflowRuns.create({ workflowKey: 'wf', workflowName: 'WF' });
    expect(await store.workflowRuns.cancel(other.id)).toMatchObject({ status: 'cancelled' });
    expect(await store.workflowRuns.claimNext('w1', 1_000)).toBeUndefined();
  });

  it("writes an advance's last step records with the run's end or release, in one transaction", async () => {
    const definition = { id: 'wf', start: 'a', states: [{ id: 'a', type: 'inject', end: true }] };
    const run = await store.workflowRuns.create({
      workflowKey: 'wf',
      workflowName: 'WF',
      definition,
      claimedBy: { workerId: 'w1', leaseMs: 60_000 },
    });
    // The definition given is the run's: not read back from the row.
    expect(run.definition).toBe(definition);
    expect((await store.workflowRuns.get(run.id))?.definition).toEqual(definition);
    const step = { path: 'a#1', stepName: 'a', type: 'inject', status: 'completed' as const };
    const held = await store.workflowRuns.release(
      run.id,
      'w1',
      { status: 'running', wakeAt: clock.now(), currentStep: 'a' },
      { inserts: [step], updates: [] },
    );
    expect(held).toBe(true);
    expect((await store.workflowSteps.list(run.id)).map((s) => s.path)).toEqual(['a#1']);
    const again = await store.workflowRuns.claimNext('w2', 60_000);
    expect(again?.currentStep).toBe('a');
    const [recorded] = await store.workflowSteps.list(run.id);
    const done = await store.workflowRuns.finish(
      run.id,
      'w2',
      { status: 'completed', output: { ok: true } },
      {
        inserts: [{ path: 'b#1', stepName: 'b', type: 'transform', status: 'completed' }],
        updates: [{ id: recorded!.id, patch: { output: { seen: 1 } } }],
      },
      { definition },
    );
    expect(done).toMatchObject({ status: 'completed', output: { ok: true }, workerId: null });
    expect(done.definition).toBe(definition);
    const steps = await store.workflowSteps.list(run.id);
    expect(steps.map((s) => [s.path, s.output])).toEqual([
      ['a#1', { seen: 1 }],
      ['b#1', null],
    ]);
    // Without the definition in hand, the end reads it back.
    const other = await store.workflowRuns.create({
      workflowKey: 'wf',
      workflowName: 'WF',
      definition,
      claimedBy: { workerId: 'w3', leaseMs: 60_000 },
    });
    const ended = await store.workflowRuns.finish(other.id, 'w3', { status: 'failed', error: 'x' });
    expect(ended.definition).toEqual(definition);
    // A release by a worker that no longer holds the run changes nothing of the run.
    expect(
      await store.workflowRuns.release(other.id, 'w3', { status: 'running', wakeAt: null }),
    ).toBe(false);
  });

  it('writes step records with every value as given, however they are sent', async () => {
    const run = await store.workflowRuns.create({ workflowKey: 'wf', workflowName: 'WF' });
    const wakeAt = new Date(1_234_567_890_123);
    const output = { s: 'héllo 😀 "q" \\', big: 2 ** 53 - 1, f: 0.1 + 0.2, list: [null, true] };
    const inserted = await store.workflowSteps.apply(run.id, {
      inserts: [
        { path: 'a#1', stepName: 'a', type: 'inject', status: 'completed', output },
        { path: 'b#1', attempt: 2, stepName: 'b', type: 'agent', input: { task: 'x\u0000y' } },
        { path: 'c#1', stepName: 'c', type: 'timer', status: 'pending', wakeAt },
        { path: 'd#1', stepName: 'd', type: 'transform', status: 'failed', error: 'bad 😀 "x"' },
        { path: 'a#1', stepName: 'a', type: 'inject', status: 'completed', output: 'again' },
      ],
      updates: [],
    });
    expect(inserted.map((s) => s.path)).toEqual(['a#1', 'b#1', 'c#1', 'd#1']);
    // Text with a NUL or half a surrogate pair: bound value by value.
    await store.workflowSteps.apply(run.id, {
      inserts: [
        { path: 'e#1', stepName: 'e', type: 'transform', status: 'failed', error: 'nul\u0000here' },
        { path: 'f#1', stepName: 'f', type: 'transform', status: 'completed', output: 'ok' },
      ],
      updates: [],
    });
    await store.workflowSteps.apply(run.id, {
      inserts: [
        { path: 'g#1', stepName: 'g', type: 'transform', status: 'failed', error: 'half \ud800' },
        {
          path: 'h#1',
          stepName: 'h',
          type: 'inject',
          status: 'completed',
          output: 'x\u0000\ud800',
        },
      ],
      updates: [],
    });
    const steps = await store.workflowSteps.list(run.id);
    expect(steps.map((s) => [s.path, s.attempt, s.status])).toEqual([
      ['a#1', 1, 'completed'],
      ['b#1', 2, 'running'],
      ['c#1', 1, 'pending'],
      ['d#1', 1, 'failed'],
      ['e#1', 1, 'failed'],
      ['f#1', 1, 'completed'],
      ['g#1', 1, 'failed'],
      ['h#1', 1, 'completed'],
    ]);
    const [a, b, c, d, e, , g, h] = steps;
    expect(a).toMatchObject({ output, input: null, error: null, runId: null, wakeAt: null });
    expect(a!.completedAt).toEqual(clock.now());
    expect(b).toMatchObject({ input: { task: 'x\u0000y' }, output: null, completedAt: null });
    expect(b!.startedAt).toEqual(clock.now());
    expect(c).toMatchObject({ wakeAt, startedAt: null, completedAt: null });
    expect(d).toMatchObject({ error: 'bad 😀 "x"', output: null });
    expect(e!.error).toBe('nul\u0000here');
    // Half a pair is not text UTF-8 can hold: it reads back as the replacement character,
    // bound alone or escaped inside JSON text (output) alike (issue 31).
    expect(g!.error).toBe('half \ufffd');
    expect(h!.output).toBe('x\u0000\ufffd');
  });

  it('ends a run its worker holds as reading it back would give it', async () => {
    const definition = { id: 'wf', start: 'a', states: [{ id: 'a', type: 'inject', end: true }] };
    const wf = await store.workflows.upsert(environmentId, {
      workflowId: 'wf',
      name: 'WF',
      definition,
    });
    const start = () =>
      store.workflowRuns.create({
        workflowId: wf.id,
        workflowKey: 'wf',
        workflowName: 'WF',
        environmentId,
        definition,
        input: { n: 1 },
        claimedBy: { workerId: 'w1', leaseMs: 60_000 },
      });
    const run = await start();
    clock.advance(1_000);
    const done = await store.workflowRuns.finish(
      run.id,
      'w1',
      { status: 'completed', output: { ok: [1, 'two'] } },
      undefined,
      run,
    );
    expect(done).toEqual(await store.workflowRuns.get(run.id));
    expect(done).toMatchObject({ status: 'completed', workerId: null, wakeAt: null });
    // What others changed meanwhile is read back: a tool's current step, a removed workflow.
    const other = await start();
    const third = await start();
    await store.workflowRuns.update(other.id, { currentStep: 'a' });
    await store.workflows.delete(wf.id);
    const failed = await store.workflowRuns.finish(
      other.id,
      'w1',
      { status: 'failed', error: 'no' },
      undefined,
      other,
    );
    expect(failed).toEqual(await store.workflowRuns.get(other.id));
    expect(failed).toMatchObject({ currentStep: 'a', workflowId: null, error: 'no', output: null });
    // Not held by this worker: refused, as without the run in hand.
    await expect(
      store.workflowRuns.finish(third.id, 'w2', { status: 'completed' }, undefined, third),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('records each step attempt once, even when a resumed worker records it again', async () => {
    const run = await store.workflowRuns.create({ workflowKey: 'wf', workflowName: 'WF' });
    const first = await store.workflowSteps.start(run.id, {
      path: 'build#1',
      stepName: 'build',
      type: 'agent',
    });
    const again = await store.workflowSteps.start(run.id, {
      path: 'build#1',
      stepName: 'build',
      type: 'agent',
    });
    expect(again.id).toBe(first.id);
    const second = await store.workflowSteps.start(run.id, {
      path: 'build#1',
      attempt: 2,
      stepName: 'build',
      type: 'agent',
    });
    expect(second.id).not.toBe(first.id);
    const instant = await store.workflowSteps.start(run.id, {
      path: 'pick#1',
      stepName: 'pick',
      type: 'switch',
      status: 'completed',
      output: { next: 'b' },
    });
    expect(instant.completedAt).toEqual(clock.now());
  });

  it('decides an approval once and expires the ones past their timeout', async () => {
    const run = await store.workflowRuns.create({
      workflowKey: 'deploy',
      workflowName: 'Deploy',
      status: 'running',
    });
    const approval = await store.approvals.create({
      approvalId: `appr-${run.id}-approve`,
      workflowRunId: run.id,
      stepName: 'approve',
      message: 'Ship it?',
      approvers: ['ops@example.com'],
      timeoutSeconds: 60,
    });
    expect(approval).toMatchObject({
      status: 'pending',
      approvers: ['ops@example.com'],
      timeoutSeconds: 60,
      decidedAt: null,
    });
    expect(approval.expiresAt?.getTime()).toBe(clock.now().getTime() + 60_000);
    await expect(
      store.approvals.create({
        approvalId: approval.approvalId,
        workflowRunId: run.id,
        stepName: 'x',
      }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(
      store.approvals.create({ approvalId: 'appr-x', workflowRunId: 999, stepName: 'x' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });

    const approved = await store.approvals.decide(approval.approvalId, {
      decision: 'approved',
      decidedBy: 'alice',
      comment: 'go',
    });
    expect(approved).toMatchObject({
      status: 'approved',
      decidedBy: 'alice',
      comment: 'go',
      decidedAt: clock.now(),
    });
    await expect(
      store.approvals.decide(approval.approvalId, { decision: 'rejected' }),
    ).rejects.toMatchObject({
      code: 'CONFLICT',
      details: { status: 'approved' },
    });
    await expect(
      store.approvals.decide('appr-missing', { decision: 'approved' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });

    const slow = await store.approvals.create({
      approvalId: 'appr-slow',
      workflowRunId: run.id,
      stepName: 's',
      timeoutSeconds: 10,
    });
    const late = await store.approvals.create({
      approvalId: 'appr-late',
      workflowRunId: run.id,
      stepName: 'l',
      timeoutSeconds: 10,
    });
    const open = await store.approvals.create({
      approvalId: 'appr-open',
      workflowRunId: run.id,
      stepName: 'o',
    });
    clock.advance(10_000);
    // Past its deadline an approval cannot be decided, even before the sweeper runs.
    await expect(
      store.approvals.decide(late.approvalId, { decision: 'approved' }),
    ).rejects.toMatchObject({
      code: 'CONFLICT',
      details: { status: 'timed_out' },
    });
    const expired = await store.approvals.expireDue();
    expect(expired.map((a) => a.approvalId)).toEqual([slow.approvalId]);
    expect((await store.approvals.list({ status: 'pending' })).map((a) => a.approvalId)).toEqual([
      open.approvalId,
    ]);
    expect(await store.approvals.get('appr-slow')).toMatchObject({ status: 'timed_out' });
  });

  it("keeps one schedule per agent or workflow; records each fire once; sync keeps an operator's", async () => {
    const agent = await store.agents.create(environmentId, { name: 'nightly' });
    const idle = await store.agents.create(environmentId, { name: 'idle' });
    const target = { kind: 'agent' as const, id: agent.id, name: 'nightly', environmentId };
    const due = await store.schedules.set(target, {
      cron: '0 2 * * *',
      variables: { X: '1' },
      origin: 'file',
      nextRunAt: clock.now(),
    });
    await store.schedules.set(
      { kind: 'agent', id: idle.id, name: 'idle', environmentId },
      { cron: '0 3 * * *', origin: 'file', nextRunAt: new Date(clock.now().getTime() + 3_600_000) },
    );
    expect(due).toMatchObject({
      kind: 'agent',
      target: 'nightly',
      enabled: true,
      variables: { X: '1' },
      catchUp: 'once',
      overlap: 'skip',
    });
    expect((await store.schedules.due()).map((s) => s.id)).toEqual([due.id]);
    expect(await store.schedules.countDue()).toBe(1);
    // A fire moves the next time only from the one its firer read: recorded once.
    const next = new Date(clock.now().getTime() + 86_400_000);
    const fired = { nextRunAt: next, lastRunAt: clock.now(), lastOutcome: 'started' as const };
    expect(await store.schedules.advance(due.id, clock.now(), { ...fired, lastRunId: 7 })).toBe(
      true,
    );
    expect(await store.schedules.advance(due.id, clock.now(), fired)).toBe(false);
    expect(await store.schedules.get(due.id)).toMatchObject({ nextRunAt: next, lastRunId: 7 });
    expect(await store.schedules.countDue()).toBe(0);
    // The soonest enabled schedule is now the other one, an hour away.
    expect(await store.schedules.soonest()).toEqual(new Date(clock.now().getTime() + 3_600_000));
    // Set again with the same times (a sync), a due fire keeps its time; new times move it.
    await store.schedules.advance(due.id, next, { nextRunAt: clock.now(), lastOutcome: 'started' });
    const again = await store.schedules.set(target, {
      cron: '0 2 * * *',
      variables: { X: '2' },
      origin: 'file',
      nextRunAt: next,
    });
    expect(again).toMatchObject({ nextRunAt: clock.now(), variables: { X: '2' } });
    const moved = await store.schedules.set(target, {
      cron: '0 4 * * *',
      origin: 'file',
      nextRunAt: next,
    });
    expect(moved.nextRunAt).toEqual(next);
    // An operator's schedule is kept by a sync; a file's is replaced.
    await store.schedules.set(target, { cron: '*/5 * * * *', origin: 'operator', nextRunAt: next });
    const synced = await store.schedules.set(
      target,
      { cron: '0 2 * * *', origin: 'file', nextRunAt: next },
      { keepOperator: true },
    );
    expect(synced).toMatchObject({ cron: '*/5 * * * *', origin: 'operator' });
    // A sync drops file schedules whose block went away; operators' stay.
    expect(await store.schedules.removeFileSchedulesExcept('agent', environmentId, [])).toBe(1);
    expect((await store.schedules.list()).map((s) => s.target)).toEqual(['nightly']);
    await expect(
      store.schedules.set(
        { kind: 'agent', id: 999, name: 'ghost', environmentId },
        { cron: '* * * * *', origin: 'operator', nextRunAt: null },
      ),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // Deleting the agent deletes its schedule.
    await store.agents.delete(agent.id);
    expect(await store.schedules.list()).toEqual([]);
  });

  it('gives a named lease to one owner at a time, taken over once it runs out', async () => {
    expect(await store.leases.acquire('scheduler', 'proc-a', 10_000)).toBe(true);
    expect(await store.leases.acquire('scheduler', 'proc-b', 10_000)).toBe(false);
    clock.advance(5_000);
    expect(await store.leases.acquire('scheduler', 'proc-a', 10_000)).toBe(true); // renewed
    const held = await store.leases.get('scheduler');
    expect(held).toMatchObject({ owner: 'proc-a' });
    clock.advance(9_000);
    expect(await store.leases.acquire('scheduler', 'proc-b', 10_000)).toBe(false);
    clock.advance(1_001);
    expect(await store.leases.acquire('scheduler', 'proc-b', 10_000)).toBe(true); // taken over
    expect(await store.leases.release('scheduler', 'proc-a')).toBe(false);
    expect(await store.leases.release('scheduler', 'proc-b')).toBe(true);
    expect(await store.leases.acquire('scheduler', 'proc-a', 10_000)).toBe(true);
  });
});
