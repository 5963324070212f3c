#!/usr/bin/env node
// bench/scale-out: Junction spread over hosts sharing one store (sqld) and one NATS server, all
// on 127.0.0.1 — runs submitted over REST to one API host (`junction serve --no-workers`),
// executed by `junction worker` hosts, each its own process; the fake model (one turn, no
// tool call) answers at once in a process of its own.
//   1. Completed runs/s with 1, 2 and 3 worker hosts at a fixed number of runs in flight
//      (rounds up the host counts and back down, so drift hits every count alike); the
//      baseline is 1 host, measured in the same run.
//   2. Dispatch latency (queued → claimed, from the store) with runs announced over NATS
//      JetStream against the same hosts polling the store, one run at a time so a worker is
//      idle when each arrives. Target: JetStream p50 ≤ 20 ms (exit code 1 when missed).
//   3. The machine's cores, and the CPU each kind of process spent per run: on a small machine
//      every process shares the same cores, so more worker hosts cannot add capacity.
//
//   pnpm build && pnpm --filter @junction/bench scale-out [-- --runs 300 --warmup 30 --in-flight 32
//     --worker-concurrency 4 --hosts 3 --passes 2 --latency-runs 100 --time-limit 600]
// Everything it starts is its child, stopped by PID when it ends, fails or runs out of time.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { startNats } from '@junction/tooling/fixtures/nats.mjs';
import { startSqld } from '@junction/tooling/fixtures/sqld.mjs';
import { openStore } from '@junction/store';
import { median, p95, startFakeModel } from '../shared.mjs';
import { cpuReading, machineBusySeconds, ownCpuSeconds } from './cpu.mjs';
import { Children, prepareWorkspace, startApiHost, startWorkerHost } from './hosts.mjs';
import { seededRandom as seeded } from '@junction/tooling/fixtures/seeded-random.mjs';
import { closedLoop, dispatchLatencies } from './load.mjs';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    runs: { type: 'string', default: '300' },
    warmup: { type: 'string', default: '30' },
    'in-flight': { type: 'string', default: '32' },
    'worker-concurrency': { type: 'string', default: '4' },
    hosts: { type: 'string', default: '3' },
    passes: { type: 'string', default: '2' },
    'latency-runs': { type: 'string', default: '100' },
    'latency-warmup': { type: 'string', default: '10' },
    'time-limit': { type: 'string', default: '600' },
  },
});
const RUNS = Number(values.runs);
const WARMUP = Number(values.warmup);
const IN_FLIGHT = Number(values['in-flight']);
const CONCURRENCY = Number(values['worker-concurrency']);
const HOSTS = Number(values.hosts);
const PASSES = Number(values.passes);
const LATENCY_RUNS = Number(values['latency-runs']);
const LATENCY_WARMUP = Number(values['latency-warmup']);
const TIME_LIMIT_S = Number(values['time-limit']);
/** JetStream dispatch: a run reaches an idle worker of any host this fast (p50, ms). */
const TARGET_P50_MS = 20;
/** How often an idle worker looks in the store without a bus (RunWorkers' pollMs default). */
const STORE_POLL_MS = 500;
const KEY = 'sk-bench-key-0000000000';

