#!/usr/bin/env node
// bench/durable-step: what the run journal costs a step (a model turn and the tool call it asks
// for). The same 5-turn agent (instant fake model in its own process, a call of the fixture's
// `echo` tool on each of the first 4 turns — a tool not marked safe to repeat, so every step
// writes both its turn and its call's outcome before going on) run through Junction twice in one
// script: with the journal's step writes (as every run has them), and with them skipped
// (`journalWrites: false`, a knob only this benchmark uses). Prints both and the added cost of
// one step in µs, at concurrency 1 and 16.
//
//   pnpm --filter @junction/bench durable-step [-- --runs 300 --warmup 30 --concurrency 16 --throughput-runs 960 --rounds 8]
// The two are measured alternately (run by run, then burst by burst) so drift hits both alike.
import {
  pairArgs,
  startFake,
  startJunction,
  throughputPair,
  TURNS,
} from '../run-overhead/contenders.mjs';
import { sequentialPair } from '../shared.mjs';

/** The added cost of a durable step at concurrency 1, in µs (issue 32). */
const STEP_TARGET_US = 150;
const STEPS = TURNS - 1;

const {
  runs: RUNS,
  warmup: WARMUP,
  concurrency: CONCURRENCY,
  count: COUNT,
  rounds: ROUNDS,
} = pairArgs();

const fake = await startFake({ tool: 'echo', toolArgs: '{"text":"a side effect"}' });
try {
  process.stderr.write(
    `durable-step: ${TURNS}-turn agent (${STEPS} steps with a tool call), ${RUNS} runs after ${WARMUP} warm-up, then ${COUNT} runs at concurrency ${CONCURRENCY}\n`,
  );
  const skipped = await startJunction(fake.url, { tool: 'echo', runner: { journalWrites: false } });
  const durable = await startJunction(fake.url, { tool: 'echo' });
  const [skippedSeq, durableSeq] = await sequentialPair(skipped.runOnce, durable.runOnce, {
    warmup: WARMUP,
    runs: RUNS,
  });
  await skipped.setConcurrency(CONCURRENCY);
  await durable.setConcurrency(CONCURRENCY);
  const [skippedRate, durableRate] = await throughputPair(skipped.runOnce, durable.runOnce, {
    count: COUNT,
    concurrency: CONCURRENCY,
    rounds: ROUNDS,
  });
  await skipped.close();
  await durable.close();

  const stepUs = ((durableSeq.median - skippedSeq.median) * 1000) / STEPS;
  // At concurrency: the machine time a run takes (1 / runs/s), its difference spread over steps.
  const stepUsAt = ((1 / durableRate - 1 / skippedRate) * 1e6) / STEPS;
  const fmt = (x) => x.toFixed(2);
  console.log('');
  console.log(`                       no step writes   journal   added a step   target`);
  console.log(
    `median ms per run      ${fmt(skippedSeq.median).padStart(14)}   ${fmt(durableSeq.median).padStart(7)}   ${stepUs.toFixed(0).padStart(9)} µs   <= ${STEP_TARGET_US} µs  ${stepUs <= STEP_TARGET_US ? 'PASS' : 'FAIL'}`,
  );
  console.log(
    `p95 ms per run         ${fmt(skippedSeq.p95).padStart(14)}   ${fmt(durableSeq.p95).padStart(7)}`,
  );
  console.log(
    `runs/s @${String(CONCURRENCY).padEnd(3)}           ${fmt(skippedRate).padStart(14)}   ${fmt(durableRate).padStart(7)}   ${stepUsAt.toFixed(0).padStart(9)} µs   < at 1: ${stepUsAt < stepUs ? 'PASS' : 'FAIL'}`,
  );
  process.exitCode = stepUs <= STEP_TARGET_US && stepUsAt < stepUs ? 0 : 1;
} finally {
  fake.stop();
}
