// The same run requests through all four surfaces — the CLI (`junction agent run`), MCP
// `call_agent`, REST `POST /api/v1/runs` and the webhook `POST /execute` — must get the same
// outcome: the same agent, or the same refusal. They all pass the one run door (submitRun).
// A run started from the CLI fires the alert webhook like any other run.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { loadConfig, resolvePaths, Workspace } from '@junction/config-templates';
import { composeService, type Composition } from '@junction/service-kit';
import { openStore, type Agent, type Store } from '@junction/store';
import { createLogger } from '@junction/telemetry';
import { runCliAsync, tempConfigHome } from './run-cli.js';

/** What a surface answered: the agent a run was started for, or the code of its refusal. */
type Outcome = { agent: number } | { refused: string };

/** The invalid-input code of each surface's own wire check, and the door's: one outcome. */
const INVALID = new Set([
  'INVALID_BODY',
  'INVALID_REQUEST',
  'ARGUMENT_INVALID',
  'RUN_REQUEST_INVALID',
]);

interface Request {
  agent_id?: number;
  agent_name?: string;
  environment?: string;
  task: string;
}

const MODEL_KEY = 'sk-one-door-test-key-123456';
let home: string;
let store: Store;
let service: Composition;
let rest: http.Server;
let webhook: http.Server;
let sink: http.Server;
let mcp: Client;
const alerts: Array<{ event: string; run_id: number }> = [];
const agents: Record<string, Agent> = {};
const environments: Record<string, number> = {};
let env: NodeJS.ProcessEnv;