const progress = (line) => process.stderr.write(`${line}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const children = new Children();
let fake;
let sqld;
let nats;
let workspace;
let store;
let cleaning;
/** Stops everything this script started (each child by its PID) and removes its folders; once. */
const cleanup = () =>
  (cleaning ??= (async () => {
    await store?.close().catch(() => undefined);
    await children.stopAll();
    await Promise.all([sqld?.stop(), nats?.stop()]);
    fake?.stop();
    workspace?.remove();
  })());

/** Kills every child at once by PID, then cleans up (bounded) and exits with `code`. */
function abort(why, code) {
  progress(`scale-out: ${why}; killing everything it started`);
  children.killAllNow();
  for (const pid of [sqld?.pid, nats?.pid]) {
    try {
      if (pid) process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  fake?.stop();
  void Promise.race([cleanup(), sleep(10_000)]).finally(() => process.exit(code));
}

const bound = setTimeout(
  () => abort(`time limit of ${TIME_LIMIT_S} s ran out`, 2),
  TIME_LIMIT_S * 1000,
);
process.once('SIGINT', () => abort('interrupted', 130));
process.once('SIGTERM', () => abort('terminated', 143));

/** Submits the store was too busy to take (503, tried again), over the whole run. */
const refused = { count: 0 };

/** Runs/s per worker-host count, over the passes; and runs per host (one line per count). */
async function throughput(env) {
  const api = await startApiHost(children, env);
  const workers = [];
  const up = Array.from({ length: HOSTS }, (_, i) => i + 1);
  const order = Array.from({ length: PASSES }, (_, p) =>
    p % 2 === 0 ? up : [...up].reverse(),
  ).flat();
  const totals = new Map();
  let first = true;
  for (const hosts of order) {
    while (workers.length < hosts) {
      const name = `worker ${workers.length + 1}`;
      workers.push(await startWorkerHost(children, env, { name, concurrency: CONCURRENCY }));
    }
    while (workers.length > hosts) await children.stop(workers.pop());
    const label = `${hosts} host(s)`;
    // The first round also warms the API host, sqld and nats-server (JIT, pages): without a
    // round's worth of runs first, it came out a third slower than the same count last.
    await closedLoop(api.api, store, {
      count: first ? WARMUP + RUNS : WARMUP,
      inFlight: IN_FLIGHT,
      label: `warm-up ${label}`,
      refused,
    });
    first = false;
    const cpu = cpuReading({
      workers: workers.map((w) => w.pid),
      'API host': [api.pid],
      sqld: [sqld.pid],
      nats: [nats.pid],
      'this script': ownCpuSeconds,
    });
    const machine = cpuReading({ all: machineBusySeconds });
    const round = await closedLoop(api.api, store, {
      count: RUNS,
      inFlight: IN_FLIGHT,
      label,
      refused,
    });
    const used = cpu.since();
    const machineUsed = machine.since().all;
    const shares = [...round.byWorker.values()].join('/');
    progress(
      `  ${label}: ${RUNS} runs in ${round.seconds.toFixed(2)} s = ${round.rate.toFixed(1)}/s (runs per host ${shares})`,
    );
    const total = totals.get(hosts) ?? { runs: 0, seconds: 0, shares: [], cpu: {}, machine: 0 };
    total.runs += RUNS;
    total.machine += machineUsed;
    total.seconds += round.seconds;
    total.shares.push(shares);
    for (const [name, seconds] of Object.entries(used)) {
      total.cpu[name] = (total.cpu[name] ?? 0) + seconds;
    }
    totals.set(hosts, total);
  }
  for (const worker of workers) await children.stop(worker);
  await children.stop(api);
  return totals;
}

/** Dispatch latencies (ms) of one API host and one worker host with `env`, after a warm-up. */
async function latency(env, label, seed) {
  const api = await startApiHost(children, env);
  const worker = await startWorkerHost(children, env, { name: 'worker', concurrency: CONCURRENCY });
  try {
    const random = seeded(seed);
    const common = { spreadMs: STORE_POLL_MS, random, refused };
    await dispatchLatencies(api.api, store, {
      ...common,
      count: LATENCY_WARMUP,
      label: `warm-up ${label}`,
    });
    const latencies = await dispatchLatencies(api.api, store, {
      ...common,
      count: LATENCY_RUNS,
      label,
    });
    progress(`  ${label}: ${LATENCY_RUNS} runs one at a time done`);
    return latencies;
  } finally {
    await children.stop(worker);
    await children.stop(api);
  }
}

/** What went wrong without failing the run: refused submits, the hosts' warn and error lines. */
function reportProblems(problems) {
  const count = (level) =>
    problems.filter((p) => p.level === level).reduce((sum, p) => sum + p.count, 0);
  console.log('');
  console.log(`submits answered 503 (store busy) and tried again: ${refused.count}`);
  console.log(`hosts' log: ${count('error')} error and ${count('warn')} warn lines`);
  for (const { level, msg, count: n } of problems.slice(0, 5)) {
    console.log(`  ${n} × ${level}: ${msg}`);
  }
}

