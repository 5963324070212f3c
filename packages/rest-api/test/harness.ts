// Real parts for the REST tests: a libSQL file store seeded through its repositories, a real
// RunQueue, the router on a real express server on 127.0.0.1:0, and an ajv validator built
// from the OpenAPI document the server itself serves.
import type { RestDeps } from '../src/deps.js';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { expect } from '@jest/globals';
import { AgentCoreError } from '@junction/agent-core';
import { createModelCheck, type ModelCheck, type ModelSettings } from '@junction/agent-core/models';
import { createRunDoor, RunWorkers, type Pricing } from '@junction/agent-core/runs';
import { keyRing } from '@junction/tooling/fixtures/key-ring.mjs';
import { openStore, type Agent, type Run, type Store } from '@junction/store';
import { createMetrics, createNoopLogger, type Logger, type Metrics } from '@junction/telemetry';
import { createWorkflowDoor, type WorkflowDoor } from '@junction/workflows';
import { Scheduler } from '@junction/scheduler';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import express from 'express';
import { createRestRouter } from '../src/index.js';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** The clock of the store and the router: tests move it to give runs exact durations. */
export class Clock {
  ms = Date.parse('2025-06-01T12:00:00.000Z');
  now = (): Date => new Date(this.ms);
  advance(ms: number): void {
    this.ms += ms;
  }
}

export interface Seed {
  envDefault: number;
  envProd: number;
  /** default/triage: ollama model, two tools, a sub-agent, a schedule. */
  triage: Agent;
  /** default/helper: no model of its own (the configured ollama model). */
  helper: Agent;
  /** production/writer: an OpenAI model while no OpenAI key is set → MODEL_API_KEY_MISSING. */
  writer: Agent;
  /** Runs by name: completed (5 s), failed (2 m), timeout, queued, cli. */
  runs: Record<'completed' | 'failed' | 'timeout' | 'queued' | 'cli', Run>;
}

export interface TestServer {
  url: string;
  store: Store;
  workers: RunWorkers;
  metrics: Metrics;
  clock: Clock;
  seed: Seed;
  dir: string;
  /** The workflow door the router was given (with `workflows: true`). */
  workflows?: WorkflowDoor;
  /** The scheduler the router was given (with `scheduler`). */
  scheduler?: Scheduler;
  /** Runs in the store right now. */
  runCount(): Promise<number>;
  close(): Promise<void>;
}

/** The model settings of the test service: ollama needs no key, OpenAI has none. */
export const MODEL_SETTINGS: ModelSettings = { ai_provider: 'ollama', ai_model: 'llama3.2' };

export const SECRET_VARIABLE = 'ghp_0123456789abcdefSECRET';

