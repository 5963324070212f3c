#!/usr/bin/env node
// bench/run-overhead: the same 5-turn agent (instant fake model in its own process, one MCP
// tool call on each of the first 4 turns, a final answer on the 5th) run through Junction —
// queue, store, runner, events, spans, metrics, log file — and through a minimal loop (AI SDK
// generateText + MCP SDK client, no persistence), in one script. Prints both and the ratios.
//
//   pnpm --filter @junction/bench run-overhead [-- --runs 300 --warmup 30 --concurrency 16 --throughput-runs 960 --rounds 8]
// The two are measured alternately (run by run, then burst by burst) so drift hits both alike.
import { createOpenAI } from '@ai-sdk/openai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { dynamicTool, generateText, jsonSchema, stepCountIs } from 'ai';
import {
  KEY,
  mcpPath,
  startFake,
  startJunction,
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

// ---- the minimal loop: AI SDK + MCP SDK, nothing stored ----
async function minimalLoop(fakeUrl) {
  const client = new Client({ name: 'bench-minimal', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [mcpPath, '--tools', 'add'] }),
  );
  const { tools: listed } = await client.listTools();
  const tools = Object.fromEntries(
    listed.map((t) => [
      t.name,
      dynamicTool({
        description: t.description ?? t.name,
        inputSchema: jsonSchema(t.inputSchema),
        execute: async (args) => {
          const r = await client.callTool({ name: t.name, arguments: args });
          return r.content.map((c) => (c.type === 'text' ? c.text : JSON.stringify(c))).join('\n');
        },
      }),
    ]),
  );
  const model = createOpenAI({ apiKey: KEY, baseURL: fakeUrl }).chat('gpt-bench');
  const runOnce = async (i) => {
    const r = await generateText({
      model,
      system: 'You add numbers.',
      messages: [{ role: 'user', content: `task ${i}` }],
      tools,
      stopWhen: stepCountIs(25),
    });
    if (r.steps.length !== TURNS) throw new Error(`minimal loop took ${r.steps.length} turns`);
  };
  return { runOnce, close: () => client.close() };
}

const fake = await startFake();
try {
  process.stderr.write(
    `run-overhead: ${TURNS}-turn agent, ${RUNS} runs after ${WARMUP} warm-up, then ${THROUGHPUT_RUNS} runs at concurrency ${CONCURRENCY}\n`,
  );
  const minimal = await minimalLoop(fake.url);
  const j = await startJunction(fake.url);
  const [minSeq, jSeq] = await sequentialPair(minimal.runOnce, j.runOnce, {
    warmup: WARMUP,
    runs: RUNS,
  });
  await j.setConcurrency(CONCURRENCY);
  const [minRate, jRate] = await throughputPair(minimal.runOnce, j.runOnce, {
    count: THROUGHPUT_RUNS,
    concurrency: CONCURRENCY,
    rounds: ROUNDS,
  });
  await minimal.close();
  await j.close();

  const ratioTime = jSeq.median / minSeq.median;
  const ratioRate = jRate / minRate;
  const fmt = (x) => x.toFixed(2);
  console.log('');
  console.log(`                       minimal loop   junction     ratio   target`);
  console.log(
    `median ms per run      ${fmt(minSeq.median).padStart(10)}   ${fmt(jSeq.median).padStart(8)}   ${fmt(ratioTime).padStart(6)}x  <= ${TIME_TARGET.toFixed(2)}x  ${ratioTime <= TIME_TARGET ? 'PASS' : 'FAIL'}`,
  );
  console.log(
    `p95 ms per run         ${fmt(minSeq.p95).padStart(10)}   ${fmt(jSeq.p95).padStart(8)}`,
  );
  console.log(
    `runs/s @${String(CONCURRENCY).padEnd(3)}           ${fmt(minRate).padStart(10)}   ${fmt(jRate).padStart(8)}   ${fmt(ratioRate).padStart(6)}x  >= 0.60x  ${ratioRate >= 0.6 ? 'PASS' : 'FAIL'}`,
  );
  process.exitCode = ratioTime <= TIME_TARGET && ratioRate >= 0.6 ? 0 : 1;
} finally {
  fake.stop();
}
