// The scheduler against a real store file, with an injected clock where a test would otherwise
// wait minutes. Runs go through the real run door (written to the store, source cron_scheduler).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createRunDoor } from '@junction/agent-core/runs';
import { AgentCoreError } from '@junction/agent-core';
import { openStore, type Agent, type Store } from '@junction/store';
import { createLogger, createTracing, type Tracer } from '@junction/telemetry';
import { Writable } from 'node:stream';
import { eventually } from '@junction/tooling/fixtures/eventually.mjs';
import { Scheduler, setSchedule, type FireOutcome, type SchedulerError } from '../src/index.js';

let dir: string;
let store: Store;
let agent: Agent;
let clock: { at: number; now: () => Date };
let modelOk: boolean;
const errors: SchedulerError[] = [];
const fires: FireOutcome[] = [];
const logLines: string[] = [];
const logger = createLogger({
  level: 'debug',
  format: 'json',
  stream: new Writable({
    write(chunk: Buffer, _e, done): void {
      logLines.push(chunk.toString());
      done();
    },
  }),
  env: {},
});

function scheduler(owner = 'proc-a', extra: { leaseMs?: number; tracer?: Tracer } = {}): Scheduler {
  return new Scheduler({
    store,
    runs: createRunDoor({
      store,
      checkModel: () => {
        if (!modelOk) {
          throw new AgentCoreError(
            'MODEL_API_KEY_MISSING',
            'Set OPENAI_API_KEY to run openai models.',
          );
        }
      },
    }),
    logger,
    owner,
    now: clock.now,
    onError: (e) => errors.push(e),
    onFire: (f) => fires.push(f),
    ...extra,
  });
}

const at = (iso: string): number => new Date(iso).getTime();

