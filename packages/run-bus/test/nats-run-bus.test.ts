// The run bus against a real nats-server with JetStream: announcements taken once each, handed
// on when refused, states/events/cancels heard by every host, a server restart survived, a
// server that is not there yet waited for. Then RunWorkers of several "hosts" (separate stores
// on one file would be one host; here each pool has its own Store object and bus connection)
// taking announced runs at once, exactly once.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import {
  cancelRun,
  followRun,
  RunWorkers,
  submitRun,
  type RunExecutor,
} from '@junction/agent-core/runs';
import { openStore, type Run, type Store } from '@junction/store';
import { createLogger } from '@junction/telemetry';
import {
  findNats,
  NATS_MISSING,
  startNats,
  type NatsServer,
} from '@junction/tooling/fixtures/nats.mjs';
import { freePort } from '@junction/tooling/fixtures/free-port.mjs';
import { openRunBus, shownNatsUrl, type NatsRunBus } from '../src/nats-run-bus.js';
import { eventually } from '@junction/tooling/fixtures/eventually.mjs';

const haveNats = findNats() !== undefined;
if (!haveNats) console.warn(`*** SKIPPING run-bus tests: ${NATS_MISSING} ***`);
const maybe = haveNats ? describe : describe.skip;

const logger = createLogger({ level: 'error' });
const until = async (what: string, check: () => boolean | Promise<boolean>): Promise<void> => {
  await eventually(what, check, { everyMs: 20 });
};

let nats: NatsServer;
const buses: NatsRunBus[] = [];
async function bus(url = nats.url, storeId = 'st0re'): Promise<NatsRunBus> {
  const b = await openRunBus({ url, logger, storeId: async () => storeId });
  buses.push(b);
  return b;
}

maybe('the run bus over NATS JetStream', () => {
  beforeAll(async () => {
    nats = await startNats();
  });
  afterAll(async () => {
    await nats?.stop();
  });
  afterEach(async () => {
    for (const b of buses.splice(0)) await b.close();
  });

  it('gives each announcement to exactly one of the hosts asking', async () => {
    const [a, b, c] = [await bus(), await bus(), await bus()];
    let taken = 0;
    const takers = [b, c].map(async (host) => {
      let mine = 0;
      for (;;) {
        const announcement = await host.next('runs', 1000);
        if (!announcement) return mine;
        announcement.ack();
        mine += 1;
        taken += 1;
      }
    });
    for (let i = 0; i < 50; i += 1) a.announce('runs');
    const counts = await Promise.all(takers);
    expect(taken).toBe(50);
    expect(counts[0]! + counts[1]!).toBe(50);
    // Workflow announcements are another queue: none of the run ones reach it.
    expect(await a.next('workflows', 1000)).toBeUndefined();
  });

  it('hands a refused announcement to another host', async () => {
    const [a, b] = [await bus(), await bus()];
    a.announce('workflows');
    const first = await b.next('workflows', 2000);
    expect(first).toBeDefined();
    first!.nak();
    const again = await a.next('workflows', 2000);
    expect(again).toBeDefined();
    again!.ack();
    expect(await b.next('workflows', 1000)).toBeUndefined();
  });

  it('carries states, live events and cancels to every host listening', async () => {
    const [a, b, c] = [await bus(), await bus(), await bus()];
    const states: string[] = [];
    let events = 0;
    const cancels: number[] = [];
    b.onState('*', (m) => states.push(`${m.runId}:${m.status}`));
    c.onState(7, (m) => states.push(`only7 ${m.runId}:${m.status}`));
    const off = c.onEvents(7, () => (events += 1));
    b.onCancel((id) => cancels.push(id));
    c.onCancel((id) => cancels.push(id));
    await until('subscriptions', async () => {
      a.publishState({ runId: 1, status: 'queued' });
      await new Promise((resolve) => setTimeout(resolve, 50));
      return states.length > 0;
    });
    states.length = 0;
    a.publishState({ runId: 7, status: 'running' });
    a.publishEvents(7);
    a.publishEvents(8);
    a.requestCancel(7);
    await until('every message', () => states.length === 2 && events === 1 && cancels.length === 2);
    expect(states.sort()).toEqual(['7:running', 'only7 7:running']);
    expect(events).toBe(1);
    expect(cancels).toEqual([7, 7]);
    off();
    a.publishEvents(7);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(events).toBe(1);
  });

  it('keeps the hosts of different stores apart on one server', async () => {
    const [a, b] = [await bus(nats.url, 'storeA'), await bus(nats.url, 'storeB')];
    const cancels: number[] = [];
    b.onCancel((id) => cancels.push(id));
    await new Promise((resolve) => setTimeout(resolve, 200));
    a.requestCancel(42);
    a.announce('runs');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(cancels).toEqual([]);
    expect(await b.next('runs', 1000)).toBeUndefined();
    const mine = await a.next('runs', 1000);
    expect(mine).toBeDefined();
    mine!.ack();
  });

  it('never shows a user or password of the NATS URLs', () => {
    expect(shownNatsUrl('nats://user:s3cret-pass@n1:4222,nats://tok@n2:4222')).toBe(
      'nats://***@n1:4222,nats://***@n2:4222',
    );
    expect(shownNatsUrl('nats://n1:4222')).toBe('nats://n1:4222');
  });

  it('goes on after the nats-server restarts: reconnects, listens again, announcements kept', async () => {
    const [a, b] = [await bus(), await bus()];
    const cancels: number[] = [];
    b.onCancel((id) => cancels.push(id));
    // Made before the restart: the stream is on disk.
    expect(await b.next('runs', 1000)).toBeUndefined();
    a.announce('runs');
    await new Promise((resolve) => setTimeout(resolve, 200));
    await nats.kill();
    await until('both see it down', () => !a.connected() && !b.connected());
    // While down: asking waits and answers nothing; announcing drops (the store's sweep finds those).
    const started = Date.now();
    expect(await b.next('runs', 300)).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    await nats.start();
    await until('both reconnected', () => a.connected() && b.connected());
    const kept = await b.next('runs', 3000);
    expect(kept).toBeDefined();
    kept!.ack();
    await until('cancel heard after the restart', async () => {
      a.requestCancel(3);
      await new Promise((resolve) => setTimeout(resolve, 100));
      return cancels.includes(3);
    });
  });

  it('starts without a server there yet and connects when one comes', async () => {
    const port = await freePort();
    const warnings: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        warnings.push(chunk.toString());
        done();
      },
    });
    const log = createLogger({ level: 'warn', stream });
    const b = await openRunBus({
      url: `nats://127.0.0.1:${port}`,
      logger: log,
      connectTimeoutMs: 500,
      storeId: async () => 'late',
    });
    buses.push(b);
    expect(b.connected()).toBe(false);
    expect(warnings.join('')).toMatch(/cannot be reached.*look in the store/);
    const late = await startNats({ port });
    try {
      await until('connected to the late server', () => b.connected());
      b.announce('runs');
      const got = await b.next('runs', 2000);
      expect(got).toBeDefined();
      got!.ack();
    } finally {
      await b.close();
      await late.stop();
    }
  });
});

