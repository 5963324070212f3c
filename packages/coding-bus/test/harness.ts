// What the coding-tools tests share: a real store file with an agent and a run, a logger whose
// lines are kept, a git origin with one commit, free ports, and the run context the runner
// would give a tool provider.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { LocalTool, RunToolContext } from '@junction/agent-core/runs';
import type { AgentDefinition } from '@junction/config-templates';
import { openStore, type Agent, type Run, type Store } from '@junction/store';
import { createLogger, createTracing, type RootLogger } from '@junction/telemetry';
import type { CodingSettings } from '../src/index.js';

export const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
};

export function gitOut(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();
}

/** A bare repository (`origin.git`) whose main branch has one commit with README.md. */
export function makeOrigin(dir: string): string {
  const origin = path.join(dir, 'origin.git');
  const seed = path.join(dir, 'seed');
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', origin], { env: GIT_ENV });
  execFileSync('git', ['init', '-q', '-b', 'main', seed], { env: GIT_ENV });
  execFileSync('sh', ['-c', 'echo "# demo" > README.md'], { cwd: seed });
  gitOut(seed, 'add', '-A');
  gitOut(seed, 'commit', '-q', '-m', 'first');
  gitOut(seed, 'push', '-q', origin, 'main');
  return origin;
}

export { freePort } from '@junction/tooling/fixtures/free-port.mjs';

export interface LogLine {
  level: string;
  msg: string;
  [key: string]: unknown;
}

/** A real logger (the process's, with its redaction) whose JSON lines are kept. */
export function keptLogger(): { logger: RootLogger; lines: LogLine[]; text: () => string } {
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      raw.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const logger = createLogger({ level: 'debug', format: 'json', stream, env: {} });
  return {
    logger,
    get lines() {
      return raw.map((l) => JSON.parse(l) as LogLine);
    },
    text: () => raw.join('\n'),
  };
}

export interface World {
  dir: string;
  store: Store;
  agent: Agent;
  run: Run;
}

export async function makeWorld(prefix: string): Promise<World> {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const store = await openStore({ url: path.join(dir, 'junction.db') });
  const env = await store.environments.create({ name: 'default' });
  const agent = await store.agents.create(env.id, { name: 'coder', codingEnabled: true });
  const run = await store.runs.create({
    agentId: agent.id,
    agentName: agent.name,
    environmentId: env.id,
    task: 'change the code',
    source: 'cli',
  });
  return { dir, store, agent, run };
}

/** Spans of the coding tools in these tests (kept in memory). */
export const codingTracing = createTracing({ exporter: 'memory' });

/** The context the runner gives providers, with every recorded event kept. */
export function runContext(
  world: World,
  coding: AgentDefinition['coding'],
): { ctx: RunToolContext; events: Array<{ type: string; payload: Record<string, unknown> }> } {
  const events: Array<{ type: string; payload: Record<string, unknown> }> = [];
  const ctx: RunToolContext = {
    run: world.run,
    agent: world.agent,
    definition: { name: world.agent.name, coding } as unknown as AgentDefinition,
    environment: 'default',
    tracer: codingTracing.tracer,
    event: (type, payload) => events.push({ type, payload }),
  };
  return { ctx, events };
}

/** Calls a tool as the runner would; the answer parsed when it is JSON. */
export async function call(
  tools: readonly LocalTool[],
  name: string,
  args: Record<string, unknown>,
): Promise<{ isError: boolean; text: string; json: Record<string, unknown> }> {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  const out = await tool.execute(args, {});
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(out.text) as Record<string, unknown>;
  } catch {
    // A plain message.
  }
  return { ...out, json };
}

/** Coding settings for a test: a bus on `port` (or the default one), workspaces under `dir`. */
export function testSettings(
  dir: string,
  over: Partial<CodingSettings> & { port?: number; token?: string } = {},
): CodingSettings {
  const { port = 4222, token, ...rest } = over;
  return {
    enabled: true,
    backend: 'opencode-nats',
    nats: {
      url: `nats://127.0.0.1:${port}`,
      subjects: {
        task: 'svc.coding.task',
        stream: 'svc.coding.stream',
        result: 'svc.coding.result',
      },
    },
    opencodeUrl: 'http://127.0.0.1:4096',
    workspaceBasePath: path.join(dir, 'workspaces'),
    taskTimeoutMs: 15_000,
    maxAttempts: 1,
    git: { ...(token ? { token } : {}), tokenSource: 'test', fromKv: false },
    warnings: [],
    ...rest,
  };
}
