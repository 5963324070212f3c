// The contenders' pieces run-overhead and traces share: Junction's side (the one run door,
// queue, store, runner, telemetry) and the alternating measurements of two contenders.
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { createOpenAI } from '@ai-sdk/openai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { dynamicTool, generateText, jsonSchema, stepCountIs } from 'ai';
import { startFakeModel } from '../shared.mjs';
import { createModelCheck } from '@junction/agent-core/models';
import { AgentRunner, RunWorkers, submitRun } from '@junction/agent-core/runs';
import { McpClientPool } from '@junction/agent-core/mcp';
import { syncEnvironment } from '@junction/agent-core/sync';
import { loadConfig, resolvePaths, storeOptionsOf, Workspace } from '@junction/config-templates';
import { composeService } from '@junction/service-kit';
import { openStore } from '@junction/store';
import { createLogger, createMetrics, createTracing } from '@junction/telemetry';

/**
 * The options of a two-contender script: sequential runs after a warm-up, then bursts at a
 * concurrency in alternating rounds.
 */
export function pairArgs(argv = process.argv.slice(2)) {
  const { values } = parseArgs({
    args: argv.filter((a) => a !== '--'),
    options: {
      runs: { type: 'string', default: '300' },
      warmup: { type: 'string', default: '30' },
      concurrency: { type: 'string', default: '16' },
      'throughput-runs': { type: 'string', default: '960' },
      rounds: { type: 'string', default: '8' },
    },
  });
  return {
    runs: Number(values.runs),
    warmup: Number(values.warmup),
    concurrency: Number(values.concurrency),
    count: Number(values['throughput-runs']),
    rounds: Number(values.rounds),
  };
}

/** Model turns per run: a tool call on each but the last. */
export const TURNS = 5;
export const KEY = 'sk-bench-key-0000000000';

const require = createRequire(import.meta.url);
export const mcpPath = require.resolve('@junction/tooling/fixtures/mcp-server.mjs');

/** The fake model in its own process: a tool call of `tool` on each turn but the last. */
export function startFake({ tool = 'add', toolArgs = '{"a":1,"b":2}' } = {}) {
  return startFakeModel([
    '--mode',
    'tool-loop',
    '--tool',
    tool,
    '--tool-args',
    toolArgs,
    '--turns',
    String(TURNS),
    '--api-key',
    KEY,
  ]);
}

/**
 * A fresh workspace whose default environment has the agent `assistant` (model
 * openai/gpt-bench) bound to the fixture MCP server's `tool`; its home, paths and workspace.
 */
async function benchWorkspace(tool, env = {}) {
  const home = mkdtempSync(path.join(os.tmpdir(), 'junction-bench-'));
  const paths = resolvePaths({ ...env, XDG_CONFIG_HOME: home });
  const workspace = new Workspace(paths);
  await workspace.init();
  const envDir = workspace.environmentDir('default');
  rmSync(path.join(envDir, 'filesystem.json'));
  writeFileSync(
    path.join(envDir, 'tools.json'),
    JSON.stringify({
      mcpServers: { calc: { command: process.execPath, args: [mcpPath, '--tools', tool] } },
    }),
  );
  writeFileSync(
    path.join(envDir, 'agents', 'assistant.prompt'),
    `---\nmodel: openai/gpt-bench\ntools: [${tool}]\n---\n{{role "system"}}\nYou add numbers.\n{{role "user"}}\n{{userInput}}\n`,
  );
  mkdirSync(paths.logsDir, { recursive: true });
  return { home, paths, workspace };
}

/** Syncs the bench workspace's default environment into `store`; the pool it connected. */
async function synced(workspace, store, env) {
  const pool = new McpClientPool({});
  const report = await syncEnvironment({
    workspace,
    store,
    pool,
    environment: 'default',
    processEnv: env,
  });
  if (!report.ok) throw new Error('sync failed');
  return pool;
}

/**
 * Junction composed as `junction serve` composes it (service-kit's composeService with
 * `executes` and `traces`): the run door, workers, runner, notifier, metrics, spans kept in the
 * store, the JSON log file — a `turns`-turn agent with the fixture MCP server's `add` tool,
 * `concurrency` workers. Runs are submitted through the door and waited for as a surface does.
 */
