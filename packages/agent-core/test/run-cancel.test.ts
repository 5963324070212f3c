// Cancelling a run (issue 16): queued runs end at once; a running run stops its model call at
// once, lets a tool call in flight return, and ends `cancelled` — in this process through the
// door, in another process when its worker next looks (about a second).
import { afterEach, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore, type Agent, type Run, type Store } from '@junction/store';
import { syncEnvironment } from '../src/sync/sync-environment.js';
import { RunWorkers } from '../src/runs/run-workers.js';
import { createRunDoor, type RunDoor } from '../src/runs/run-door.js';
import { CANCELLED_MESSAGE } from '../src/runs/lease.js';
import { createHarness, type Harness } from './run-harness.js';
import { eventually } from '@junction/tooling/fixtures/eventually.mjs';

const workerScript = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  'fixtures',
  'queue-worker.mjs',
);

let h: Harness | undefined;
let workers: RunWorkers | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
  await workers?.stop({ drainMs: 100 });
  workers = undefined;
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  await h?.close();
  h = undefined;
});

/** Workers on the harness store and the door over them, as every app builds them. */
function doorOver(harness: Harness, store: Store = harness.store): RunDoor {
  workers = new RunWorkers({
    store,
    runner: harness.runner,
    logger: harness.logger,
    pollMs: 20,
    concurrency: 2,
  });
  return createRunDoor({
    store,
    checkModel: () => undefined,
    dispatch: workers,
    endings: workers,
    canceller: workers,
  });
}

const until = eventually;

