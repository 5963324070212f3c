#!/usr/bin/env node
// bench/run-overhead: the same 5-turn agent (instant fake model in its own process, one MCP
// tool call on each of the first 4 turns, a final answer on the 5th) run through Junction —
// queue, store, runner, events, spans, metrics, log file — and through a minimal loop (AI SDK
// generateText + MCP SDK client, no persistence), in one script. Prints both and the ratios.
//
//   pnpm --filter @junction/bench run-overhead [-- --runs 300 --warmup 30 --concurrency 16 --throughput-runs 960 --rounds 8]
// The two are measured alternately (run by run, then burst by burst) so drift hits both alike.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  minimalLoop,
  startFake,
  startServed,
  throughputPair,
  TURNS,
  pairArgs,
} from './contenders.mjs';
import { sequentialPair } from '../shared.mjs';

/** Median time per run against the minimal loop's (issue 12 tightened it from 1.5×). */
const TIME_TARGET = 1.3;

const {
  runs: RUNS,
  warmup: WARMUP,
  concurrency: CONCURRENCY,
  count: THROUGHPUT_RUNS,
  rounds: ROUNDS,
} = pairArgs();

/** Runs/s at concurrency against the minimal loop's (issue 32). */
const RATE_TARGET = 0.7;
/** Runs each contender makes alone in its own process before its heap is read (issue 32). */
const HEAP_RUNS = 2000;

/**
 * One contender alone in a fresh process (alone.mjs): ms from the process's start to its first
 * completed run, and its heap after HEAP_RUNS runs (after a full GC).
 */
function alone(contender, fakeUrl) {
  const script = fileURLToPath(new URL('./alone.mjs', import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', script, contender, fakeUrl, String(HEAP_RUNS)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`${contender} alone exited ${code}`));
      else resolve(JSON.parse(out.trim().split('\n').at(-1)));
    });
  });
}

const fake = await startFake();
try {
  process.stderr.write(
    `run-overhead: ${TURNS}-turn agent, ${RUNS} runs after ${WARMUP} warm-up, then ${THROUGHPUT_RUNS} runs at concurrency ${CONCURRENCY}, then ${HEAP_RUNS} runs of each alone\n`,
  );
  const minimal = await minimalLoop(fake.url);
  let j = await startServed(fake.url, { concurrency: 1 });
  const [minSeq, jSeq] = await sequentialPair(minimal.runOnce, j.runOnce, {
    warmup: WARMUP,
    runs: RUNS,
  });
  await j.close();
  j = await startServed(fake.url, { concurrency: CONCURRENCY });
  const [minRate, jRate] = await throughputPair(minimal.runOnce, j.runOnce, {
    count: THROUGHPUT_RUNS,
    concurrency: CONCURRENCY,
    rounds: ROUNDS,
  });
  await minimal.close();
  await j.close();
  // One after the other, so neither shares the machine with the other.
  const minAlone = await alone('minimal', fake.url);
  const jAlone = await alone('junction', fake.url);

  const ratioTime = jSeq.median / minSeq.median;
  const ratioRate = jRate / minRate;
  const fmt = (x) => x.toFixed(2);
  const row = (label, a, b, ratio, target) =>
    console.log(
      `${label.padEnd(23)}${fmt(a).padStart(10)}   ${fmt(b).padStart(8)}   ${ratio === undefined ? '' : `${fmt(ratio).padStart(6)}x`}${target ?? ''}`,
    );
  console.log('');
  console.log(`                       minimal loop   junction     ratio   target`);
  row(
    'median ms per run',
    minSeq.median,
    jSeq.median,
    ratioTime,
    `  <= ${TIME_TARGET.toFixed(2)}x  ${ratioTime <= TIME_TARGET ? 'PASS' : 'FAIL'}`,
  );
  row('p95 ms per run', minSeq.p95, jSeq.p95);
  row(
    `runs/s @${CONCURRENCY}`,
    minRate,
    jRate,
    ratioRate,
    `  >= ${RATE_TARGET.toFixed(2)}x  ${ratioRate >= RATE_TARGET ? 'PASS' : 'FAIL'}`,
  );
  row(
    `heap MB after ${HEAP_RUNS} runs`,
    minAlone.heapMb,
    jAlone.heapMb,
    jAlone.heapMb / minAlone.heapMb,
  );
  row(
    'ms start → 1st run',
    minAlone.firstRunMs,
    jAlone.firstRunMs,
    jAlone.firstRunMs / minAlone.firstRunMs,
  );
  console.log(
    '(junction as `junction serve` composes it: spans kept in the store, the JSON log file, metrics)',
  );
  process.exitCode = ratioTime <= TIME_TARGET && ratioRate >= RATE_TARGET ? 0 : 1;
} finally {
  fake.stop();
}