async function listen(handler: http.RequestListener): Promise<http.Server> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
const urlOf = (server: http.Server): string =>
  `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

beforeAll(async () => {
  home = tempConfigHome();
  sink = await listen((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      const payload = JSON.parse(body) as { event: string; run_id: number };
      alerts.push(payload);
      res.writeHead(200).end();
    });
  });
  env = { XDG_CONFIG_HOME: home, OPENAI_API_KEY: MODEL_KEY };
  const paths = resolvePaths(env);
  mkdirSync(paths.configHome, { recursive: true });
  writeFileSync(
    paths.configFile,
    [
      'ai_model: openai/gpt-4o-mini',
      'webhook:',
      '  enabled: true',
      'notifications:',
      `  webhook_url: ${urlOf(sink)}/alerts`,
      '  webhook_events: [agent.failed]',
      '',
    ].join('\n'),
  );
  store = await openStore({ url: paths.databaseFile });
  for (const name of ['default', 'prod', 'staging']) {
    environments[name] = (await store.environments.ensure(name)).id;
  }
  const add = async (key: string, envName: string, name: string, model?: string) => {
    agents[key] = await store.agents.create(environments[envName] as number, {
      name,
      ...(model ? { model } : {}),
    });
  };
  await add('assistant', 'default', 'assistant');
  await add('twinDefault', 'default', 'twin');
  await add('twinProd', 'prod', 'twin');
  await add('pairProd', 'prod', 'pair');
  await add('pairStaging', 'staging', 'pair');
  // No ANTHROPIC_API_KEY anywhere: its model cannot run.
  await add('keyless', 'default', 'keyless', 'anthropic/claude-3-5-haiku-latest');

  const logger = createLogger({ level: 'error', format: 'json', env: {} });
  service = composeService({
    config: loadConfig({ paths, env }),
    store,
    logger,
    env,
    version: '0.0.0-test',
    executes: true,
    workspace: new Workspace(paths),
  });
  // The workers are never started: runs submitted here stay queued.
  rest = await listen(service.restApp());
  webhook = await listen(service.webhookApp());
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await service.mcpStdio().connect(serverSide);
  mcp = new Client({ name: 'one-door-test', version: '1.0.0' });
  await mcp.connect(clientSide);
});

afterAll(async () => {
  await mcp?.close();
  for (const server of [rest, webhook, sink]) {
    await new Promise<void>((resolve) => {
      server?.closeAllConnections();
      server?.close(() => resolve());
    });
  }
  await service?.stop(0);
  await store?.close();
  rmSync(home, { recursive: true, force: true });
});

async function httpOutcome(url: string, body: Record<string, unknown>): Promise<Outcome> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { run_id?: number; error?: { code: string; message: string } };
  if (res.status === 202) {
    const run = await store.runs.get(json.run_id as number);
    return { agent: run?.agentId as number };
  }
  return refusal(json.error?.code ?? `HTTP ${res.status}`, json.error?.message ?? '');
}

const messages: Record<string, string[]> = {};
function refusal(code: string, message: string): Outcome {
  const kind = INVALID.has(code) ? 'INVALID' : code;
  (messages[kind] ??= []).push(message);
  return { refused: kind };
}

const surfaces: Record<string, (r: Request) => Promise<Outcome | 'not applicable'>> = {
  rest: (r) => httpOutcome(`${urlOf(rest)}/api/v1/runs`, { ...r }),
  webhook: (r) => httpOutcome(`${urlOf(webhook)}/execute`, { ...r }),
  async mcp(r) {
    const args: Record<string, unknown> = { task: r.task, async: true };
    if (r.agent_id !== undefined) args.agent_id = String(r.agent_id);
    if (r.agent_name !== undefined) args.agent_name = r.agent_name;
    if (r.environment !== undefined) {
      // MCP names environments by id; an unknown name has no id, so it gets one nobody has.
      args.environment_id = String(environments[r.environment] ?? 999_999);
    }
    const result = await mcp.callTool({ name: 'call_agent', arguments: args });
    const data = result.structuredContent as
      | { agent_id?: number; error?: { code: string; message: string } }
      | undefined;
    if (!result.isError) return { agent: data?.agent_id as number };
    const text = (result.content as Array<{ text: string }>)[0]?.text ?? '';
    const code = data?.error?.code ?? /\(([A-Z_]+)\)$/.exec(text)?.[1] ?? 'UNKNOWN';
    return refusal(code, text);
  },
  async cli(r) {
    // The CLI names agents by name only.
    if (r.agent_name === undefined) return 'not applicable';
    const args = ['agent', 'run', r.agent_name, r.task, '--json'];
    if (r.environment !== undefined) args.push('--env', r.environment);
    const result = await runCliAsync(args, env);
    const json = JSON.parse(result.stdout) as
      | { run_id: number; agent_id: number }
      | { error: { code: string; message: string } };
    // A started run prints its view (this one then fails: the agent has no prompt file).
    if ('run_id' in json) return { agent: json.agent_id };
    return refusal(json.error.code, json.error.message);
  },
};

const id = (key: string): number => (agents[key] as Agent).id;

const cases: Array<[string, () => Request, () => Outcome]> = [
  [
    'by id',
    () => ({ agent_id: id('assistant'), task: 'hello' }),
    () => ({ agent: id('assistant') }),
  ],
  [
    'by name',
    () => ({ agent_name: 'assistant', task: 'hello' }),
    () => ({ agent: id('assistant') }),
  ],
  [
    'by a name several environments have, one of them "default"',
    () => ({ agent_name: 'twin', task: 'hello' }),
    () => ({ agent: id('twinDefault') }),
  ],
  [
    'by name + environment',
    () => ({ agent_name: 'twin', environment: 'prod', task: 'hello' }),
    () => ({ agent: id('twinProd') }),
  ],
  [
    'by an ambiguous name (several environments, none "default")',
    () => ({ agent_name: 'pair', task: 'hello' }),
    () => ({ refused: 'AGENT_AMBIGUOUS' }),
  ],
  [
    'an unknown agent',
    () => ({ agent_name: 'ghost', task: 'hello' }),
    () => ({ refused: 'AGENT_NOT_FOUND' }),
  ],
  [
    'an unknown environment',
    () => ({ agent_name: 'assistant', environment: 'nowhere', task: 'hello' }),
    () => ({ refused: 'ENVIRONMENT_NOT_FOUND' }),
  ],
  [
    'a missing model key',
    () => ({ agent_name: 'keyless', task: 'hello' }),
    () => ({ refused: 'MODEL_API_KEY_MISSING' }),
  ],
  [
    'an empty task',
    () => ({ agent_name: 'assistant', task: '   ' }),
    () => ({ refused: 'INVALID' }),
  ],
];

describe('one door for runs: every surface answers the same request the same way', () => {
  it.each(cases)('%s', async (_name, request, expected) => {
    const before = await store.runs.count();
    let accepted = 0;
    for (const [surface, send] of Object.entries(surfaces)) {
      const outcome = await send(request());
      if (outcome === 'not applicable') continue;
      expect({ surface, outcome }).toEqual({ surface, outcome: expected() });
      if ('agent' in outcome) accepted += 1;
    }
    // A refusal writes nothing; an acceptance writes exactly one run.
    expect(await store.runs.count()).toBe(before + accepted);
  });

  it('says the same thing about an empty task everywhere', () => {
    const said = messages.INVALID ?? [];
    expect(said).toHaveLength(4);
    for (const message of said) expect(message).toContain('task must not be empty');
  });

  it('fires the alert webhook for a run started from the CLI, like any other run', async () => {
    const result = await runCliAsync(['agent', 'run', 'assistant', 'alert me', '--json'], env);
    const view = JSON.parse(result.stdout) as { run_id: number; status: string };
    // The agent has no prompt file, so the run fails: agent.failed goes to the sink.
    expect(view.status).toBe('error');
    expect(result.status).toBe(8);
    expect(alerts).toContainEqual(
      expect.objectContaining({ event: 'agent.failed', run_id: view.run_id }),
    );
    const run = await store.runs.get(view.run_id);
    expect(run).toMatchObject({ source: 'cli', status: 'error' });
  });
});
