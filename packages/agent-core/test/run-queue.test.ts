import os from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore, type Agent, type Run, type Store } from '@junction/store';
import { syncEnvironment } from '../src/sync/sync-environment.js';
import {
  deadOnThisHost,
  newWorkerId,
  RunWorkers,
  type RunWorkersOptions,
} from '../src/runs/run-workers.js';
import { submitRun, waitForRun, type WaitOptions } from '../src/runs/submit-run.js';
import type { RunSource } from '@junction/store';

// The workers under test, with the store each was built on, so runs are submitted through the
// one door (submitRun) with these workers as its dispatch, as every app does.
const storeOf = new WeakMap<RunWorkers, Store>();
function newWorkers(options: RunWorkersOptions): RunWorkers {
  const workers = new RunWorkers(options);
  storeOf.set(workers, options.store);
  return workers;
}
async function enqueue(
  workers: RunWorkers,
  input: {
    agent: { id: number };
    task: string;
    source: RunSource;
    variables?: Record<string, string>;
    timeout_seconds?: number;
  },
): Promise<Run> {
  const { run } = await submitRun(
    { store: storeOf.get(workers) as Store, checkModel: () => undefined, dispatch: workers },
    {
      agent_id: input.agent.id,
      task: input.task,
      source: input.source,
      variables: input.variables,
      timeout_seconds: input.timeout_seconds,
    },
  );
  return run;
}
function waitOn(workers: RunWorkers, runId: number, options: WaitOptions): Promise<Run> {
  return waitForRun(storeOf.get(workers) as Store, runId, options, workers);
}
import { createHarness, type Harness } from './run-harness.js';
import { eventually } from '@junction/tooling/fixtures/eventually.mjs';

const workerScript = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  'fixtures',
  'queue-worker.mjs',
);

let h: Harness;
let queue: RunWorkers | undefined;
const children: ChildProcess[] = [];

beforeEach(async () => {
  queue = undefined;
});
afterEach(async () => {
  await queue?.stop({ drainMs: 100 });
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  await h?.close();
});

