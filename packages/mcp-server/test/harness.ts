// Real parts for the MCP server tests: a workspace on disk, a libSQL file store, the fixture
// MCP tool server, the fake OpenAI-compatible model server, a runner, its workers and the run door.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { expect } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AgentRunner } from '@junction/agent-core/runs';
import { McpClientPool } from '@junction/agent-core/mcp';
import { createModelCheck } from '@junction/agent-core/models';
import { createRunDoor, RunWorkers } from '@junction/agent-core/runs';
import { syncEnvironment } from '@junction/agent-core/sync';
import { resolvePaths, Workspace } from '@junction/config-templates';
import {
  openStore,
  type Agent,
  type AuditLogEntry,
  type Environment,
  type Store,
} from '@junction/store';
import { createLogger, createTracing, type RootLogger } from '@junction/telemetry';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { createMcpServer, type McpServerDeps } from '../src/index.js';
import { eventually } from '@junction/tooling/fixtures/eventually.mjs';

export const fixtureServerPath: string = createRequire(import.meta.url).resolve(
  '@junction/tooling/fixtures/mcp-server.mjs',
);

/** The model API key the runner uses; it must never reach an audit row or a log. */
export const API_KEY = 'sk-test-harness-secret-0123456789';

export interface Harness {
  home: string;
  workspace: Workspace;
  store: Store;
  pool: McpClientPool;
  fake: FakeOpenAI;
  workers: RunWorkers;
  logger: RootLogger;
  logLines: string[];
  /** Deps for createMcpServer (stdio transport, 10 s default wait). */
  deps: McpServerDeps;
  /** The default environment as stored. */
  env: Environment;
  /** Writes agents/<name>.prompt in the default environment. */
  agent(name: string, frontMatter: string): void;
  sync(): Promise<void>;
  get(name: string): Promise<Agent>;
  close(): Promise<void>;
}

/** A synced default environment with the fixture server (tools add, echo, fail, slow). */
export async function createHarness(
  options: { agents?: Record<string, string> } = {},
): Promise<Harness> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'junction-mcp-'));
  const workspace = new Workspace(resolvePaths({ XDG_CONFIG_HOME: home }));
  await workspace.init();
  const envDir = workspace.environmentDir('default');
  for (const f of readdirSync(path.join(envDir, 'agents'))) rmSync(path.join(envDir, 'agents', f));
  rmSync(path.join(envDir, 'filesystem.json'), { force: true });
  writeFileSync(
    path.join(envDir, 'tools.json'),
    JSON.stringify({
      mcpServers: {
        calc: {
          command: process.execPath,
          args: [fixtureServerPath, '--tools', 'add,echo,fail,slow'],
        },
      },
    }),
  );
  const store = await openStore({ url: path.join(home, 'junction.db') });
  const pool = new McpClientPool({ connectTimeoutMs: 10_000, requestTimeoutMs: 10_000 });
  const fake = await startFakeOpenAI();
  const tracing = createTracing({ exporter: 'memory' });
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
    defaultTimeoutMs: 20_000,
    maxRetries: 0,
  });
  const workers = new RunWorkers({ store, runner, logger, pollMs: 20, concurrency: 2 });
  const agent = (name: string, frontMatter: string): void => {
    writeFileSync(
      path.join(envDir, 'agents', `${name}.prompt`),
      `---\n${frontMatter}\n---\n{{role "system"}}\nYou are {{agentName}}.\n{{role "user"}}\n{{userInput}}\n`,
    );
  };
  for (const [name, fm] of Object.entries(options.agents ?? {})) agent(name, fm);
  const sync = async (): Promise<void> => {
    const report = await syncEnvironment({
      workspace,
      store,
      pool,
      environment: 'default',
      processEnv: {},
    });
    if (!report.ok) throw new Error(`sync failed: ${JSON.stringify(report, null, 2)}`);
  };
  await sync();
  await workers.start();
  const runs = createRunDoor({
    store,
    checkModel: createModelCheck({ ai_base_url: fake.url }, { OPENAI_API_KEY: API_KEY }),
    dispatch: workers,
    endings: workers,
    canceller: workers,
  });
  const env = (await store.environments.getByName('default')) as Environment;
  const deps: McpServerDeps = {
    store,
    workspace,
    pool,
    runs,
    logger,
    version: '9.9.9-test',
    transport: 'stdio',
    processEnv: { OPENAI_API_KEY: API_KEY, GITHUB_TOKEN: 'ghp_processEnvSecretValue123' },
    defaultWaitMs: 10_000,
  };
  return {
    home,
    workspace,
    store,
    pool,
    fake,
    workers,
    logger,
    logLines,
    deps,
    env,
    agent,
    sync,
    async get(name) {
      const found = await store.agents.getByName(env.id, name);
      if (!found) throw new Error(`no agent ${name}`);
      return found;
    },
    async close() {
      await workers.stop({ drainMs: 500 });
      await pool.closeAll();
      await fake.close();
      await tracing.shutdown();
      await logger.close();
      await store.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** An SDK client connected to a fresh server over an in-memory transport pair. */
export async function connectInMemory(
  deps: McpServerDeps,
  clientInfo = { name: 'test-client', version: '1.2.3' },
): Promise<{ client: Client; close(): Promise<void> }> {
  const server = createMcpServer(deps);
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client(clientInfo);
  await client.connect(clientTransport);
  return {
    client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

/** The text of a tool result's first content item. */
export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first && first.type === 'text' ? first.text : '';
}

/** Calls a tool and returns the result with the SDK's loose typing narrowed. */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult & { structuredContent?: Record<string, unknown> }> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult & {
    structuredContent?: Record<string, unknown>;
  };
}

/** A tool result as call answers it. */
export type ToolResult = Awaited<ReturnType<typeof call>>;

/** The structured content of a tool result. */
export function dataOf(result: ToolResult): Record<string, unknown> {
  return result.structuredContent as Record<string, unknown>;
}

/** The code and message of a tool error, after checking it is one. */
export function refusal(result: ToolResult): { code: string; message: string; details?: unknown } {
  expect(result.isError).toBe(true);
  const error = (result.structuredContent as { error: { code: string; message: string } }).error;
  expect(textOf(result)).toBe(`${error.message} (${error.code})`);
  return error;
}

/**
 * Audit rows of one action, newest first, once `ready` holds for them (default: there is one).
 * Rows are written after the answer goes out, so a test waits for the ones it made.
 */
export async function auditRowsOf(
  store: Store,
  action: string,
  limit = 20,
  ready: (rows: AuditLogEntry[]) => boolean = (rows) => rows.length > 0,
): Promise<AuditLogEntry[]> {
  return eventually(`the audit rows of ${action}`, async () => {
    const rows = await store.auditLog.list({ action, limit });
    return ready(rows) ? rows : undefined;
  });
}
