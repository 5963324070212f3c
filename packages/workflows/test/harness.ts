// Real parts for workflow tests: a workspace with agents, a libSQL file store, the agent
// runner against a fake OpenAI-compatible model server, the run workers behind the one run
// door, and the workflow workers.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { resolvePaths, Workspace } from '@junction/config-templates';
import { McpClientPool } from '@junction/agent-core/mcp';
import { AgentRunner, createRunDoor, RunWorkers, type RunDoor } from '@junction/agent-core/runs';
import { syncEnvironment } from '@junction/agent-core/sync';
import { openStore, type Approval, type Store, type WorkflowRun } from '@junction/store';
import {
  createLogger,
  createMetrics,
  createTracing,
  type Metrics,
  type RootLogger,
} from '@junction/telemetry';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { syncWorkflows, WorkflowWorkers, type WorkflowWorkersOptions } from '../src/index.js';
import { HANG_GUARD_MS } from '@junction/tooling/fixtures/eventually.mjs';

export const API_KEY = 'sk-workflow-test-key-0123456789';

export interface Harness {
  home: string;
  dbFile: string;
  workspace: Workspace;
  store: Store;
  fake: FakeOpenAI;
  logger: RootLogger;
  logLines: string[];
  metrics: Metrics;
  tracing: ReturnType<typeof createTracing>;
  runWorkers: RunWorkers;
  door: RunDoor;
  workers: WorkflowWorkers;
  requested: Approval[];
  finished: WorkflowRun[];
  /** Writes agents/<name>.prompt (no tools). */
  agent(name: string): void;
  /** Writes workflows/<file>. */
  workflow(file: string, text: string): void;
  /** Syncs the default environment: agents, then workflows. */
  sync(): Promise<void>;
  /** New workflow workers on the same store (another process's, as far as the store knows). */
  newWorkers(options?: Partial<WorkflowWorkersOptions>): WorkflowWorkers;
  /** Waits until the run has ended (or is in one of `statuses`). */
  waitFor(runId: number, statuses?: string[], ms?: number): Promise<WorkflowRun>;
  close(): Promise<void>;
}

export async function createHarness(
  options: { pollMs?: number; workers?: boolean } = {},
): Promise<Harness> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'junction-wf-'));
  const workspace = new Workspace(resolvePaths({ XDG_CONFIG_HOME: home }));
  await workspace.init();
  const envDir = workspace.environmentDir('default');
  for (const f of readdirSync(path.join(envDir, 'agents'))) rmSync(path.join(envDir, 'agents', f));
  rmSync(path.join(envDir, 'filesystem.json'));
  mkdirSync(path.join(envDir, 'workflows'), { recursive: true });
  const dbFile = path.join(home, 'junction.db');
  const store = await openStore({ url: dbFile });
  const pool = new McpClientPool({ connectTimeoutMs: 10_000, requestTimeoutMs: 10_000 });
  const fake = await startFakeOpenAI();
  const tracing = createTracing({ exporter: 'memory' });
  const metrics = createMetrics();
  const logLines: string[] = [];
  const logger = createLogger({
    level: 'debug',
    format: 'json',
    stream: new Writable({
      write(chunk: Buffer, _encoding, done): void {
        logLines.push(chunk.toString());
        done();
      },
    }),
    env: {},
    secrets: [API_KEY],
  });
  const runner = new AgentRunner({
    store,
    pool,
    logger,
    tracer: tracing.tracer,
    modelSettings: { ai_base_url: fake.url },
    env: { OPENAI_API_KEY: API_KEY },
    defaultTimeoutMs: 30_000,
    maxRetries: 0,
  });
  const runWorkers = new RunWorkers({ store, runner, logger, pollMs: 50, concurrency: 4 });
  // Without workers here, runs and workflow runs wait in the store for other processes.
  if (options.workers !== false) await runWorkers.start();
  const door = createRunDoor({
    store,
    checkModel: () => undefined,
    dispatch: runWorkers,
    endings: runWorkers,
    canceller: runWorkers,
  });
  const requested: Approval[] = [];
  const finished: WorkflowRun[] = [];
  const made: WorkflowWorkers[] = [];
  const newWorkers = (extra: Partial<WorkflowWorkersOptions> = {}): WorkflowWorkers => {
    const w = new WorkflowWorkers({
      store,
      runs: door,
      logger,
      tracer: tracing.tracer,
      metrics,
      pollMs: options.pollMs ?? 50,
      onApprovalRequested: (approval) => {
        requested.push(approval);
      },
      onFinished: (run) => finished.push(run),
      ...extra,
    });
    made.push(w);
    return w;
  };
  const workers = newWorkers();
  if (options.workers !== false) workers.start();
  const h: Harness = {
    home,
    dbFile,
    workspace,
    store,
    fake,
    logger,
    logLines,
    metrics,
    tracing,
    runWorkers,
    door,
    workers,
    requested,
    finished,
    agent(name) {
      writeFileSync(
        path.join(envDir, 'agents', `${name}.prompt`),
        `---\nmodel: openai/gpt-test\n---\n{{role "system"}}\nYou are ${name}.\n{{role "user"}}\n{{userInput}}\n`,
      );
    },
    workflow(file, text) {
      writeFileSync(path.join(envDir, 'workflows', file), text);
    },
    async sync() {
      const report = await syncEnvironment({
        workspace,
        store,
        pool,
        environment: 'default',
        processEnv: {},
      });
      if (!report.ok) throw new Error(`sync failed: ${JSON.stringify(report)}`);
      const wf = await syncWorkflows({ workspace, store, environment: 'default' });
      const bad = wf.workflows.filter((w) => w.status !== 'synced');
      if (bad.length > 0) throw new Error(`workflow sync failed: ${JSON.stringify(bad)}`);
    },
    newWorkers,
    async waitFor(
      runId,
      statuses = ['completed', 'failed', 'cancelled', 'timed_out'],
      ms = 15_000,
    ) {
      // `ms` only ever lengthens the wait: the limit is a hang guard, not a speed check.
      const until = Date.now() + Math.max(ms, HANG_GUARD_MS);
      for (;;) {
        const run = await store.workflowRuns.get(runId);
        if (run && statuses.includes(run.status)) return run;
        if (Date.now() > until) {
          throw new Error(
            `workflow run ${runId} is ${run?.status}, not ${statuses.join('/')}: ${run?.error ?? ''}`,
          );
        }
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async close() {
      for (const w of made) await w.stop({ drainMs: 1000 });
      await runWorkers.stop({ drainMs: 1000 });
      await pool.closeAll();
      await fake.close();
      await tracing.shutdown();
      await metrics.shutdown();
      await logger.close();
      await store.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
  return h;
}
