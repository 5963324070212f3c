#!/usr/bin/env node
// bench/resume-latency: how long a run waits after its worker dies. Two `junction worker` hosts
// (each a process with a hostname of its own, where namespaces allow), one API host
// (`junction serve --no-workers`), sqld, nats-server, the fake model and a tool server over
// HTTP, all real processes on this machine. A run calls a tool (not safe to repeat), then its
// second model turn is held; the worker holding it is killed (SIGKILL) and the time to the
// run's next model call — made by the other worker host, resuming it from its journal — is
// measured at the fake model. With NATS (JetStream) and with the store polled only.
//
// What bounds it: the dead worker's lease has to run out (`runs.lease_seconds`, renewed every
// third of it, so it runs out between two thirds of it and all of it after the death), then an
// idle worker of another host sees it at its next poll (0.5 s; with the bus up
// `queue.nats.poll_seconds`), claims the run and resumes it. Prints p50 and max of both modes
// beside those settings, and their ratio to lease + poll.
//
//   pnpm build && pnpm --filter @junction/bench resume-latency [-- --trials 10 --lease-seconds 3
//     --modes polling,nats --time-limit 300]
// Everything it starts is its child, stopped by PID when it ends, fails or runs out of time.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_LEASE_MS } from '@junction/agent-core/runs';
import { openStore } from '@junction/store';
import { startFakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { startNats } from '@junction/tooling/fixtures/nats.mjs';
import { seededRandom } from '@junction/tooling/fixtures/seeded-random.mjs';
import { startSqld } from '@junction/tooling/fixtures/sqld.mjs';
import { listeningPort, median } from '../shared.mjs';
import {
  Children,
  canNameHosts,
  prepareWorkspace,
  startApiHost,
  startWorkerHost,
} from '../scale-out/hosts.mjs';
import { submit } from '../scale-out/load.mjs';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    trials: { type: 'string', default: '10' },
    'lease-seconds': { type: 'string', default: '3' },
    modes: { type: 'string', default: 'polling,nats' },
    'time-limit': { type: 'string', default: '300' },
  },
});
const TRIALS = Number(values.trials);
const LEASE_S = Number(values['lease-seconds']);
const MODES = values.modes.split(',');
const TIME_LIMIT_S = Number(values['time-limit']);
for (const mode of MODES) {
  if (mode !== 'polling' && mode !== 'nats') throw new Error(`unknown mode ${mode}`);
}

// The settings that bound a resume, as the code has them (docs/configuration.md, run-workers.ts).
/** The runner renews a lease every third of it, at least every second (agent-runner.ts). */
const RENEW_S = Math.max(1, LEASE_S / 3);
/** How often an idle worker looks in the store without a bus (RunWorkers' pollMs). */
const STORE_POLL_S = 0.5;
/** `queue.nats.poll_seconds`' default: how often an idle worker looks while the bus is up. */
const BUS_POLL_S = 5;
/** How often every worker, busy or not, looks for dead workers' runs (RunWorkers' sweepMs). */
const SWEEP_S = 30;
const pollOf = (mode) => (mode === 'nats' ? BUS_POLL_S : STORE_POLL_S);

const KEY = 'sk-bench-key-0000000000';
const PROMPT =
  '---\ntools: [echo]\nmax_steps: 3\n---\n{{role "system"}}\nYou act.\n{{role "user"}}\n{{userInput}}\n';
/** How long a trial may wait for one thing (a host, a held turn, a resume) before it fails. */
const WAIT_MS = 60_000;

