// A real workspace, store, MCP fixture server and fake OpenAI-compatible model server for runner tests.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { resolvePaths, Workspace } from '@junction/config-templates';
import { openStore, type Agent, type Run, type Store } from '@junction/store';
import {
  createLogger,
  createMetrics,
  createTracing,
  type Metrics,
  type RootLogger,
} from '@junction/telemetry';
import { AgentRunner, type AgentRunnerDeps } from '../src/runs/agent-runner.js';
import { McpClientPool } from '../src/mcp/mcp-client-pool.js';
import { syncEnvironment } from '../src/sync/sync-environment.js';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { fixtureServerPath } from './fixture-server.js';

export const API_KEY = 'sk-test-secret-0123456789';

export interface Harness {
  home: string;
  workspace: Workspace;
  store: Store;
  pool: McpClientPool;
  fake: FakeOpenAI;
  tracing: ReturnType<typeof createTracing>;
  metrics: Metrics;
  logger: RootLogger;
  logLines: string[];
  runner: AgentRunner;
  /** Writes agents/<name>.prompt. */
  agent(name: string, frontMatter: string, body?: string): void;
  /** Syncs the default environment and returns the stored agent. */
  sync(): Promise<void>;
  get(name: string): Promise<Agent>;
  /** A run of the agent, written and claimed by `test-worker`, ready for `runner.execute`. */
  claimed(agentName: string, task: string, variables?: Record<string, string>): Promise<Run>;
  close(): Promise<void>;
}

/** A workspace whose default environment has the fixture MCP server (add, echo, fail, slow). */
export async function createHarness(
  overrides: Partial<AgentRunnerDeps> = {},
  options: { storeUrl?: string } = {},
): Promise<Harness> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'junction-run-'));
  const workspace = new Workspace(resolvePaths({ XDG_CONFIG_HOME: home }));
  await workspace.init();
  const envDir = workspace.environmentDir('default');
  for (const f of readdirSync(path.join(envDir, 'agents'))) rmSync(path.join(envDir, 'agents', f));
  rmSync(path.join(envDir, 'filesystem.json'));
  writeFileSync(
    path.join(envDir, 'tools.json'),
    JSON.stringify({
      mcpServers: { calc: { command: process.execPath, args: [fixtureServerPath] } },
    }),
  );
  const store = await openStore({ url: options.storeUrl ?? ':memory:' });
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
    metrics,
    modelSettings: { ai_base_url: fake.url },
    env: { OPENAI_API_KEY: API_KEY },
    defaultTimeoutMs: 30_000,
    maxRetries: 2,
    ...overrides,
  });
  const h: Harness = {
    home,
    workspace,
    store,
    pool,
    fake,
    tracing,
    metrics,
    logger,
    logLines,
    runner,
    agent(
      name,
      frontMatter,
      body = '{{role "system"}}\nYou are {{agentName}}.\n{{role "user"}}\n{{userInput}}\n',
    ) {
      writeFileSync(
        path.join(envDir, 'agents', `${name}.prompt`),
        `---\n${frontMatter}\n---\n${body}`,
      );
    },
    async sync() {
      const report = await syncEnvironment({
        workspace,
        store,
        pool,
        environment: 'default',
        processEnv: {},
      });
      if (!report.ok) throw new Error(`sync failed: ${JSON.stringify(report, null, 2)}`);
    },
    async get(name) {
      const env = await store.environments.getByName('default');
      const agent = env ? await store.agents.getByName(env.id, name) : undefined;
      if (!agent) throw new Error(`no agent ${name}`);
      return agent;
    },
    async claimed(agentName, task, variables = {}) {
      const agent = await h.get(agentName);
      const run = await store.runs.create({
        agentId: agent.id,
        agentName: agent.name,
        environmentId: agent.environmentId,
        task,
        variables,
        source: 'cli',
      });
      return (await store.runs.claim(run.id, 'test-worker', 60_000))!;
    },
    async close() {
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
