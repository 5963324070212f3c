#!/usr/bin/env node
// bench/workflow: a 5-step workflow (inject → agent → switch → agent → transform; an instant
// fake model in its own process) against the same two agent runs submitted back to back
// through the run door without a workflow, on the same store, runner and run workers, in one
// script. The two are measured alternately so drift hits both alike. Prints both medians and
// the ratio; target: the engine adds at most 20% to the wall time of a workflow run.
//
//   pnpm --filter @junction/bench workflow [-- --runs 200 --warmup 20]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { McpClientPool } from '@junction/agent-core/mcp';
import { AgentRunner, createRunDoor, RunWorkers } from '@junction/agent-core/runs';
import { syncEnvironment } from '@junction/agent-core/sync';
import { resolvePaths, Workspace } from '@junction/config-templates';
import { openStore } from '@junction/store';
import { createLogger, createTracing } from '@junction/telemetry';
import { startWorkflowRun, syncWorkflows, WorkflowWorkers } from '@junction/workflows';
import { sequentialPair, startFakeModel } from '../shared.mjs';

const TARGET = 1.2;
const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: { runs: { type: 'string', default: '200' }, warmup: { type: 'string', default: '20' } },
});
const RUNS = Number(values.runs);
const WARMUP = Number(values.warmup);
const KEY = 'sk-bench-key-0000000000';

const WORKFLOW = `id: five
start: prep
states:
  - {id: prep, type: inject, data: {threshold: 1}, resultPath: cfg, transition: first}
  - {id: first, type: agent, agent: writer, task: "first {{ n }}", resultPath: a, transition: route}
  - id: route
    type: switch
    conditions:
      - {if: "len(a.response) > cfg.threshold", next: second}
    defaultNext: second
  - {id: second, type: agent, agent: writer, task: "second {{ n }}", resultPath: b, transition: wrap}
  - {id: wrap, type: transform, expression: '{"a": a.response, "b": b.response}', end: true}
`;

let fake;
process.on('exit', () => fake?.stop());

async function main() {
  fake = await startFakeModel(['--api-key', KEY]);
  const home = mkdtempSync(path.join(os.tmpdir(), 'junction-bench-wf-'));
  const paths = resolvePaths({ XDG_CONFIG_HOME: home });
  const workspace = new Workspace(paths);
  await workspace.init();
  const envDir = workspace.environmentDir('default');
  rmSync(path.join(envDir, 'filesystem.json'));
  rmSync(path.join(envDir, 'agents'), { recursive: true });
  mkdirSync(path.join(envDir, 'agents'));
  mkdirSync(path.join(envDir, 'workflows'), { recursive: true });
  writeFileSync(
    path.join(envDir, 'agents', 'writer.prompt'),
    '---\nmodel: openai/gpt-bench\n---\n{{role "system"}}\nYou write.\n{{role "user"}}\n{{userInput}}\n',
  );
  writeFileSync(path.join(envDir, 'workflows', 'five.workflow.yaml'), WORKFLOW);
  mkdirSync(paths.logsDir, { recursive: true });
  const store = await openStore({ url: paths.databaseFile });
  const pool = new McpClientPool({});
  const sync = await syncEnvironment({
    workspace,
    store,
    pool,
    environment: 'default',
    processEnv: {},
  });
  if (!sync.ok) throw new Error('sync failed');
  await syncWorkflows({ workspace, store, environment: 'default' });
  const logger = createLogger({
    level: 'info',
    format: 'json',
    file: path.join(paths.logsDir, 'junction.log'),
    stream: new Writable({ write: (_c, _e, d) => d() }),
    env: {},
  });
  const tracing = createTracing({ exporter: 'none' });
  const runner = new AgentRunner({
    store,
    pool,
    logger,
    tracer: tracing.tracer,
    modelSettings: { ai_base_url: fake.url },
    env: { OPENAI_API_KEY: KEY },
    defaultTimeoutMs: 60_000,
  });
  const runWorkers = new RunWorkers({ store, runner, logger, concurrency: 2, pollMs: 500 });
  await runWorkers.start();
  const door = createRunDoor({
    store,
    checkModel: () => undefined,
    dispatch: runWorkers,
    endings: runWorkers,
  });
  const ended = new Map();
  const workflowWorkers = new WorkflowWorkers({
    store,
    runs: door,
    logger,
    tracer: tracing.tracer,
    concurrency: 1,
    pollMs: 500,
    onFinished: (run) => {
      const done = ended.get(run.id);
      if (done) done(run);
      else ended.set(run.id, run);
    },
  });
  workflowWorkers.start();
  const env = await store.environments.getByName('default');

  // Baseline: the two agent runs the workflow makes, back to back, through the run door.
  const twoRuns = async (i) => {
    for (const task of [`first ${i}`, `second ${i}`]) {
      const { run } = await door.submit({
        agent_name: 'writer',
        environment_id: env.id,
        task,
        source: 'api',
      });
      const done = await door.waitFor(run.id, { timeoutMs: 60_000 });
      if (done.status !== 'completed')
        throw new Error(`run ${run.id} ended ${done.status}: ${done.error}`);
    }
  };
  const workflowRun = async (i) => {
    const { run } = await startWorkflowRun(
      { store, due: () => workflowWorkers.due(), reserve: () => workflowWorkers.reserve() },
      { workflow_id: 'five', input: { n: i }, source: 'api' },
    );
    const finished =
      ended.get(run.id) ?? (await new Promise((resolve) => ended.set(run.id, resolve)));
    ended.delete(run.id);
    if (finished.status !== 'completed')
      throw new Error(`workflow run ${run.id} ended ${finished.status}: ${finished.error}`);
  };

  const [base, flow] = await sequentialPair(twoRuns, workflowRun, { warmup: WARMUP, runs: RUNS });
  const ratio = flow.median / base.median;
  const pass = ratio <= TARGET;
  process.stdout.write(
    `\nworkflow: 5 steps (inject, agent, switch, agent, transform), ${RUNS} runs after ${WARMUP} warm-up\n\n` +
      `                        two agent runs   workflow run   ratio   target\n` +
      `median ms per run          ${base.median.toFixed(2).padStart(7)}        ${flow.median.toFixed(2).padStart(7)}    ${ratio.toFixed(2)}x  <= ${TARGET.toFixed(2)}x  ${pass ? 'PASS' : 'FAIL'}\n` +
      `p95 ms per run             ${base.p95.toFixed(2).padStart(7)}        ${flow.p95.toFixed(2).padStart(7)}\n`,
  );
  await workflowWorkers.stop({ drainMs: 1000 });
  await runWorkers.stop({ drainMs: 1000 });
  await pool.closeAll();
  await tracing.shutdown();
  await logger.close();
  await store.close();
  fake.stop();
  rmSync(home, { recursive: true, force: true });
  process.exit(pass ? 0 : 1);
}

try {
  await main();
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(2);
}