const require = createRequire(import.meta.url);
const toolServer = require.resolve('@junction/tooling/fixtures/mcp-server.mjs');
const progress = (line) => process.stderr.write(`${line}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const children = new Children();
const scratch = mkdtempSync(path.join(os.tmpdir(), 'junction-resume-latency-'));
const callsFile = path.join(scratch, 'calls.jsonl');
let fake;
let sqld;
let nats;
let tools;
let workspace;
let store;
let cleaning;

/** Stops everything this script started (each child by its PID) and removes its folders; once. */
const cleanup = () =>
  (cleaning ??= (async () => {
    await store?.close().catch(() => undefined);
    await children.stopAll();
    tools?.kill('SIGTERM');
    await Promise.all([sqld?.stop(), nats?.stop(), fake?.close()]);
    workspace?.remove();
    rmSync(scratch, { recursive: true, force: true });
  })());

/** Kills every child at once by PID, then cleans up (bounded) and exits with `code`. */
function abort(why, code) {
  progress(`resume-latency: ${why}; killing everything it started`);
  children.killAllNow();
  for (const pid of [sqld?.pid, nats?.pid, tools?.pid]) {
    try {
      if (pid) process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  void Promise.race([cleanup(), sleep(10_000)]).finally(() => process.exit(code));
}

const bound = setTimeout(
  () => abort(`time limit of ${TIME_LIMIT_S} s ran out`, 2),
  TIME_LIMIT_S * 1000,
);
process.once('SIGINT', () => abort('interrupted', 130));
process.once('SIGTERM', () => abort('terminated', 143));

/** Asks `check` every `everyMs` until it answers something; fails naming `what` after WAIT_MS. */
async function until(what, check, everyMs = 5) {
  const end = Date.now() + WAIT_MS;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** The fixture tool server over Streamable HTTP, every call written to `callsFile`. */
async function startToolServer() {
  const child = spawn(
    process.execPath,
    [
      toolServer,
      '--transport',
      'http',
      '--port',
      '0',
      '--tools',
      'echo',
      '--calls-file',
      callsFile,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await listeningPort(child, 'the tool server', 10_000);
  return { child, url: `http://127.0.0.1:${port}/mcp` };
}

/** Calls the tool server got for the run, by idempotency key. */
function callsOf(runId) {
  const byKey = new Map();
  if (!existsSync(callsFile)) return byKey;
  for (const line of readFileSync(callsFile, 'utf8').split('\n')) {
    if (line === '') continue;
    const { key } = JSON.parse(line);
    if (key?.startsWith(`junction:run-${runId}:`)) byKey.set(key, (byKey.get(key) ?? 0) + 1);
  }
  return byKey;
}

/** The text of a message's content (a string, or text parts). */
function textOf(content) {
  return typeof content === 'string'
    ? content
    : (content ?? []).map((part) => part?.text ?? '').join('');
}

/** Requests the fake model got for `task`'s run. */
function asked(task) {
  return fake.requests.filter((r) =>
    r.body?.messages?.some((m) => m.role === 'user' && textOf(m.content) === task),
  );
}

/** The worker host (of `hosts`) whose worker id `workerId` is. */
function hostOf(hosts, workerId) {
  const pid = workerId?.split(':')[1];
  return hosts.find((h) => String(h.pid) === pid);
}

/** Waits until `id` has ended (any way); answers its record. */
function ended(id) {
  return until(`run ${id} to end`, async () => {
    const run = await store.runs.get(id);
    return run.status !== 'queued' && run.status !== 'running' ? run : false;
  });
}

/** Submits `task`'s run and waits until it is held at its second turn, its tool call journaled. */
async function heldRun(api, task) {
  fake.script([{ toolCalls: [{ name: 'echo', arguments: { text: task } }] }, { hang: true }]);
  const id = await submit(api.api, task, { count: 0 });
  await until(`run ${id} to be held after its tool call`, async () => {
    if (asked(task).length < 2) return false;
    const done = await store.runEvents.list(id, { type: 'tool_call' });
    return done.length === 1;
  });
  return id;
}

/** What is wrong with how `run` (of `task`) ended, resumed by `other`; undefined if nothing. */
async function problemOf(run, task, hosts, other) {
  if (run.status !== 'completed') return `ended ${run.status}: ${run.error}`;
  if (hostOf(hosts, run.workerId) !== other) return 'was not finished by the other host';
  const [resumed] = await store.runEvents.list(run.id, { type: 'resumed' });
  if (resumed?.payload?.from_step !== 2) return `resumed as ${JSON.stringify(resumed?.payload)}`;
  if (asked(task).length !== 3) return `asked the model ${asked(task).length} times`;
  const calls = [...callsOf(run.id).values()];
  if (calls.length !== 1 || calls[0] !== 1) return `made tool calls ${JSON.stringify(calls)}`;
  return undefined;
}

/**
 * One trial: the run is held at its second turn on one host (its tool call done and journaled),
 * the other host has worked a run before (warm, as a host that has been up a while is); the
 * holder is killed and the time to the run's next model call is taken. Answers the figures.
 */
