#!/usr/bin/env node
// bench/remote-store: what a run costs when the store is a libSQL server (sqld on 127.0.0.1,
// over HTTP) instead of a local file. The run-overhead agent (instant fake model in its own
// process, an MCP tool call on each of the first 4 turns) through Junction twice in one script,
// alternating: store on a file, store on sqld. Prints both and the ratios. No target: the
// figure is for operators choosing a deployment (docs/deployment.md quotes it).
//
//   pnpm --filter @junction/bench remote-store [-- --runs 300 --warmup 30 --concurrency 16 --throughput-runs 960 --rounds 8]
import { startSqld } from '@junction/tooling/fixtures/sqld.mjs';
import { pairArgs, startFake, startJunction, throughputPair } from '../run-overhead/contenders.mjs';
import { sequentialPair } from '../shared.mjs';

const { runs, warmup, concurrency, count, rounds } = pairArgs();

const fake = await startFake();
const sqld = await startSqld();
try {
  process.stderr.write(
    `remote-store: 5-turn agent, ${runs} runs after ${warmup} warm-up, then ${count} runs at concurrency ${concurrency}; sqld ${sqld.url}\n`,
  );
  const file = await startJunction(fake.url);
  const remote = await startJunction(fake.url, {
    storeUrl: process.env.BENCH_WS ? sqld.url.replace('http:', 'ws:') : sqld.url,
  });
  const [fileSeq, remoteSeq] = await sequentialPair(file.runOnce, remote.runOnce, { warmup, runs });
  await file.setConcurrency(concurrency);
  await remote.setConcurrency(concurrency);
  const [fileRate, remoteRate] = await throughputPair(file.runOnce, remote.runOnce, {
    count,
    concurrency,
    rounds,
  });
  await file.close();
  await remote.close();
  const fmt = (x) => x.toFixed(2);
  console.log('');
  console.log(`                       file store   sqld store    ratio`);
  console.log(
    `median ms per run      ${fmt(fileSeq.median).padStart(10)}   ${fmt(remoteSeq.median).padStart(10)}   ${fmt(remoteSeq.median / fileSeq.median).padStart(5)}x`,
  );
  console.log(
    `p95 ms per run         ${fmt(fileSeq.p95).padStart(10)}   ${fmt(remoteSeq.p95).padStart(10)}`,
  );
  console.log(
    `runs/s @${String(concurrency).padEnd(3)}           ${fmt(fileRate).padStart(10)}   ${fmt(remoteRate).padStart(10)}   ${fmt(remoteRate / fileRate).padStart(5)}x`,
  );
} finally {
  await sqld.stop();
  fake.stop();
}