let exitCode = 0;
// Other work on the machine takes cores from every figure: said beside them.
const loadBefore = os.loadavg()[0];
try {
  fake = await startFakeModel(['--api-key', KEY]);
  sqld = await startSqld();
  nats = await startNats();
  const databaseUrl = sqld.url.replace('http:', 'ws:');
  progress(
    `scale-out: one-turn agent; sqld ${databaseUrl}, nats-server ${nats.url}, fake model ${fake.url}`,
  );
  workspace = await prepareWorkspace(children, { databaseUrl, modelUrl: fake.url, apiKey: KEY });
  store = await openStore({ url: databaseUrl });

  progress(
    `throughput: ${RUNS} runs a round after ${WARMUP} warm-up (${WARMUP + RUNS} before the first), ${IN_FLIGHT} in flight, worker hosts × ${CONCURRENCY} runs at a time, JetStream dispatch`,
  );
  const totals = await throughput(workspace.env(nats.url));

  progress(
    `dispatch latency: ${LATENCY_RUNS} runs one at a time after ${LATENCY_WARMUP} warm-up, 1 worker host × ${CONCURRENCY}`,
  );
  const jetstream = await latency(workspace.env(nats.url), 'JetStream', 1);
  const polling = await latency(workspace.env(), 'store polling', 1);

  const fmt = (x, digits = 1) => x.toFixed(digits);
  const base = totals.get(1);
  const baseRate = base.runs / base.seconds;
  console.log('');
  console.log(
    `machine: ${os.availableParallelism()} cores (os.availableParallelism()) shared by the worker hosts, the API host, sqld, nats-server and the fake model; load average ${fmt(loadBefore)} before the start`,
  );
  console.log('');
  console.log(
    `completed runs/s, ${IN_FLIGHT} in flight, ${RUNS} runs × ${PASSES} rounds per count, each host ${CONCURRENCY} runs at a time (JetStream)`,
  );
  console.log('worker hosts      runs/s   vs 1 host   runs per host, by round');
  for (const [hosts, total] of [...totals].sort((a, b) => a[0] - b[0])) {
    const rate = total.runs / total.seconds;
    console.log(
      `${String(hosts).padEnd(12)} ${fmt(rate).padStart(11)}   ${fmt(rate / baseRate, 2).padStart(8)}x   ${total.shares.join(', ')}`,
    );
  }
  console.log('');
  const groups = Object.keys(base.cpu);
  const cores = os.availableParallelism();
  console.log(
    `CPU ms per completed run (the fake model not counted); busy: CPU seconds / wall seconds / ${cores} cores, of these processes and of the whole machine`,
  );
  console.log(`worker hosts ${groups.map((g) => g.padStart(13)).join('')}   busy   machine`);
  for (const [hosts, total] of [...totals].sort((a, b) => a[0] - b[0])) {
    const perRun = (seconds) => fmt((seconds / total.runs) * 1000, 2).padStart(13);
    const percent = (seconds) => `${fmt((seconds / total.seconds / cores) * 100, 0)}%`;
    const ours = Object.values(total.cpu).reduce((a, b) => a + b, 0);
    console.log(
      `${String(hosts).padEnd(12)} ${groups.map((g) => perRun(total.cpu[g])).join('')}   ${percent(ours).padStart(4)}   ${percent(total.machine).padStart(7)}`,
    );
  }
  console.log('');
  console.log(
    `dispatch latency (queued → claimed), ${LATENCY_RUNS} runs one at a time, 1 worker host idle`,
  );
  console.log('                   p50 ms    p95 ms');
  const row = (name, xs) =>
    console.log(`${name.padEnd(16)} ${fmt(median(xs)).padStart(7)}   ${fmt(p95(xs)).padStart(7)}`);
  row('JetStream', jetstream);
  row('store polling', polling);
  // A p50 of 0 ms (the same millisecond) would make the ratio infinite: 1 ms is the resolution.
  const ratio = (a, b) => fmt(a / Math.max(b, 1));
  console.log(
    `ratio polling/JetStream: p50 ${ratio(median(polling), median(jetstream))}x, p95 ${ratio(p95(polling), p95(jetstream))}x`,
  );
  const pass = median(jetstream) <= TARGET_P50_MS;
  console.log(
    `target JetStream p50 ≤ ${TARGET_P50_MS} ms: ${pass ? 'PASS' : 'FAIL'} (${fmt(median(jetstream))} ms)`,
  );
  if (!pass) exitCode = 1;
} catch (err) {
  progress(`scale-out failed: ${err.stack ?? err}`);
  for (const tail of children.tails()) progress(`--- ${tail}`);
  exitCode = 1;
} finally {
  clearTimeout(bound);
  if (workspace) reportProblems(workspace.problems());
  await cleanup();
}
process.exitCode = exitCode;