export async function startServed(fakeUrl, { concurrency = 1 } = {}) {
  const { home, paths, workspace } = await benchWorkspace('add');
  const env = { XDG_CONFIG_HOME: home, OPENAI_API_KEY: KEY };
  writeFileSync(
    paths.configFile,
    `ai_base_url: ${fakeUrl}\nworkers:\n  concurrency: ${concurrency}\n`,
  );
  const config = loadConfig({ paths, env });
  const store = await openStore(storeOptionsOf(config));
  // The composed service opens its own pool: sync's is closed.
  await (await synced(workspace, store, env)).closeAll();
  const logger = createLogger({
    level: config.log_level,
    format: config.log_format,
    file: path.join(paths.logsDir, 'junction.log'),
    stream: new Writable({ write: (_c, _e, d) => d() }),
    env,
  });
  const service = composeService({
    config,
    store,
    logger,
    env,
    version: 'bench',
    executes: true,
    traces: true,
    workspace,
  });
  await service.start();
  const agent = await store.agents.getByName(
    (await store.environments.getByName('default')).id,
    'assistant',
  );
  return {
    async runOnce(i) {
      const { run } = await service.runs.submit({
        agent_id: agent.id,
        task: `task ${i}`,
        source: 'api',
      });
      const ended = await service.runs.waitFor(run.id, { timeoutMs: 60_000 });
      if (ended.status !== 'completed' || ended.stepsTaken !== TURNS)
        throw new Error(
          `run ${run.id} ended ${ended.status} after ${ended.stepsTaken} turns: ${ended.error}`,
        );
      return ended;
    },
    async close() {
      await service.stop(10_000);
      await logger.close();
      await store.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/**
 * Junction as a contender: queue, store file, runner, metrics, a log file — a `turns`-turn agent
 * with the fixture MCP server's `add` tool. `tracing(store, logger)` makes its tracing (default:
 * spans exported nowhere, as the benchmarks measure the runtime itself); `storeUrl` a store
 * elsewhere than the workspace's file (a libSQL server).
 */
export async function startJunction(
  fakeUrl,
  { turns = TURNS, tracing: makeTracing, storeUrl, tool = 'add', runner: runnerOptions = {} } = {},
) {
  const { home, paths, workspace } = await benchWorkspace(tool);
  const store = await openStore({ url: storeUrl ?? paths.databaseFile });
  const pool = await synced(workspace, store, {});
  const env = await store.environments.getByName('default');
  const agent = await store.agents.getByName(env.id, 'assistant');
  const logger = createLogger({
    level: 'info',
    format: 'json',
    file: path.join(paths.logsDir, 'junction.log'),
    stream: new Writable({ write: (_c, _e, d) => d() }),
    env: {},
  });
  const tracing = makeTracing ? makeTracing(store, logger) : createTracing({ exporter: 'none' });
  const metrics = createMetrics();
  const runner = new AgentRunner({
    store,
    pool,
    logger,
    tracer: tracing.tracer,
    metrics,
    modelSettings: { ai_base_url: fakeUrl },
    env: { OPENAI_API_KEY: KEY },
    defaultTimeoutMs: 60_000,
    ...runnerOptions,
  });
  const waiting = new Map();
  const early = new Map();
  const settle = (run, done) => {
    if (run.status !== 'completed' || run.stepsTaken !== turns) {
      done.reject(
        new Error(`run ${run.id} ended ${run.status} after ${run.stepsTaken} turns: ${run.error}`),
      );
    } else done.resolve(run);
  };
  const checkModel = createModelCheck({ ai_base_url: fakeUrl }, { OPENAI_API_KEY: KEY });
  const makeQueue = (concurrency) =>
    new RunWorkers({
      store,
      runner,
      logger,
      concurrency,
      pollMs: 500,
      onFinished: (run) => {
        const done = waiting.get(run.id);
        if (done) {
          waiting.delete(run.id);
          settle(run, done);
        } else early.set(run.id, run); // finished before its submitter got the id back
      },
    });
  let queue = makeQueue(1);
  await queue.start();
  const submit = async (i) => {
    // Through the one run door, as every caller starts a run.
    const { run } = await submitRun(
      { store, checkModel, dispatch: queue },
      { agent_id: agent.id, task: `task ${i}`, source: 'api' },
    );
    return new Promise((resolve, reject) => {
      const finished = early.get(run.id);
      if (finished) {
        early.delete(run.id);
        settle(finished, { resolve, reject });
      } else waiting.set(run.id, { resolve, reject });
    });
  };
  return {
    runOnce: submit,
    async setConcurrency(n) {
      await queue.stop({ drainMs: 10_000 });
      queue = makeQueue(n);
      await queue.start();
    },
    /** Stops everything; `inspect(store)` (after the spans are flushed) is answered. */
    async close(inspect) {
      await queue.stop({ drainMs: 10_000 });
      await pool.closeAll();
      await tracing.shutdown();
      const seen = inspect ? await inspect(store) : undefined;
      await metrics.shutdown();
      await logger.close();
      await store.close();
      rmSync(home, { recursive: true, force: true });
      return seen;
    },
  };
}

async function burst(runOnce, count, concurrency) {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await runOnce(next++);
    }),
  );
  return (performance.now() - t0) / 1000;
}

/** Runs/s of each at `concurrency`, in alternating rounds so both see the same machine. */
export async function throughputPair(a, b, { count, concurrency, rounds }) {
  const per = Math.ceil(count / rounds);
  let sa = 0;
  let sb = 0;
  for (let r = 0; r < rounds; r++) {
    // Who goes first alternates too, so neither always follows the other's garbage.
    if (r % 2 === 0) {
      sa += await burst(a, per, concurrency);
      sb += await burst(b, per, concurrency);
    } else {
      sb += await burst(b, per, concurrency);
      sa += await burst(a, per, concurrency);
    }
  }
  process.stderr.write(`  ${per * rounds} runs each at concurrency ${concurrency} done\n`);
  return [(per * rounds) / sa, (per * rounds) / sb];
}

/** The baseline: the same agent as a minimal loop — AI SDK + MCP SDK, nothing stored. */
export async function minimalLoop(fakeUrl) {
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