/** The reporter agent's daily 09:00 schedule, with the clock just past its first fire. */
async function dueReporter(): ReturnType<typeof setSchedule> {
  const schedule = await setSchedule(
    store,
    { name: 'reporter' },
    { cron: '0 9 * * *' },
    clock.now(),
  );
  clock.at = at('2026-03-02T09:00:01.000Z');
  return schedule;
}

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'junction-sched-'));
  store = await openStore({ url: `file:${path.join(dir, 'junction.db')}` });
  clock = { at: at('2026-03-02T08:59:59.500Z'), now: () => new Date(clock.at) };
  const env = await store.environments.ensure('default');
  agent = await store.agents.upsert(env.id, {
    name: 'reporter',
    promptPath: '/reporter.prompt',
    description: 'Daily report',
  });
  modelOk = true;
  errors.length = 0;
  fires.length = 0;
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the scheduler', () => {
  it('fires a schedule at its time, once, through the run door, and counts the next time from then', async () => {
    const schedule = await setSchedule(
      store,
      { name: 'reporter' },
      { cron: '0 9 * * *', timezone: 'UTC', variables: { region: 'eu' } },
      clock.now(),
    );
    expect(schedule.nextRunAt?.toISOString()).toBe('2026-03-02T09:00:00.000Z');
    const s = scheduler();
    expect(await s.tick()).toBeLessThanOrEqual(1000);
    expect(await store.runs.list()).toHaveLength(0);
    clock.at = at('2026-03-02T09:00:00.300Z'); // within a second of its time
    await s.tick();
    const runs = await store.runs.list();
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      agentId: agent.id,
      source: 'cron_scheduler',
      status: 'queued',
      task: 'Scheduled execution: Daily report',
      variables: {
        region: 'eu',
        cron_schedule: '0 9 * * *',
        scheduled_at: '2026-03-02T09:00:00.000Z',
      },
    });
    expect(await store.schedules.get(schedule.id)).toMatchObject({
      nextRunAt: new Date('2026-03-03T09:00:00.000Z'),
      lastRunAt: new Date('2026-03-02T09:00:00.300Z'),
      lastOutcome: 'started',
      lastRunId: runs[0]!.id,
    });
    await s.tick();
    expect(await store.runs.list()).toHaveLength(1);
  });

  it('fires as a scheduler.fire span with the run it starts beneath (issue 19)', async () => {
    const tracing = createTracing({ exporter: 'memory' });
    const schedule = await dueReporter();
    const fired = await scheduler('proc-a', { tracer: tracing.tracer }).fire(schedule);
    const [span] = tracing.memoryExporter!.getFinishedSpans();
    expect(span?.name).toBe('scheduler.fire');
    expect(span?.attributes).toMatchObject({
      'schedule.id': schedule.id,
      'schedule.kind': 'agent',
      'schedule.outcome': 'started',
      'schedule.run_id': fired.runId,
    });
    // The run door took the fire's span as the run's parent: its trace nests under the fire.
    const run = await store.runs.get(fired.runId!);
    expect(run?.traceParent).toBe(
      `00-${span!.spanContext().traceId}-${span!.spanContext().spanId}-01`,
    );
    await tracing.shutdown();
  });

  it('fires once for a time a killed process had fired but not recorded (the run door replays it)', async () => {
    const schedule = await dueReporter();
    // Two firers holding the same read of the schedule: the second one is the restart of a
    // process killed after starting the run and before moving the schedule on.
    const first = await scheduler('proc-a').fire(schedule);
    const again = await scheduler('proc-b').fire(schedule);
    expect(first).toMatchObject({ outcome: 'started' });
    expect(again).toMatchObject({ outcome: 'started', runId: first.runId });
    expect(await store.runs.list()).toHaveLength(1);
  });

  it('after downtime fires a missed schedule once (catch_up once), never a burst; or skips it (catch_up skip)', async () => {
    const once = await setSchedule(
      store,
      { name: 'reporter' },
      { cron: '*/5 * * * *' },
      clock.now(),
    );
    clock.at = at('2026-03-05T12:02:00.000Z'); // three days later: hundreds of missed fires
    const s = scheduler();
    await s.tick();
    expect(await store.runs.list()).toHaveLength(1);
    expect(await store.schedules.get(once.id)).toMatchObject({
      nextRunAt: new Date('2026-03-05T12:05:00.000Z'),
      lastOutcome: 'started',
    });
    const skipping = await setSchedule(
      store,
      { name: 'reporter' },
      { cron: '*/5 * * * *', catch_up: 'skip' },
      clock.now(),
    );
    // Downtime again: its next time an hour past.
    await store.schedules.advance(skipping.id, skipping.nextRunAt, {
      nextRunAt: new Date(at('2026-03-05T11:05:00.000Z')),
      lastOutcome: 'started',
    });
    await s.tick();
    expect(await store.runs.list()).toHaveLength(1);
    const skipped = await store.schedules.get(once.id);
    expect(skipped).toMatchObject({ lastOutcome: 'missed' });
    expect(skipped?.nextRunAt?.toISOString()).toBe('2026-03-05T12:05:00.000Z');
  });

  it('skips a fire while the previous run still goes (overlap skip); queue starts one more, never a pile', async () => {
    const schedule = await setSchedule(
      store,
      { name: 'reporter' },
      { cron: '* * * * *' },
      clock.now(),
    );
    const s = scheduler();
    clock.at = at('2026-03-02T09:00:00.100Z');
    await s.tick();
    clock.at = at('2026-03-02T09:01:00.100Z');
    await s.tick(); // the first run is still queued: skipped
    expect(await store.runs.list()).toHaveLength(1);
    expect(await store.schedules.get(schedule.id)).toMatchObject({
      lastOutcome: 'skipped',
      lastError: expect.stringContaining('still queued'),
    });
    await setSchedule(
      store,
      { name: 'reporter' },
      { cron: '* * * * *', overlap: 'queue' },
      clock.now(),
    );
    const [first] = await store.runs.list();
    await store.schedules.advance(
      schedule.id,
      (await store.schedules.get(schedule.id))!.nextRunAt,
      {
        nextRunAt: new Date(at('2026-03-02T09:02:00.000Z')),
        lastOutcome: 'started',
        lastRunId: first!.id,
      },
    );
    // Still queued: with overlap queue one waits already, so this fire is skipped too.
    clock.at = at('2026-03-02T09:02:00.100Z');
    await s.tick();
    expect(await store.runs.list()).toHaveLength(1);
    // Once it runs, queue starts the next while it goes.
    await store.runs.claimNext('worker-1', 60_000);
    clock.at = at('2026-03-02T09:03:00.100Z');
    await s.tick();
    expect(await store.runs.list()).toHaveLength(2);
  });

  it('records a fire that cannot start a run, tells the alert, and moves on to the next time', async () => {
    const schedule = await setSchedule(
      store,
      { name: 'reporter' },
      { cron: '0 9 * * *' },
      clock.now(),
    );
    modelOk = false;
    clock.at = at('2026-03-02T09:00:00.500Z');
    await scheduler().tick();
    expect(await store.runs.list()).toHaveLength(0);
    expect(errors).toEqual([
      {
        scheduleId: schedule.id,
        kind: 'agent',
        target: 'reporter',
        agentId: agent.id,
        cron: '0 9 * * *',
        error: 'Set OPENAI_API_KEY to run openai models.',
        firedAt: new Date('2026-03-02T09:00:00.500Z'),
      },
    ]);
    expect(await store.schedules.get(schedule.id)).toMatchObject({
      lastOutcome: 'failed',
      lastError: 'Set OPENAI_API_KEY to run openai models.',
      nextRunAt: new Date('2026-03-03T09:00:00.000Z'),
    });
    expect(logLines.some((l) => l.includes('schedule fire could not start a run'))).toBe(true);
  });

  it('fires only in the process holding the lease; another takes over once the holder stops', async () => {
    clock.now = () => new Date(); // real time: the loops run
    const a = scheduler('proc-a', { leaseMs: 3000 });
    const b = scheduler('proc-b', { leaseMs: 3000 });
    await setSchedule(store, { name: 'reporter' }, { cron: '* * * * * *' }, new Date());
    await a.start();
    await eventually('proc-a to fire', () => fires.length >= 1);
    await b.start();
    await eventually('proc-a to fire again with proc-b started', () => fires.length >= 2);
    expect(a.status()).toBe('running');
    expect(b.status()).toBe('standby');
    const byA = fires.length;
    await a.stop(); // gives the lease up at once
    expect(a.status()).toBe('stopped');
    await eventually('proc-b to take over and fire twice', () => fires.length >= byA + 2);
    expect(b.status()).toBe('running');
    await b.stop();
    // Every second fired once, by one process or the other: no time fired twice. (The first
    // run is never picked up here, so later fires are skipped as overlapping: still fires.)
    const times = fires.map((f) => f.dueAt.getTime());
    expect(new Set(times).size).toBe(fires.length);
    expect(fires.length).toBeGreaterThanOrEqual(4);
    expect(fires.length - byA).toBeGreaterThanOrEqual(1);
    expect(await store.runs.list()).toHaveLength(1);
  });
});

