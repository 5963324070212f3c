// The load of the scale-out benchmark: runs submitted over REST to the API host, followed in the
// shared store (the one truth of every run, whichever host executes it). Every loop is bounded
// by its count; nothing here outlives the call that started it.
import { AGENT } from './hosts.mjs';

/** How often the store is asked which runs are still queued or running. */
const WATCH_MS = 20;
/** How often the store is asked about the one run a latency sample waits for. */
const SAMPLE_MS = 5;
/** How long the benchmark waits for a run to end (or, under load, for any run to end). */
const RUN_LIMIT_MS = 60_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** How often a submit answered 503 (the store busy) is tried again, as the API asks a client to. */
const SUBMIT_TRIES = 10;

/**
 * `POST /api/v1/runs` for the benchmark's agent; resolves with the queued run's id. A 503
 * (DATABASE_UNAVAILABLE: "retry shortly") is counted in `refused` and tried again.
 */
export async function submit(api, task, refused) {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(`${api}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agent_name: AGENT, task }),
    });
    const body = await res.json();
    if (res.status === 202) return body.run_id;
    if (res.status !== 503 || attempt === SUBMIT_TRIES) {
      throw new Error(`POST /runs answered ${res.status}: ${JSON.stringify(body)}`);
    }
    refused.count += 1;
    await sleep(20 * attempt);
  }
}

/** Throws unless every run ended `completed` after its one model turn. */
function checkCompleted(runs) {
  const bad = runs.filter((run) => run.status !== 'completed' || run.stepsTaken !== 1);
  if (bad.length > 0) {
    const run = bad[0];
    throw new Error(
      `${bad.length} run(s) did not complete in one turn; run ${run.id} ended ${run.status} after ${run.stepsTaken} turns: ${run.error}`,
    );
  }
}

/**
 * Submits `count` runs keeping `inFlight` of them queued or running at all times (a new one as
 * soon as one ends), and answers completed runs/s from the first submit to the last end, with
 * how many runs each worker took. One watcher asks the store which of the runs are still queued
 * or running; a run it did not list, and that was submitted before the question was asked, has
 * ended.
 */
export async function closedLoop(api, store, { count, inFlight, label, refused }) {
  const since = new Date(Date.now());
  const waiting = new Map(); // run id -> { asked: the watcher's generation then, done, fail }
  let generation = 0;
  let broken;
  let watching = true;
  let progress = Date.now();
  const watcher = (async () => {
    while (watching) {
      const asked = ++generation;
      const open = await store.runs.list({ status: ['queued', 'running'], since, limit: 10_000 });
      const still = new Set(open.map((run) => run.id));
      for (const [id, entry] of waiting) {
        if (entry.asked < asked && !still.has(id)) {
          waiting.delete(id);
          progress = Date.now();
          entry.done();
        }
      }
      if (waiting.size > 0 && Date.now() - progress > RUN_LIMIT_MS) {
        throw new Error(`${label}: no run ended for ${RUN_LIMIT_MS / 1000} s`);
      }
      await sleep(WATCH_MS);
    }
  })().catch((err) => {
    broken = err;
    for (const entry of waiting.values()) entry.fail(err);
    waiting.clear();
  });
  const ended = (id) =>
    new Promise((done, fail) => {
      if (broken) fail(broken);
      else waiting.set(id, { asked: generation, done, fail });
    });
  let next = 0;
  const ids = [];
  const t0 = performance.now();
  let seconds;
  try {
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < count) {
          const i = next++;
          const id = await submit(api, `${label} ${i}`, refused);
          ids.push(id);
          await ended(id);
        }
      }),
    );
    seconds = (performance.now() - t0) / 1000;
  } finally {
    watching = false;
    await watcher;
  }
  const mine = new Set(ids);
  const runs = (await store.runs.list({ since, limit: 10_000 })).filter((r) => mine.has(r.id));
  if (runs.length !== count) throw new Error(`${label}: found ${runs.length} of ${count} runs`);
  checkCompleted(runs);
  const byWorker = new Map();
  for (const run of runs) byWorker.set(run.workerId, (byWorker.get(run.workerId) ?? 0) + 1);
  return { rate: count / seconds, seconds, byWorker };
}

/** The least pause between latency samples: the worker that ran the last one is idle again. */
const MIN_GAP_MS = 50;

/**
 * Submits `count` runs one at a time, each after the one before has ended and a pause of
 * MIN_GAP_MS plus a seeded random part up to `spreadMs` (the workers' store poll interval), so
 * runs arrive at every phase of a worker's poll instead of keeping step with it; answers each
 * run's dispatch latency: claimed (`startedAt`, written by the worker) minus queued
 * (`queuedAt`, written by the API host), in ms, from the store.
 */
export async function dispatchLatencies(api, store, { count, spreadMs, label, random, refused }) {
  const latencies = [];
  for (let i = 0; i < count; i++) {
    await sleep(MIN_GAP_MS + spreadMs * random());
    const id = await submit(api, `${label} ${i}`, refused);
    const deadline = Date.now() + RUN_LIMIT_MS;
    let run = await store.runs.get(id);
    while (run.status === 'queued' || run.status === 'running') {
      if (Date.now() > deadline) throw new Error(`${label}: run ${id} did not end in time`);
      await sleep(SAMPLE_MS);
      run = await store.runs.get(id);
    }
    checkCompleted([run]);
    latencies.push(run.startedAt.getTime() - run.queuedAt.getTime());
  }
  return latencies;
}