async function seed(store: Store, clock: Clock): Promise<Seed> {
  const def = await store.environments.create({ name: 'default' });
  const prod = await store.environments.create({ name: 'production' });
  const fs = await store.mcpServers.upsert(def.id, {
    name: 'filesystem',
    transport: 'stdio',
    command: 'npx',
    args: ['@modelcontextprotocol/server-filesystem'],
    status: 'connected',
  });
  await store.mcpServers.upsert(def.id, {
    name: 'web',
    transport: 'http',
    url: 'http://127.0.0.1:1/mcp',
  });
  await store.mcpServers.upsert(prod.id, {
    name: 'filesystem',
    transport: 'stdio',
    command: 'npx',
    status: 'error',
    lastError: 'spawn failed',
  });
  const tools = await store.tools.replaceForServer(fs.id, [
    { name: 'read_file', description: 'Read a file' },
    { name: 'write_file', description: 'Write a file' },
  ]);
  const helper = await store.agents.create(def.id, {
    name: 'helper',
    description: 'Answers sub-questions',
    promptPath: '/ws/environments/default/agents/helper.prompt',
  });
  const triage = await store.agents.create(def.id, {
    name: 'triage',
    description: 'Sorts incoming issues',
    model: 'ollama/llama3.2',
    maxSteps: 10,
    promptPath: '/ws/environments/default/agents/triage.prompt',
    scheduleCron: '0 * * * *',
    scheduleEnabled: true,
  });
  await store.agents.setToolIds(
    triage.id,
    tools.map((t) => t.id),
  );
  await store.agents.setSubAgentIds(triage.id, [helper.id]);
  const writer = await store.agents.create(prod.id, {
    name: 'writer',
    description: 'Writes release notes',
    model: 'openai/gpt-4o-mini',
    maxSteps: 25,
  });

  const create = (agent: Agent, task: string, source: Run['source'] = 'api'): Promise<Run> =>
    store.runs.create({
      agentId: agent.id,
      agentName: agent.name,
      environmentId: agent.environmentId,
      task,
      variables: { REPO: 'junction', GITHUB_TOKEN: SECRET_VARIABLE },
      source,
    });
  const worker = 'test-host:1:abc';

  const completed = await create(triage, 'Sort issue #1');
  await store.runs.claim(completed.id, worker, 60_000);
  await store.runEvents.record(completed.id, [
    {
      type: 'model_turn',
      payload: { step: 1, model: 'ollama/llama3.2', api_key: 'sk-leak' },
      durationMs: 1200,
    },
    {
      type: 'tool_call',
      payload: { step: 1, server: 'filesystem', tool: 'read_file', success: true },
      durationMs: 30,
    },
    {
      type: 'model_turn',
      payload: { step: 2, model: 'ollama/llama3.2', text: 'Done' },
      durationMs: 900,
    },
  ]);
  clock.advance(5000);
  const completedDone = await store.runs.markCompleted(completed.id, {
    stepsTaken: 2,
    inputTokens: 120,
    outputTokens: 40,
    model: 'ollama/llama3.2',
    finalResponse: 'Labelled as bug',
    workerId: worker,
  });

  clock.advance(60_000);
  const failed = await create(triage, 'Sort issue #2');
  await store.runs.claim(failed.id, worker, 600_000);
  clock.advance(120_000);
  const failedDone = await store.runs.markFailed(failed.id, {
    error: 'model refused',
    workerId: worker,
  });

  clock.advance(60_000);
  const timeout = await create(writer, 'Write notes for 1.2');
  await store.runs.claim(timeout.id, worker, 600_000);
  clock.advance(300_000);
  const timeoutDone = await store.runs.markFailed(timeout.id, {
    status: 'timeout',
    error: 'timed out after 300 s',
    workerId: worker,
  });

  clock.advance(60_000);
  const cli = await create(helper, 'Explain the failure', 'cli');
  await store.runs.claim(cli.id, worker, 60_000);
  clock.advance(800);
  const cliDone = await store.runs.markCompleted(cli.id, { stepsTaken: 1, workerId: worker });

  clock.advance(60_000);
  const queued = await create(triage, 'Sort issue #3');

  return {
    envDefault: def.id,
    envProd: prod.id,
    triage,
    helper,
    writer,
    runs: {
      completed: completedDone,
      failed: failedDone,
      timeout: timeoutDone,
      cli: cliDone,
      queued,
    },
  };
}

export interface ServerOptions {
  apiKeys?: string[];
  maxBodyBytes?: number;
  /** Give the router a real scheduler on the store: started (it takes the lease) or not yet. */
  scheduler?: 'started' | 'stopped';
  /** Replaces the real model check (e.g. with one that fails unexpectedly). */
  checkModel?: ModelCheck;
  /** Start the queue with a worker that completes each run at once. */
  startWorkers?: boolean;
  healthTimeoutMs?: number;
  logger?: Logger;
  /** The store the router sees (e.g. one whose ping hangs); the harness keeps the real one. */
  routerStore?: (store: Store) => Store;
  /** Give the router a real workflow door (approval links on http://127.0.0.1:8587). */
  workflows?: boolean;
  /** The prices of `cost_usd` (config.yaml's `pricing`); default the router's, the built-in ones. */
  pricing?: Pricing;
  /** What tells the router of run changes (the run bus, in a service). */
  runChanges?: RestDeps['runChanges'];
}