describe('two scheduler processes on one store', () => {
  it('fire each second once between them; kill -9 the holder and the other takes over within the lease', async () => {
    const script = path.join(
      path.dirname(fileURLToPath(import.meta.url)),
      'fixtures',
      'scheduler-process.mjs',
    );
    await setSchedule(store, { name: 'reporter' }, { cron: '* * * * * *' }, new Date());
    const lines: Array<{ owner: string; dueAt: number; outcome: string; at: number }> = [];
    const children = new Map<string, ChildProcess>();
    const ready = new Set<string>();
    const startProcess = (owner: string): void => {
      const child = spawn(
        process.execPath,
        [script, path.join(dir, 'junction.db'), owner, '2000'],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      let rest = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        rest += chunk.toString();
        const parts = rest.split('\n');
        rest = parts.pop() ?? '';
        for (const part of parts) {
          const line = JSON.parse(part) as {
            owner: string;
            dueAt?: number;
            outcome?: string;
            ready?: boolean;
          };
          if (line.ready) ready.add(line.owner);
          if (line.dueAt !== undefined) {
            lines.push({
              ...(line as { owner: string; dueAt: number; outcome: string }),
              at: Date.now(),
            });
          }
        }
      });
      children.set(owner, child);
    };
    // A worker of its own: each run the schedule starts is taken and ended, so no fire is
    // skipped as overlapping and every fire starts a run.
    const worker = setInterval(() => {
      void (async () => {
        for (;;) {
          const run = await store.runs.claimNext('test-worker', 60_000);
          if (!run) break;
          await store.runs.markCompleted(run.id, { finalResponse: 'ok', workerId: 'test-worker' });
        }
      })().catch(() => undefined);
    }, 100);
    try {
      startProcess('proc-a');
      await eventually('proc-a to be ready', () => ready.has('proc-a'));
      startProcess('proc-b');
      await eventually('proc-b to be ready', () => ready.has('proc-b'));
      await eventually('four fires', () => lines.length >= 4);
      const holder = (await store.leases.get('scheduler'))?.owner as string;
      expect(['proc-a', 'proc-b']).toContain(holder);
      const other = holder === 'proc-a' ? 'proc-b' : 'proc-a';
      children.get(holder)?.kill('SIGKILL');
      await eventually(
        'the other process to take over and fire twice',
        () => lines.filter((l) => l.owner === other).length >= 2,
      );
      const before = lines.filter((l) => l.owner === holder);
      const after = lines.filter((l) => l.owner === other);
      // Only the holder fired until it was killed; then only the other, for later times.
      expect(before.length).toBeGreaterThanOrEqual(4);
      expect(Math.min(...after.map((l) => l.dueAt))).toBeGreaterThan(
        Math.max(...before.map((l) => l.dueAt)),
      );
      // Over all the fires: each second fired once, each fire started exactly one run.
      expect(new Set(lines.map((l) => l.dueAt)).size).toBe(lines.length);
      // Stop the other process (and read all it printed) before counting runs against lines.
      const last = children.get(other)!;
      await new Promise((resolve) => {
        last.once('close', resolve);
        last.kill('SIGTERM');
      });
      const runs = await store.runs.list({ limit: 100 });
      const started = lines.filter((l) => l.outcome === 'started');
      const keys = runs.map((r) => r.variables.scheduled_at);
      expect(new Set(keys).size).toBe(runs.length);
      expect(runs.length).toBe(started.length);
    } finally {
      clearInterval(worker);
      for (const child of children.values()) child.kill('SIGKILL');
    }
  }, 180_000);
});