describe('cancelling a run', () => {
  it('ends a queued run cancelled at once, and audits who asked', async () => {
    h = await createHarness();
    h.agent('waiter', 'model: openai/gpt-test');
    await h.sync();
    const door = doorOver(h); // workers not started: the run stays queued
    const { run } = await door.submit({ agent_name: 'waiter', task: 'later', source: 'api' });
    expect(run.status).toBe('queued');
    const cancelled = await door.cancel(run.id, { source: 'cli', actor: 'ops' });
    expect(cancelled.ended).toBe(true);
    expect(cancelled.run).toMatchObject({ status: 'cancelled', error: CANCELLED_MESSAGE });
    await h.store.auditLog.flush();
    const [entry] = await h.store.auditLog.list({ action: 'cancel_run' });
    expect(entry).toMatchObject({ source: 'cli', actor: 'ops', outcome: 'success' });
    expect(entry?.arguments).toEqual({ run_id: run.id });
    // Started now, the workers never run it.
    await workers!.start();
    await new Promise((r) => setTimeout(r, 100));
    expect(h.fake.requests.length).toBe(0);
  });

  it('stops a run waiting on a slow model at once and ends it cancelled', async () => {
    h = await createHarness();
    h.agent('thinker', 'model: openai/gpt-test');
    await h.sync();
    const door = doorOver(h);
    await workers!.start();
    h.fake.script([{ delayMs: 20_000, text: 'far too late' }]);
    const { run } = await door.submit({ agent_name: 'thinker', task: 'think', source: 'api' });
    await until('the model call', async () => (h!.fake.requests.length > 0 ? true : undefined));
    const t0 = Date.now();
    const { run: ended, ended: done } = await door.cancel(run.id);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(done).toBe(true);
    expect(ended).toMatchObject({ id: run.id, status: 'cancelled', error: CANCELLED_MESSAGE });
    expect(ended.cancelRequestedAt).toBeInstanceOf(Date);
    const events = await h.store.runEvents.list(run.id);
    expect(events.at(-1)).toMatchObject({
      type: 'run_error',
      payload: { message: CANCELLED_MESSAGE, status: 'cancelled' },
    });
    // Logged as what it is: cancelled, at info, not a failed run.
    const lines = h.logLines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const end = lines.find((l) => l.run_id === run.id && l.msg === 'run cancelled');
    expect(end).toMatchObject({ level: 'info', status: 'cancelled', run_status: 'cancelled' });
    expect(lines.some((l) => l.run_id === run.id && l.msg === 'run failed')).toBe(false);
    // Cancelling again says it already ended.
    await expect(door.cancel(run.id)).rejects.toMatchObject({
      code: 'RUN_ENDED',
      details: { run_id: run.id, status: 'cancelled' },
    });
  });

  it('lets the tool call in flight return, then ends cancelled without another model call', async () => {
    h = await createHarness();
    h.agent('toolish', 'model: openai/gpt-test\ntools: [slow]');
    await h.sync();
    const door = doorOver(h);
    await workers!.start();
    h.fake.script([
      { toolCalls: [{ name: 'slow', arguments: { ms: 1200 } }] },
      { text: 'should never be asked' },
    ]);
    const { run } = await door.submit({ agent_name: 'toolish', task: 'wait', source: 'api' });
    await until('the tool call to start', async () =>
      (await h!.store.runs.get(run.id))?.actedAt ? true : undefined,
    );
    const { run: ended } = await door.cancel(run.id, { waitMs: 10_000 });
    expect(ended.status).toBe('cancelled');
    const toolCall = (await h.store.runEvents.list(run.id)).find((e) => e.type === 'tool_call');
    expect(toolCall?.payload).toMatchObject({
      tool: 'slow',
      success: true,
      result: 'waited 1200 ms',
    });
    expect(toolCall?.durationMs).toBeGreaterThanOrEqual(1000);
    expect(h.fake.requests.length).toBe(1);
  });

  it('cancelling a parent run cancels the sub-agent run it waits on', async () => {
    h = await createHarness();
    h.agent('helper', 'model: openai/gpt-test');
    h.agent('boss', 'model: openai/gpt-test\nagents: [helper]');
    await h.sync();
    const door = doorOver(h);
    await workers!.start();
    h.fake.script([
      { toolCalls: [{ name: 'agent_helper', arguments: { task: 'slow part' } }] },
      { delayMs: 20_000, text: 'too late' },
    ]);
    const { run } = await door.submit({ agent_name: 'boss', task: 'delegate', source: 'api' });
    const child = await until('the child run to call its model', async () =>
      h!.fake.requests.length >= 2
        ? (await h!.store.runs.list({ parentRunId: run.id }))[0]
        : undefined,
    );
    const { run: ended } = await door.cancel(run.id);
    expect(ended.status).toBe('cancelled');
    expect((await h.store.runs.get(child.id))?.status).toBe('cancelled');
  });

  it('a run executed by another process stops within about a second of the request', async () => {
    h = await createHarness();
    const shared = await openStore({ url: path.join(h.home, 'junction.db') });
    try {
      h.agent('remote', 'model: openai/gpt-test');
      await syncEnvironment({
        workspace: h.workspace,
        store: shared,
        pool: h.pool,
        environment: 'default',
        processEnv: {},
      });
      const env = await shared.environments.getByName('default');
      const agent = (await shared.agents.getByName(env!.id, 'remote')) as Agent;
      h.fake.script([{ delayMs: 30_000, text: 'far too late' }]);
      const child = spawn(
        process.execPath,
        [workerScript, path.join(h.home, 'junction.db'), h.home, h.fake.url, 'hold', '1'],
        { stdio: ['ignore', 'pipe', 'pipe'], cwd: path.dirname(workerScript) },
      );
      children.push(child);
      // This process only submits and cancels: no workers, no canceller.
      const door = createRunDoor({ store: shared, checkModel: () => undefined });
      const { run } = await door.submit({ agent_id: agent.id, task: 'elsewhere', source: 'api' });
      await until('the other process to call the model', async () => {
        const current = await shared.runs.get(run.id);
        return current?.status === 'running' && h!.fake.requests.length > 0 ? true : undefined;
      });
      const t0 = Date.now();
      const { run: ended, ended: done }: { run: Run; ended: boolean } = await door.cancel(run.id);
      const took = Date.now() - t0;
      expect(done).toBe(true);
      expect(ended).toMatchObject({ status: 'cancelled', error: CANCELLED_MESSAGE });
      expect(took).toBeLessThan(10_000);
    } finally {
      await shared.close();
    }
  });

  it('says what is wrong for an unknown run', async () => {
    h = await createHarness();
    const door = doorOver(h);
    await expect(door.cancel(4242)).rejects.toMatchObject({
      code: 'RUN_NOT_FOUND',
      details: { run_id: 4242 },
    });
  });
});