/** A real server on 127.0.0.1:0 over a freshly seeded temp-file store. */
export async function startServer(options: ServerOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'junction-rest-'));
  const clock = new Clock();
  const store = await openStore({ url: path.join(dir, 'junction.db'), now: clock.now });
  const seeded = await seed(store, clock);
  const logger = options.logger ?? createNoopLogger();
  const workers = new RunWorkers({
    store,
    logger,
    concurrency: 1,
    pollMs: 20,
    runner: {
      execute: async (run) =>
        store.runs.markCompleted(run.id, { finalResponse: `done: ${run.task}`, stepsTaken: 1 }),
    },
  });
  if (options.startWorkers) await workers.start();
  const runs = createRunDoor({
    store,
    checkModel: options.checkModel ?? createModelCheck(MODEL_SETTINGS, {}),
    dispatch: workers,
    endings: workers,
  });
  const metrics = createMetrics({ startTime: new Date(clock.ms - 3_723_000), now: () => clock.ms });
  const workflows = options.workflows
    ? createWorkflowDoor({ store, publicUrl: 'http://127.0.0.1:8587', now: clock.now })
    : undefined;
  const scheduler = options.scheduler
    ? new Scheduler({
        store,
        runs,
        ...(workflows ? { startWorkflow: (request) => workflows.start(request) } : {}),
        logger,
        owner: 'harness',
        now: clock.now,
      })
    : undefined;
  if (options.scheduler === 'started') await scheduler?.start();
  const app = express();
  app.disable('x-powered-by');
  app.use(
    createRestRouter({
      store: options.routerStore ? options.routerStore(store) : store,
      runs,
      ...(workflows ? { workflows } : {}),
      logger,
      metrics,
      version: '1.2.3-test',
      startedAt: new Date(clock.ms - 3_723_000),
      now: clock.now,
      keys: keyRing(options.apiKeys ?? []),
      secrets: options.apiKeys ?? [],
      ...(scheduler ? { scheduler } : {}),
      ...(options.pricing ? { pricing: options.pricing } : {}),
      ...(options.runChanges ? { runChanges: options.runChanges } : {}),
      ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
      ...(options.healthTimeoutMs !== undefined
        ? { healthTimeoutMs: options.healthTimeoutMs }
        : {}),
    }),
  );
  const server: http.Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    store,
    workers,
    metrics,
    clock,
    seed: seeded,
    dir,
    ...(workflows ? { workflows } : {}),
    ...(scheduler ? { scheduler } : {}),
    runCount: () => store.runs.count(),
    async close(): Promise<void> {
      await scheduler?.stop();
      await workers.stop({ drainMs: 1000 });
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await metrics.shutdown();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Answer {
  status: number;
  headers: Headers;
  /** Parsed JSON, or the text when the body is not JSON. */
  body: unknown;
  text: string;
}

/** fetch that reads the whole answer. */
export async function call(url: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown = text;
  if (text !== '' && (res.headers.get('content-type') ?? '').includes('application/json')) {
    body = JSON.parse(text);
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** POST a JSON body (a string is sent as is). */
export function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return call(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Validates answers against the response schemas of the served OpenAPI document. */
export class OpenApiValidator {
  readonly #ajv: Ajv2020;
  readonly doc: Record<string, unknown>;

  constructor(doc: Record<string, unknown>) {
    this.doc = doc;
    this.#ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.#ajv);
    this.#ajv.addSchema(doc, 'openapi');
  }

  /** The operation object of `method path` (OpenAPI path, e.g. /api/v1/agents/{agent_id}). */
  operation(method: string, apiPath: string): Record<string, unknown> {
    const paths = this.doc.paths as Record<string, Record<string, Record<string, unknown>>>;
    const op = paths[apiPath]?.[method];
    if (!op) throw new Error(`the document has no ${method.toUpperCase()} ${apiPath}`);
    return op;
  }

  /** Asserts that `answer` is documented for the route: its status, and its body by the schema. */
  expectDocumented(method: string, apiPath: string, answer: Answer): void {
    const responses = this.operation(method, apiPath).responses as Record<string, unknown>;
    expect(Object.keys(responses)).toContain(String(answer.status));
    const pointer = [
      'paths',
      apiPath,
      method,
      'responses',
      String(answer.status),
      'content',
      'application/json',
      'schema',
    ]
      .map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1'))
      .join('/');
    const validate = this.#ajv.getSchema(`openapi#/${pointer}`);
    if (!validate) throw new Error(`no JSON schema at ${pointer}`);
    const ok = validate(answer.body);
    if (!ok) {
      throw new Error(
        `${method.toUpperCase()} ${apiPath} ${answer.status} does not match the document: ${this.#ajv.errorsText(validate.errors)}\n${answer.text.slice(0, 2000)}`,
      );
    }
  }
}

/** Fetches /api/v1/openapi.json from the server and builds a validator from it. */
export async function validatorFor(
  server: TestServer,
  headers: Record<string, string> = {},
): Promise<OpenApiValidator> {
  const answer = await call(`${server.url}/api/v1/openapi.json`, { headers });
  expect(answer.status).toBe(200);
  return new OpenApiValidator(answer.body as Record<string, unknown>);
}

/** Asserts an error answer: status, code, and that it is JSON in the documented shape. */
export function expectError(
  answer: Answer,
  status: number,
  code: string,
): { message: string; details?: Record<string, unknown> } {
  if (
    answer.status !== status ||
    (answer.body as { error?: { code?: string } }).error?.code !== code
  ) {
    throw new Error(
      `expected ${status} ${code}, got ${answer.status}: ${answer.text.slice(0, 500)}`,
    );
  }
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  return (answer.body as { error: { message: string; details?: Record<string, unknown> } }).error;
}

export { AgentCoreError };