function worker(
  mode: 'drain' | 'hold',
  concurrency = 4,
): { child: ChildProcess; output: Promise<string>; started: Promise<void> } {
  const child = spawn(
    process.execPath,
    [workerScript, path.join(h.home, 'junction.db'), h.home, h.fake.url, mode, String(concurrency)],
    { stdio: ['ignore', 'pipe', 'pipe'], cwd: path.dirname(workerScript) },
  );
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  let onStart: () => void;
  const started = new Promise<void>((resolve) => (onStart = resolve));
  child.stdout!.on('data', (d: string) => {
    out += d;
    if (out.includes('STARTED')) onStart();
  });
  const output = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker timed out: ${out} ${err}`)), 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`worker exited ${code}: ${err}`));
    });
  });
  return { child, output, started };
}

/** A queue on the harness store with a single, quickly polling worker. */
function oneWorkerQueue(): RunWorkers {
  return newWorkers({
    store: h.store,
    runner: h.runner,
    logger: h.logger,
    pollMs: 20,
    concurrency: 1,
  });
}

/** A file store the worker processes share, synced, with one agent. */
async function sharedStoreWith(agentName: string): Promise<{ shared: Store; agent: Agent }> {
  const shared = await openStore({ url: path.join(h.home, 'junction.db') });
  h.agent(agentName, 'model: openai/gpt-test');
  await syncEnvironment({
    workspace: h.workspace,
    store: shared,
    pool: h.pool,
    environment: 'default',
    processEnv: {},
  });
  const env = await shared.environments.getByName('default');
  return { shared, agent: (await shared.agents.getByName(env!.id, agentName))! };
}

const waitFor = eventually;

describe('RunWorkers', () => {
  it('enqueue returns a queued run at once; workers run it and report it finished', async () => {
    h = await createHarness();
    h.agent('echoer', 'model: openai/gpt-test');
    await h.sync();
    const finished: Run[] = [];
    queue = newWorkers({
      store: h.store,
      runner: h.runner,
      logger: h.logger,
      pollMs: 20,
      onFinished: (r) => void finished.push(r),
    });
    const run = await enqueue(queue, { agent: await h.get('echoer'), task: 'hi', source: 'api' });
    expect(run.status).toBe('queued');
    h.fake.script([{ text: 'hello back' }]);
    await queue.start();
    const done = await waitFor('the run to finish', async () =>
      finished.length ? finished[0] : undefined,
    );
    expect(done).toMatchObject({
      id: run.id,
      status: 'completed',
      finalResponse: 'hello back',
      source: 'api',
    });
  });

  it('a run-finished callback that throws is logged as such; the run stays completed', async () => {
    h = await createHarness();
    h.agent('echoer', 'model: openai/gpt-test');
    await h.sync();
    let calls = 0;
    queue = newWorkers({
      store: h.store,
      runner: h.runner,
      logger: h.logger,
      pollMs: 20,
      onFinished: () => {
        calls += 1;
        throw new Error('subscriber broke');
      },
    });
    h.fake.script([{ text: 'fine' }]);
    await queue.start();
    const run = await enqueue(queue, { agent: await h.get('echoer'), task: 'hi', source: 'api' });
    await waitFor('the callback', async () => (calls > 0 ? true : undefined));
    await queue.stop({ drainMs: 1000 });
    expect(await h.store.runs.get(run.id)).toMatchObject({ status: 'completed', error: null });
    const log = h.logLines.join('');
    expect(log).toContain('the run-finished callback failed');
    expect(log).toContain('subscriber broke');
    expect(log).not.toContain('run execution crashed');
  });

  it('waitFor resolves with the finished run, or with the current one at its timeout', async () => {
    h = await createHarness();
    h.agent('echoer', 'model: openai/gpt-test');
    await h.sync();
    queue = oneWorkerQueue();
    await queue.start();
    h.fake.script([
      { delayMs: 300, text: 'done' },
      { delayMs: 3_000, text: 'slow' },
    ]);
    const agent = await h.get('echoer');
    const run = await enqueue(queue, { agent, task: 'a', source: 'mcp' });
    expect(await waitOn(queue, run.id, { timeoutMs: 10_000 })).toMatchObject({
      id: run.id,
      status: 'completed',
      finalResponse: 'done',
    });
    const slow = await enqueue(queue, { agent, task: 'b', source: 'mcp' });
    // Still running: waitOn answered at its own time-out, not at the run's end.
    const pending = await waitOn(queue, slow.id, { timeoutMs: 300 });
    expect(pending.status).toBe('running');
    await expect(waitOn(queue, 424_242, { timeoutMs: 100 })).rejects.toThrow(
      /No run has id 424242/,
    );
  });

  it('waitFor sees a run finished by another process through the store', async () => {
    h = await createHarness();
    const { shared, agent } = await sharedStoreWith('remote');
    try {
      const watcher = newWorkers({ store: shared, runner: h.runner, logger: h.logger });
      const run = await enqueue(watcher, { agent, task: 'elsewhere', source: 'mcp' });
      // Ended by someone else (as a worker of another process would), not by this queue.
      setTimeout(() => {
        void shared.runs
          .claim(run.id, 'other-process', 60_000)
          .then(() => shared.runs.markCompleted(run.id, { finalResponse: 'from afar' }));
      }, 200);
      const done = await waitOn(watcher, run.id, { timeoutMs: 5_000, pollMs: 50 });
      expect(done).toMatchObject({ status: 'completed', finalResponse: 'from afar' });
    } finally {
      await shared.close();
    }
  });

  it('two processes sharing one store drain 20 runs and none runs twice', async () => {
    h = await createHarness();
    const { shared, agent } = await sharedStoreWith('echoer');
    const producer = newWorkers({ store: shared, runner: h.runner, logger: h.logger });
    // Both workers are polling before the runs appear, and each model answer takes 150 ms,
    // so neither can drain all 20 alone before the other looks (3 runs at a time each).
    const a = worker('drain', 3);
    const b = worker('drain', 3);
    await Promise.all([a.started, b.started]);
    h.fake.script(Array.from({ length: 20 }, () => ({ delayMs: 150 })));
    const ids: number[] = [];
    for (let i = 0; i < 20; i++)
      ids.push((await enqueue(producer, { agent, task: `task ${i}`, source: 'api' })).id);

    const outputs = await Promise.all([a.output, b.output]);
    const reports = outputs.map(
      (o) => JSON.parse(/DONE (.*)/.exec(o)![1]!) as { workerId: string; finished: number[] },
    );
    const all = reports.flatMap((r) => r.finished).sort((x, y) => x - y);
    expect(all).toEqual(ids);
    expect(reports.every((r) => r.finished.length > 0)).toBe(true);
    for (const id of ids) {
      const run = (await shared.runs.get(id))!;
      expect(run.status).toBe('completed');
      expect(run.finalResponse).toBe(`echo: ${run.task}`);
      const events = await shared.runEvents.list(id);
      expect(events.filter((e) => e.type === 'model_turn')).toHaveLength(1);
    }
    expect(h.fake.requests).toHaveLength(20);
    await shared.close();
  });

  // Regression (issue 13, item 4): after a crash every interrupted run was failed, also those
  // that had started no tool call; one rule now serves crashes and graceful stops alike. Since
  // issue 32 a run that had acted is resumed from its journal too.
  it('recovers runs left running by a killed process: each is resumed by the next process', async () => {
    h = await createHarness();
    const { shared, agent } = await sharedStoreWith('hanger');
    h.fake.script([
      { hang: true },
      { hang: true },
      { text: 'second attempt' },
      { text: 'second attempt' },
    ]);
    const producer = newWorkers({ store: shared, runner: h.runner, logger: h.logger });
    const quiet = await enqueue(producer, { agent, task: 'hang before any tool', source: 'api' });
    const acted = await enqueue(producer, { agent, task: 'hang after a tool', source: 'api' });
    const w = worker('hold');
    w.output.catch(() => undefined); // it is killed on purpose
    await w.started;
    const holder = await waitFor('the worker to claim both runs', async () => {
      const [a, b] = [await shared.runs.get(quiet.id), await shared.runs.get(acted.id)];
      return a?.status === 'running' && b?.status === 'running' && h.fake.requests.length === 2
        ? (b.workerId as string)
        : undefined;
    });
    // As the runner records before its first tool call is sent.
    expect(await shared.runEvents.record(acted.id, [], undefined, { workerId: holder })).toBe(true);
    w.child.kill('SIGKILL');
    await new Promise((r) => w.child.once('exit', r));

    // The next process to start recovers both and resumes them (neither had a journaled turn).
    const next = worker('drain');
    const done = JSON.parse((await next.output).split('DONE ')[1]!) as { finished: number[] };
    for (const id of [quiet.id, acted.id]) {
      expect(await shared.runs.get(id)).toMatchObject({
        status: 'completed',
        finalResponse: 'second attempt',
        attempt: 2,
      });
      expect((await shared.runEvents.list(id)).map((e) => e.type)).toEqual(
        expect.arrayContaining(['attempt_ended', 'resumed']),
      );
    }
    expect(done.finished.sort()).toEqual([quiet.id, acted.id].sort());
    expect(h.fake.requests).toHaveLength(4);
    await shared.close();
  });

  // Regression (issue 13, item 5): a dead worker of the same host was found by pid only at
  // start-up; a running peer waited for its 30 s sweep.
  it('recovers a run of a dead worker of this host on the next idle poll, not the next sweep', async () => {
    h = await createHarness();
    h.agent('echoer', 'model: openai/gpt-test');
    await h.sync();
    const agent = await h.get('echoer');
    const told: Run[] = [];
    queue = newWorkers({
      store: h.store,
      runner: h.runner,
      logger: h.logger,
      pollMs: 50,
      sweepMs: 600_000,
      // Its one attempt is used: recovery ends it, so the test sees the recovery itself.
      maxAttempts: 1,
      onFinished: (r) => void told.push(r),
    });
    await queue.start();
    // A worker of this host whose process has exited, holding a run with a long lease.
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid;
    const orphan = await h.store.runs.create({
      agentId: agent.id,
      agentName: agent.name,
      task: 'orphan',
      source: 'api',
      claimedBy: { workerId: newWorkerId().replace(/:\d+:/, `:${deadPid}:`), leaseMs: 600_000 },
    });
    const failed = await waitFor('the orphan to be recovered', async () => {
      const run = await h.store.runs.get(orphan.id);
      return run?.status === 'error' ? run : undefined;
    });
    expect(failed.error).toMatch(/used all 1 of its attempts/);
    expect(told).toEqual([expect.objectContaining({ id: orphan.id, status: 'error' })]);
  });

  // Regression (issue 32): a run whose worker died on another host waited, after its lease had
  // run out, for the next sweep (every 30 s) of a worker still running; "the lease plus one poll"
  // is the promise.
  it('resumes a run whose worker died on another host at the next idle poll after its lease ran out, not the next sweep', async () => {
    h = await createHarness();
    h.agent('echoer', 'model: openai/gpt-test');
    await h.sync();
    const agent = await h.get('echoer');
    queue = newWorkers({
      store: h.store,
      runner: h.runner,
      logger: h.logger,
      pollMs: 50,
      sweepMs: 600_000,
    });
    await queue.start();
    // Held by a worker of another host (its pid says nothing here) whose lease runs out soon.
    const elsewhere = 'another-host:1:dead01';
    const orphan = await h.store.runs.create({
      agentId: agent.id,
      agentName: agent.name,
      task: 'orphan',
      source: 'api',
      claimedBy: { workerId: elsewhere, leaseMs: 300 },
    });
    const resumed = await waitFor('the orphan to be resumed here', async () => {
      const run = await h.store.runs.get(orphan.id);
      return run?.status === 'completed' ? run : undefined;
    });
    expect(resumed).toMatchObject({ attempt: 2, workerId: queue.workerId });
    const ended = await h.store.runEvents.list(orphan.id, { type: 'attempt_ended' });
    expect(ended.map((e) => e.payload)).toEqual([
      expect.objectContaining({ attempt: 1, worker_id: elsewhere, reason: 'lease lost' }),
    ]);
  });

  it('a run enqueued while the queue stops is left queued, not started after the drain', async () => {
    h = await createHarness();
    h.agent('late', 'model: openai/gpt-test');
    await h.sync();
    queue = oneWorkerQueue();
    await queue.start();
    const agent = await h.get('late');
    // Enqueue takes the idle worker, then stop begins before the run is written.
    const pending = enqueue(queue, { agent, task: 'late', source: 'api' });
    const stopped = queue.stop({ drainMs: 5_000 });
    const run = await pending;
    await stopped;
    queue = undefined;
    expect(run.status).toBe('queued');
    expect(await h.store.runs.get(run.id)).toMatchObject({ status: 'queued', workerId: null });
    expect(h.fake.requests).toHaveLength(0);
  });

  it('a run submitted with a timeout keeps it when a worker elsewhere executes it', async () => {
    h = await createHarness();
    h.agent('sleepy', 'model: openai/gpt-test');
    await h.sync();
    queue = oneWorkerQueue();
    h.fake.script([{ delayMs: 3_000, text: 'too slow' }]);
    // Written queued (the workers are not started), so the submitter does not execute it.
    const run = await enqueue(queue, {
      agent: await h.get('sleepy'),
      task: 'sleep',
      source: 'api',
      timeout_seconds: 0.3,
    });
    expect(run).toMatchObject({ status: 'queued', timeoutMs: 300 });
    await queue.start();
    const ended = await waitOn(queue, run.id, { timeoutMs: 10_000 });
    expect(ended.status).toBe('timeout');
    expect(ended.error).toContain('timed out after 300 ms');
  });

  it('graceful stop finishes short runs and re-queues runs that outlast the drain', async () => {
    h = await createHarness();
    h.agent('sleepy', 'model: openai/gpt-test');
    await h.sync();
    queue = oneWorkerQueue();
    h.fake.script([{ delayMs: 3_000, text: 'slow answer' }]);
    const run = await enqueue(queue, {
      agent: await h.get('sleepy'),
      task: 'sleep',
      source: 'api',
    });
    await queue.start();
    await waitFor('the run to start', async () =>
      (await h.store.runs.get(run.id))?.status === 'running' ? true : undefined,
    );
    const result = await queue.stop({ drainMs: 200 });
    queue = undefined;
    expect(result.requeued).toBe(1);
    expect(await h.store.runs.get(run.id)).toMatchObject({
      status: 'queued',
      workerId: null,
      actedAt: null,
    });
    // Put back, not failed: no failure logged or counted.
    const log = h.logLines.join('');
    expect(log).toContain('run re-queued');
    expect(log).not.toContain('run failed');
    expect(await h.metrics.renderPrometheus()).not.toMatch(/agent_runs_failed\{/);
  });

  // Regression (issue 13, item 4): a graceful stop re-queued a run that had already called a
  // tool, and it ran again from the start: the tool was called twice. Issue 32: it is resumed
  // from its journal, so the tool is not called again and turn 1 is not asked again.
  it('on a graceful stop after a tool call, hands the run over; the next attempt resumes it after the call', async () => {
    h = await createHarness();
    h.agent('toolish', 'model: openai/gpt-test\ntools: [echo]');
    await h.sync();
    queue = oneWorkerQueue();
    h.fake.script([
      { toolCalls: [{ name: 'echo', arguments: { text: 'side effect' } }] },
      { delayMs: 3_000, text: 'too late' },
      { text: 'resumed' },
    ]);
    const run = await enqueue(queue, { agent: await h.get('toolish'), task: 'act', source: 'api' });
    await queue.start();
    await waitFor('the tool call to be made', async () =>
      h.fake.requests.length >= 2 ? true : undefined,
    );
    // Recorded in the store before the call was sent, so a crash now would not re-run it either.
    const acting = await h.store.runs.get(run.id);
    expect(acting?.actedAt).toBeInstanceOf(Date);
    const toolEvent = (await h.store.runEvents.list(run.id)).find((e) => e.type === 'tool_call');
    if (toolEvent)
      expect(acting!.actedAt!.getTime()).toBeLessThanOrEqual(toolEvent.createdAt.getTime());
    const result = await queue.stop({ drainMs: 200 });
    expect(result.requeued).toBe(1);
    expect(await h.store.runs.get(run.id)).toMatchObject({ status: 'queued', workerId: null });
    queue = oneWorkerQueue();
    await queue.start();
    const done = await waitOn(queue, run.id, { timeoutMs: 30_000 });
    expect(done).toMatchObject({ status: 'completed', finalResponse: 'resumed', attempt: 2 });
    const types = (await h.store.runEvents.list(run.id)).map((e) => e.type);
    expect(types.filter((t) => t === 'tool_call')).toHaveLength(1);
    // Turn 1 once; turn 2 once cut by the stop, once answered.
    expect(h.fake.requests).toHaveLength(3);
  });

  it('on a graceful stop mid sub-agent, lets the child finish and hands the parent over (never runs either twice)', async () => {
    h = await createHarness();
    h.agent('helper', 'model: openai/gpt-test');
    h.agent('boss', 'model: openai/gpt-test\nagents: [helper]');
    await h.sync();
    queue = oneWorkerQueue();
    h.fake.script([
      { toolCalls: [{ name: 'agent_helper', arguments: { task: 'slow part' } }] },
      { delayMs: 1_500, text: 'child done' },
      { text: 'boss done' },
    ]);
    const run = await enqueue(queue, {
      agent: await h.get('boss'),
      task: 'delegate',
      source: 'api',
    });
    await queue.start();
    const child = await waitFor(
      'the child run to start',
      async () => (await h.store.runs.list({ parentRunId: run.id }))[0],
    );
    const result = await queue.stop({ drainMs: 200 });
    expect(result.requeued).toBe(1);
    expect(await h.store.runs.get(child.id)).toMatchObject({
      status: 'completed',
      finalResponse: 'child done',
    });
    queue = oneWorkerQueue();
    await queue.start();
    const done = await waitOn(queue, run.id, { timeoutMs: 30_000 });
    expect(done).toMatchObject({ status: 'completed', finalResponse: 'boss done' });
    expect(await h.store.runs.list({ parentRunId: run.id })).toHaveLength(1);
    expect(h.fake.requests).toHaveLength(3);
  });
});

describe('a worker of this host seen dead', () => {
  it('is one whose pid is gone in this pid namespace; never one of another namespace sharing the host name', () => {
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid;
    const mine = newWorkerId();
    expect(mine).toMatch(new RegExp(`^${os.hostname()}:${process.pid}:[0-9a-f]{6}(\\.\\d+)?$`));
    const dead = mine.replace(/:\d+:/, `:${deadPid}:`);
    expect(deadOnThisHost(dead)).toBe(true);
    // A workflow worker's id (`…:wf`) too.
    expect(deadOnThisHost(`${dead}:wf`)).toBe(true);
    expect(deadOnThisHost(mine)).toBe(false);
    // The same host name in another pid namespace (containers on host networking): its pids
    // are not this namespace's, so it is never taken for dead — its lease decides.
    const [host, , id] = dead.split(':');
    expect(deadOnThisHost(`${host}:${deadPid}:${id!.split('.')[0]}.1`)).toBe(false);
    expect(deadOnThisHost(`another-host:${deadPid}:${id}`)).toBe(false);
    expect(deadOnThisHost(null)).toBe(false);
  });
});
