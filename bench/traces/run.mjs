#!/usr/bin/env node
// bench/traces: what keeping traces costs a run. The same 5-turn agent (instant fake model in
// its own process, an MCP tool call on each of the first 4 turns) run through Junction twice in
// one script: with its spans recorded and written to the local store exactly as `junction serve`
// does by default (`traces.enabled`, no `otel_endpoint`: service-kit's traceExportOf), and with
// spans exported nowhere (`traces.enabled: false`). Prints both, the ratios, and the spans kept.
//
//   pnpm --filter @junction/bench traces [-- --runs 300 --warmup 30 --concurrency 16 --throughput-runs 960 --rounds 8]
// The two are measured alternately (run by run, then burst by burst) so drift hits both alike.
import { traceExportOf } from '@junction/service-kit';
import { createTracing } from '@junction/telemetry';
import { pairArgs, startFake, startJunction, throughputPair } from '../run-overhead/contenders.mjs';
import { sequentialPair } from '../shared.mjs';

/** Median time per run with traces kept, against none kept. */
const TIME_TARGET = 1.1;
/** Runs/s at concurrency with traces kept, against none kept. */
const RATE_TARGET = 0.85;

const {
  runs: RUNS,
  warmup: WARMUP,
  concurrency: CONCURRENCY,
  count: COUNT,
  rounds: ROUNDS,
} = pairArgs();

const fake = await startFake();
try {
  process.stderr.write(
    `traces: 5-turn agent, ${RUNS} runs after ${WARMUP} warm-up, then ${COUNT} runs at concurrency ${CONCURRENCY}\n`,
  );
  const bare = await startJunction(fake.url);
  // What serve does with traces on and no otel_endpoint: a batched exporter into the store.
  const kept = await startJunction(fake.url, {
    tracing: (store, logger) =>
      createTracing(
        traceExportOf({ otel_endpoint: undefined }, store, logger, true, undefined).options,
      ),
  });
  const [bareSeq, keptSeq] = await sequentialPair(bare.runOnce, kept.runOnce, {
    warmup: WARMUP,
    runs: RUNS,
  });
  await bare.setConcurrency(CONCURRENCY);
  await kept.setConcurrency(CONCURRENCY);
  const [bareRate, keptRate] = await throughputPair(bare.runOnce, kept.runOnce, {
    count: COUNT,
    concurrency: CONCURRENCY,
    rounds: ROUNDS,
  });
  await bare.close();
  // Every span handed to the exporter written before counting (close flushes the batch).
  const stats = await kept.close((store) => store.spans.stats());
  const runs = WARMUP + RUNS + Math.ceil(COUNT / ROUNDS) * ROUNDS;

  const ratioTime = keptSeq.median / bareSeq.median;
  const ratioRate = keptRate / bareRate;
  const fmt = (x) => x.toFixed(2);
  console.log('');
  console.log(`                       no traces   traces kept   ratio   target`);
  console.log(
    `median ms per run      ${fmt(bareSeq.median).padStart(9)}   ${fmt(keptSeq.median).padStart(11)}   ${fmt(ratioTime).padStart(5)}x  <= ${TIME_TARGET.toFixed(2)}x  ${ratioTime <= TIME_TARGET ? 'PASS' : 'FAIL'}`,
  );
  console.log(
    `p95 ms per run         ${fmt(bareSeq.p95).padStart(9)}   ${fmt(keptSeq.p95).padStart(11)}`,
  );
  console.log(
    `runs/s @${String(CONCURRENCY).padEnd(3)}           ${fmt(bareRate).padStart(9)}   ${fmt(keptRate).padStart(11)}   ${fmt(ratioRate).padStart(5)}x  >= ${RATE_TARGET.toFixed(2)}x  ${ratioRate >= RATE_TARGET ? 'PASS' : 'FAIL'}`,
  );
  console.log(
    `spans kept             ${stats.spans} for ${runs} runs (${fmt(stats.spans / runs)} a run), ${fmt(stats.bytes / 1024 / 1024)} MiB`,
  );
  const complete = stats.spans >= runs * 10;
  if (!complete) console.log(`FAIL: expected at least 10 spans a run to be kept`);
  process.exitCode = ratioTime <= TIME_TARGET && ratioRate >= RATE_TARGET && complete ? 0 : 1;
} finally {
  fake.stop();
}