async function trial(api, starting, warm, mode, n, random) {
  const task = `${mode} trial ${n}`;
  const id = await heldRun(api, task);
  // The host that replaces the last one killed may still be starting (it may even hold the run).
  const waitFrom = performance.now();
  const hosts = await starting;
  const hostWaitMs = performance.now() - waitFrom;
  const holder = hostOf(hosts, (await store.runs.get(id)).workerId);
  const other = hosts.find((h) => h !== holder);
  if (!holder || !other) throw new Error(`run ${id} is not held by one of the two hosts`);
  if (!warm.has(other.pid)) {
    // Its only slot busy, the holder takes nothing: the warm-up run goes to the other host.
    await ended(await submit(api.api, `${mode} warm-up ${n}`, { count: 0 }));
    warm.add(other.pid);
  }
  // A death comes at any moment of the other host's poll and of the holder's renewals: a seeded
  // pause of up to the longer of the two, so the kill does not fall just after the warm-up run
  // (whose end sets when the other host polls next) or at one point of the renewals.
  await sleep(random() * Math.max(pollOf(mode), RENEW_S) * 1000);

  const killedAt = performance.now();
  const killedWall = Date.now();
  await children.kill(holder);
  // Read once the process is gone: no renewal can move it any more.
  const leaseEnd = (await store.runs.get(id)).leaseExpiresAt?.getTime();
  const resumedAt = await until(
    `run ${id}'s next model call`,
    () => (asked(task).length >= 3 ? performance.now() : false),
    1,
  );
  const run = await ended(id);
  const problem = await problemOf(run, task, hosts, other);
  if (problem) throw new Error(`trial ${n} (${mode}): run ${id} ${problem}`);
  const [attemptEnd] = await store.runEvents.list(id, { type: 'attempt_ended' });
  return {
    ms: resumedAt - killedAt,
    leaseLeftMs: leaseEnd === undefined ? Number.NaN : leaseEnd - killedWall,
    reason: attemptEnd?.payload?.reason ?? 'none',
    holder,
    hostWaitMs,
  };
}

/**
 * `TRIALS` trials with `env`: the killed host is replaced by a new one after each, started while
 * the next run is submitted and held (ready before the kill: nothing starts while a resume is
 * timed).
 */
async function measure(mode, env, named) {
  const api = await startApiHost(children, env);
  let count = 0;
  const start = () => {
    count += 1;
    return startWorkerHost(children, env, {
      name: `worker host ${count}`,
      concurrency: 1,
      ...(named ? { hostname: `bench-host-${count}` } : {}),
    });
  };
  // Awaited by the next trial; marked handled so a failed start waits to be reported there.
  const pending = (promise) => {
    promise.catch(() => undefined);
    return promise;
  };
  let hosts = pending(Promise.all([start(), start()]));
  const warm = new Set();
  const random = seededRandom(mode === 'nats' ? 32 : 23);
  const results = [];
  try {
    for (let n = 1; n <= TRIALS; n++) {
      const began = performance.now();
      const result = await trial(api, hosts, warm, mode, n, random);
      results.push(result);
      progress(
        `  ${mode} ${n}/${TRIALS}: ${seconds(result.ms)} (lease left at the kill ${seconds(result.leaseLeftMs)}, ${result.reason}; the trial took ${seconds(performance.now() - began)}, ${seconds(result.hostWaitMs)} of it waiting for the new host)`,
      );
      const survivor = (await hosts).find((h) => h !== result.holder);
      hosts = pending(Promise.all([survivor, start()]));
    }
  } finally {
    const left = await hosts.catch(() => []);
    await Promise.all(left.map((h) => children.stop(h)));
    await children.stop(api);
  }
  return results;
}

const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
const pad = (text, width) => String(text).padEnd(width);

function report(mode, results) {
  const total = results.map((r) => r.ms);
  const left = results.map((r) => r.leaseLeftMs);
  const after = results.map((r) => r.ms - r.leaseLeftMs);
  const boundMs = (LEASE_S + pollOf(mode)) * 1000;
  const reasons = new Map();
  for (const r of results) reasons.set(r.reason, (reasons.get(r.reason) ?? 0) + 1);
  return {
    mode,
    p50: median(total),
    max: Math.max(...total),
    leftP50: median(left),
    leftMax: Math.max(...left),
    afterP50: median(after),
    afterMax: Math.max(...after),
    boundMs,
    reasons: [...reasons].map(([reason, n]) => `${reason} ×${n}`).join(', '),
  };
}