// ---- RunWorkers of three hosts on one store, dispatched over the bus ----

let dir: string;
const stores: Store[] = [];
const pools: RunWorkers[] = [];
let agentId: number;

/** Executes a run by completing it after `ms`, counting executions per run. */
function executor(
  store: Store,
  executed: Map<number, number>,
  ms = 5,
): RunExecutor & { cancelled: number[] } {
  const inFlight = new Map<number, () => void>();
  const cancelled: number[] = [];
  return {
    cancelled,
    async execute(run: Run): Promise<Run> {
      executed.set(run.id, (executed.get(run.id) ?? 0) + 1);
      const stopped = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), ms);
        inFlight.set(run.id, () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      inFlight.delete(run.id);
      if (stopped) {
        cancelled.push(run.id);
        return store.runs.markFailed(run.id, { status: 'cancelled', error: 'cancelled' });
      }
      return store.runs.markCompleted(run.id, { finalResponse: `done ${run.id}` });
    },
    cancel(runId: number): boolean {
      const stop = inFlight.get(runId);
      stop?.();
      return stop !== undefined;
    },
  };
}

maybe('workers of several hosts dispatched over the bus', () => {
  beforeAll(async () => {
    nats = await startNats();
    dir = mkdtempSync(path.join(os.tmpdir(), 'junction-run-bus-'));
    const store = await openStore({ url: `file:${path.join(dir, 'j.db')}` });
    stores.push(store);
    const env = await store.environments.create({ name: 'default' });
    agentId = (await store.agents.create(env.id, { name: 'a' })).id;
  });
  afterEach(async () => {
    for (const p of pools.splice(0)) await p.stop({ drainMs: 1000 });
    for (const b of buses.splice(0)) await b.close();
  });
  afterAll(async () => {
    for (const s of stores.splice(0)) await s.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function host(
    executed: Map<number, number>,
    options: { concurrency?: number; ms?: number } = {},
  ) {
    const store = await openStore({ url: `file:${path.join(dir, 'j.db')}` });
    stores.push(store);
    const b = await bus();
    const runner = executor(store, executed, options.ms);
    // Polls far apart: a run is taken at once only when its announcement reaches a host.
    const workers = new RunWorkers({
      store,
      runner,
      logger,
      bus: b,
      concurrency: options.concurrency ?? 2,
      pollMs: 60_000,
      busPollMs: 60_000,
      cancelPollMs: 60_000,
    });
    pools.push(workers);
    await workers.start();
    return { store, bus: b, workers, runner };
  }

  it('runs submitted on a host without workers are taken at once by the others, each once', async () => {
    const executed = new Map<number, number>();
    const api = { store: stores[0]!, bus: await bus() };
    const hosts = [await host(executed), await host(executed), await host(executed)];
    // The accepting host's door: no workers of its own, so every run is announced.
    const door = new RunWorkers({
      store: api.store,
      runner: executor(api.store, new Map()),
      logger,
      bus: api.bus,
    });
    const ids: number[] = [];
    for (let i = 0; i < 60; i += 1) {
      const { run } = await submitRun(
        { store: api.store, checkModel: () => undefined, dispatch: door },
        { agent_id: agentId, task: `t${i}`, source: 'api' },
      );
      ids.push(run.id);
    }
    await until('every run completed', async () => {
      const runs = await Promise.all(ids.map((id) => api.store.runs.get(id)));
      return runs.every((r) => r?.status === 'completed');
    });
    expect(ids.every((id) => executed.get(id) === 1)).toBe(true);
    const byWorker = new Map<string, number>();
    for (const id of ids) {
      const w = (await api.store.runs.get(id))!.workerId!;
      byWorker.set(w, (byWorker.get(w) ?? 0) + 1);
    }
    expect([...byWorker.keys()].sort()).toEqual(hosts.map((h) => h.workers.workerId).sort());
  }, 180_000);

  it('a cancel on one host stops the run on another at once', async () => {
    const executed = new Map<number, number>();
    const worker = await host(executed, { ms: 30_000 });
    const api = { store: stores[0]!, bus: await bus() };
    const door = new RunWorkers({
      store: api.store,
      runner: executor(api.store, new Map()),
      logger,
      bus: api.bus,
    });
    const { run } = await submitRun(
      { store: api.store, checkModel: () => undefined, dispatch: door },
      { agent_id: agentId, task: 'long', source: 'api' },
    );
    await until(
      'running on the worker host',
      async () => (await api.store.runs.get(run.id))?.status === 'running',
    );
    const started = Date.now();
    const { run: ended, ended: done } = await cancelRun(
      { store: api.store, canceller: door, endings: door, bus: api.bus },
      run.id,
      { waitMs: 5000 },
    );
    expect(done).toBe(true);
    expect(ended.status).toBe('cancelled');
    // The worker's store poll is a minute apart here: only the bus can have told it.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(worker.runner.cancelled).toEqual([run.id]);
  }, 180_000);

  it('follows a run executing on another host: each event once, in order, as soon as it is written', async () => {
    const store = stores[0]!;
    const worker = await bus();
    const follower = await bus();
    const run = await store.runs.create({
      agentId,
      agentName: 'a',
      environmentId: (await store.agents.get(agentId))!.environmentId,
      task: 'followed',
      source: 'api',
      claimedBy: { workerId: 'elsewhere:1:x', leaseMs: 60_000 },
    });
    await store.runEvents.record(run.id, [{ type: 'model_turn', payload: { step: 1 } }]);
    const seen: Array<{ seq: number; type: string }> = [];
    // The store is read only once a minute here: what comes sooner was told over the bus.
    const followed = followRun({ store, bus: follower }, run.id, {
      onEvent: (e) => seen.push({ seq: e.seq, type: e.type }),
      toldPollMs: 60_000,
    });
    await until('the stored event', () => seen.length === 1);
    const written = Date.now();
    await store.runEvents.record(run.id, [
      { type: 'tool_call', payload: { tool: 'x' } },
      { type: 'tool_call', payload: { tool: 'x' } },
    ]);
    worker.publishEvents(run.id);
    await until('the written events', () => seen.length === 3);
    expect(Date.now() - written).toBeLessThan(30_000);
    // A nudge told twice, or for nothing new, shows nothing twice.
    worker.publishEvents(run.id);
    worker.publishEvents(run.id);
    // Its last events come with its end.
    await store.runEvents.record(run.id, [{ type: 'run_error', payload: { message: 'boom' } }]);
    await store.runs.markFailed(run.id, { error: 'boom' });
    worker.publishState({ runId: run.id, status: 'error' });
    const end = await followed;
    expect(end.status).toBe('error');
    expect(seen).toEqual([
      { seq: 1, type: 'model_turn' },
      { seq: 2, type: 'tool_call' },
      { seq: 3, type: 'tool_call' },
      { seq: 4, type: 'run_error' },
    ]);
  }, 180_000);
});