try {
  const named = canNameHosts();
  progress('resume-latency: starting sqld, nats-server, the fake model and the tool server');
  sqld = await startSqld();
  if (MODES.includes('nats')) nats = await startNats();
  fake = await startFakeOpenAI({
    mode: 'tool-loop',
    tool: 'echo',
    toolArgs: { text: 'warm-up' },
    turns: 2,
    apiKey: KEY,
  });
  const server = await startToolServer();
  tools = server.child;
  const databaseUrl = sqld.url.replace('http:', 'ws:');
  workspace = await prepareWorkspace(children, {
    databaseUrl,
    modelUrl: fake.url,
    apiKey: KEY,
    config: `runs:\n  lease_seconds: ${LEASE_S}\n`,
    prompt: PROMPT,
    mcpServers: { calc: { url: server.url } },
  });
  store = await openStore({ url: databaseUrl });
  const rows = [];
  for (const mode of MODES) {
    progress(
      `resume-latency: ${TRIALS} trials, ${mode === 'nats' ? 'NATS JetStream' : 'polling the store'}`,
    );
    const results = await measure(
      mode,
      workspace.env(mode === 'nats' ? nats.url : undefined),
      named,
    );
    rows.push(report(mode, results));
  }

  console.log('');
  console.log(
    'Resume latency: kill -9 of the worker holding a run (its tool call done, its 2nd turn at the model)',
  );
  console.log(
    "→ the run's next model call, made by the other worker host resuming it from its journal",
  );
  console.log(
    `Hosts: 2 × \`junction worker --concurrency 1\`${named ? ', each with a hostname of its own (unshare --uts)' : ''}, 1 API host, sqld, nats-server, the fake model, a tool server over HTTP; ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}`,
  );
  if (!named) {
    console.log(
      "NOTE: the hosts share this machine's hostname (no UTS namespace could be made): a worker then sees the other's death by its PID at its next idle poll, without waiting for the lease. These figures are of that path, not of hosts on different machines.",
    );
  }
  console.log('');
  console.log('Configured (what bounds it):');
  console.log(
    `  runs.lease_seconds      ${LEASE_S} s here (default ${DEFAULT_LEASE_MS / 1000} s), renewed every ${RENEW_S} s: it runs out ${LEASE_S - RENEW_S}–${LEASE_S} s after the death`,
  );
  console.log(`  idle poll, no bus       ${STORE_POLL_S} s (RunWorkers pollMs)`);
  console.log(
    `  queue.nats.poll_seconds ${BUS_POLL_S} s (idle poll while the bus is up; a death is announced by nobody)`,
  );
  console.log(
    `  sweep                   ${SWEEP_S} s (every worker, busy or not: the fallback when none is idle)`,
  );
  console.log('');
  console.log(
    `${pad('mode', 9)}${pad('trials', 8)}${pad('p50', 9)}${pad('max', 9)}${pad('lease left at kill p50/max', 28)}${pad('then to the call p50/max', 26)}${pad('lease+poll', 12)}${pad('p50/bound', 11)}${pad('max/bound', 11)}attempt 1 ended`,
  );
  for (const r of rows) {
    console.log(
      `${pad(r.mode, 9)}${pad(TRIALS, 8)}${pad(seconds(r.p50), 9)}${pad(seconds(r.max), 9)}${pad(`${seconds(r.leftP50)} / ${seconds(r.leftMax)}`, 28)}${pad(`${seconds(r.afterP50)} / ${seconds(r.afterMax)}`, 26)}${pad(seconds(r.boundMs), 12)}${pad(`${(r.p50 / r.boundMs).toFixed(2)}×`, 11)}${pad(`${(r.max / r.boundMs).toFixed(2)}×`, 11)}${r.reasons}`,
    );
  }
  console.log('');
  console.log(
    `With the default lease the same bound is ${DEFAULT_LEASE_MS / 1000 + STORE_POLL_S} s polling, ${DEFAULT_LEASE_MS / 1000 + BUS_POLL_S} s with NATS; lower runs.lease_seconds (and queue.nats.poll_seconds) to resume sooner.`,
  );
} catch (err) {
  progress(`resume-latency failed: ${err.stack ?? err}`);
  for (const tail of children.tails()) progress(`  ${tail}`);
  process.exitCode = 1;
} finally {
  clearTimeout(bound);
  await cleanup();
}
