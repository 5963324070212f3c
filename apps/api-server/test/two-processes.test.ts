// The deployment of docs/deploy.md on one host: a webhook-server and an api-server, each its
// own process, sharing one store file. A run accepted by the webhook server is executed by the
// api-server's workers; both answer /health; SIGTERM drains and exits 0.
// Each app runs from the folder its container image ships (its Dockerfile's `pnpm deploy`
// step, made here in a temp folder outside the workspace): there is no Docker engine in CI,
// so this is how the images' contents are shown to run — with only their own node_modules.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  ASSISTANT_PROMPT,
  writeAssistantWorkspace,
} from '@junction/tooling/fixtures/assistant-workspace.mjs';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import {
  deployApp,
  freePorts,
  pollUntil,
  repoRoot,
  runCli,
  startProcess,
  waitForHealthy,
  type AppProcess,
} from './processes.js';

const MODEL_KEY = 'sk-two-processes-key-123456789';
const WEBHOOK_KEY = 'whk-two-processes-key-987654321';

interface RunJson {
  run_id: number;
  status: string;
  steps_taken: number;
  final_response: string | null;
  error: string | null;
}

let fake: FakeOpenAI;
let home: string;
let base: NodeJS.ProcessEnv;
let ports: { api: number; mcp: number; webhook: number };
let webhook: AppProcess;
let api: AppProcess;
/** The main scripts of the deployed folders. */
let apiServerMain: string;
let webhookServerMain: string;
const started: AppProcess[] = [];

const webhookUrl = (p: string): string => `http://127.0.0.1:${ports.webhook}${p}`;
const apiUrl = (p: string): string => `http://127.0.0.1:${ports.api}${p}`;

function start(script: string, env: NodeJS.ProcessEnv = {}): AppProcess {
  const app = startProcess(script, { ...base, ...env });
  started.push(app);
  return app;
}

async function execute(task: string, city: string): Promise<Response> {
  return fetch(webhookUrl('/execute'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${WEBHOOK_KEY}` },
    body: JSON.stringify({ agent_name: 'assistant', task, variables: { city } }),
  });
}

async function restRun(id: number): Promise<RunJson> {
  const res = await fetch(apiUrl(`/api/v1/runs/${id}`));
  expect(res.status).toBe(200);
  return (await res.json()) as RunJson;
}

beforeAll(async () => {
  fake = await startFakeOpenAI({});
  home = mkdtempSync(path.join(os.tmpdir(), 'junction-apps-'));
  // One after the other: two deploys at once would compete for the 2 cores with the others.
  apiServerMain = await deployApp('@junction/api-server', path.join(home, 'image-api-server'));
  webhookServerMain = await deployApp(
    '@junction/webhook-server',
    path.join(home, 'image-webhook-server'),
  );
  const [api, mcp, webhook] = await freePorts(3);
  ports = { api: api!, mcp: mcp!, webhook: webhook! };
  base = {
    HOME: home,
    XDG_CONFIG_HOME: home,
    OPENAI_API_KEY: MODEL_KEY,
    JUNCTION_DATABASE_URL: `file:${path.join(home, 'junction.db')}`,
    JUNCTION_API_PORT: String(ports.api),
    JUNCTION_MCP_PORT: String(ports.mcp),
    JUNCTION_WEBHOOK_PORT: String(ports.webhook),
  };
  // The workspace, as an operator prepares it with the CLI before starting the containers.
  expect((await runCli(['init'], base)).exit.code).toBe(0);
  writeAssistantWorkspace(path.join(home, 'junction'), {
    modelUrl: fake.url,
    prompt: ASSISTANT_PROMPT.replace('{{userInput}}', '{{userInput}} in {{city}}'),
  });
  const sync = await runCli(['sync', 'default'], base);
  expect(sync.stderr).toBe('');
  expect(sync.exit.code).toBe(0);
}, 180_000);

afterAll(async () => {
  await Promise.all(started.map((app) => app.stop('SIGKILL')));
  await fake.close();
  rmSync(home, { recursive: true, force: true });
});

describe('webhook-server and api-server sharing one store', () => {
  it('ship as folders outside the workspace, with production dependencies only', () => {
    for (const main of [apiServerMain, webhookServerMain]) {
      const root = path.dirname(path.dirname(main));
      expect(root.startsWith(repoRoot)).toBe(false);
      expect(existsSync(path.join(root, 'node_modules/@junction/store/drizzle'))).toBe(true);
      const installed = readdirSync(path.join(root, 'node_modules/.pnpm'));
      expect(installed.filter((name) => /^(jest|typescript|eslint)@/.test(name))).toEqual([]);
    }
  });

  it('start and answer /health', async () => {
    webhook = start(webhookServerMain, {
      JUNCTION_WEBHOOK_ENABLED: 'true',
      JUNCTION_WEBHOOK_API_KEY: WEBHOOK_KEY,
    });
    api = start(apiServerMain, { JUNCTION_WORKERS: '2' });
    await Promise.all([
      waitForHealthy(webhookUrl('/health'), webhook),
      waitForHealthy(apiUrl('/health'), api),
    ]);

    const wh = await fetch(webhookUrl('/health'));
    expect(wh.status).toBe(200);
    expect(await wh.json()).toEqual({
      status: 'healthy',
      version: '0.1.0',
      uptime: expect.stringMatching(/^\d+s$/),
      database: 'ok',
    });
    const ah = await fetch(apiUrl('/health'));
    expect(ah.status).toBe(200);
    expect(await ah.json()).toMatchObject({
      status: 'healthy',
      database: 'ok',
      scheduler: 'running',
      agents: expect.any(Number),
    });
    // Probes need no key, but the webhook routes do.
    expect((await fetch(webhookUrl('/runs/1'))).status).toBe(401);
  });

  it("executes a run accepted by the webhook server on the api-server's workers", async () => {
    fake.reset();
    fake.script([
      { toolCalls: [{ name: 'add', arguments: { a: 20, b: 22 } }] },
      { text: 'It is 42.' },
    ]);
    const res = await execute('Add 20 and 22', 'Paris');
    expect(res.status).toBe(202);
    const accepted = (await res.json()) as { run_id: number; status: string; agent_name: string };
    expect(accepted).toMatchObject({ agent_name: 'assistant', status: 'running' });

    const run = await pollUntil(
      () => restRun(accepted.run_id),
      (r) => !['queued', 'running'].includes(r.status),
    );
    expect(run).toMatchObject({
      run_id: accepted.run_id,
      status: 'completed',
      steps_taken: 2,
      final_response: 'It is 42.',
      error: null,
    });
    expect(JSON.stringify(fake.requests[0]!.body.messages)).toContain('Add 20 and 22 in Paris');
    // The webhook server reads the same row from the shared store.
    const status = await fetch(webhookUrl(`/runs/${accepted.run_id}`), {
      headers: { authorization: `Bearer ${WEBHOOK_KEY}` },
    });
    expect(((await status.json()) as { run: { status: string } }).run.status).toBe('completed');
    // Only the api-server executed it; both log JSON lines, keys redacted.
    const completedBy = (app: AppProcess): boolean =>
      app.logs().some((r) => r.msg === 'run completed' && r.run_id === accepted.run_id);
    expect(completedBy(api)).toBe(true);
    expect(completedBy(webhook)).toBe(false);
    expect(webhook.stdout() + api.stdout()).not.toContain(WEBHOOK_KEY);
    expect(webhook.stdout() + api.stdout()).not.toContain(MODEL_KEY);
  });

  it('on SIGTERM the api-server lets an in-flight run finish, then exits 0', async () => {
    fake.reset();
    fake.script([{ delayMs: 1500, text: 'slow but done' }]);
    const accepted = (await (await execute('Take your time', 'Oslo')).json()) as {
      run_id: number;
    };
    await pollUntil(
      () => restRun(accepted.run_id),
      (r) => r.status === 'running',
    );
    const exit = await api.stop('SIGTERM');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(api.stderr()).toBe('');
    const status = await fetch(webhookUrl(`/runs/${accepted.run_id}`), {
      headers: { authorization: `Bearer ${WEBHOOK_KEY}` },
    });
    expect(((await status.json()) as { run: RunJson }).run).toMatchObject({
      status: 'completed',
      final_response: 'slow but done',
    });
    const msgs = api.logs().map((r) => r.msg);
    expect(msgs).toEqual(expect.arrayContaining(['shutting down', 'stopped']));
  });

  it('JUNCTION_DRAIN_SECONDS bounds the drain: a run still going is put back in the queue', async () => {
    fake.reset();
    fake.script([{ delayMs: 20_000, text: 'too late' }]);
    api = start(apiServerMain, { JUNCTION_DRAIN_SECONDS: '1' });
    await waitForHealthy(apiUrl('/health'), api);
    const accepted = (await (await execute('Never mind', 'Rome')).json()) as { run_id: number };
    await pollUntil(
      () => restRun(accepted.run_id),
      (r) => r.status === 'running',
    );
    const t0 = Date.now();
    expect(await api.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    expect(Date.now() - t0).toBeLessThan(6000);
    expect(api.logs()).toContainEqual(expect.objectContaining({ msg: 'stopped', requeued: 1 }));
    const status = await fetch(webhookUrl(`/runs/${accepted.run_id}`), {
      headers: { authorization: `Bearer ${WEBHOOK_KEY}` },
    });
    expect(((await status.json()) as { run: RunJson }).run.status).toBe('queued');
  });

  it("the image's worker (node dist/worker-main.js) executes what an api-server without workers accepts", async () => {
    fake.reset();
    api = start(apiServerMain, { JUNCTION_RUN_WORKERS: 'false' });
    await waitForHealthy(apiUrl('/health'), api);
    const [healthPort] = await freePorts(1);
    const probe = (p: string): string => `http://127.0.0.1:${healthPort}${p}`;
    const worker = start(path.join(path.dirname(apiServerMain), 'worker-main.js'), {
      JUNCTION_API_PORT: String(healthPort),
      JUNCTION_WORKERS: '2',
    });
    await waitForHealthy(probe('/health'), worker);
    expect(await (await fetch(apiUrl('/health'))).json()).toMatchObject({
      workers: { runs: 0, in_flight: 0, workflows: true },
    });
    expect(await (await fetch(probe('/health'))).json()).toMatchObject({
      status: 'healthy',
      workers: { runs: 2, workflows: true },
      queue: { bus: null, connected: false },
    });
    expect((await fetch(probe('/metrics'))).status).toBe(200);
    // Only probes: a worker takes nothing over HTTP.
    expect((await fetch(probe('/api/v1/runs'))).status).toBe(404);
    const res = await fetch(apiUrl('/api/v1/runs'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        agent_name: 'assistant',
        task: 'Hello worker',
        variables: { city: 'Lyon' },
      }),
    });
    expect(res.status).toBe(202);
    const { run_id: id } = (await res.json()) as { run_id: number };
    const run = await pollUntil(
      () => restRun(id),
      (r) => !['queued', 'running'].includes(r.status),
    );
    expect(run).toMatchObject({
      status: 'completed',
      final_response: expect.stringContaining('Hello worker in Lyon'),
    });
    const completedBy = (app: AppProcess): boolean =>
      app.logs().some((r) => r.msg === 'run completed' && r.run_id === id);
    expect(completedBy(worker)).toBe(true);
    expect(completedBy(api)).toBe(false);
    expect(worker.logs()).toContainEqual(
      expect.objectContaining({ msg: 'working', service: 'junction-worker', concurrency: 2 }),
    );
    expect(await worker.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    expect(worker.stderr()).toBe('');
    expect(await api.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  });

  it('on SIGTERM the webhook-server stops accepting and exits 0', async () => {
    expect(await webhook.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    expect(webhook.stderr()).toBe('');
    await expect(fetch(webhookUrl('/health'))).rejects.toThrow();
    expect(webhook.logs().map((r) => r.msg)).toEqual(
      expect.arrayContaining(['serving', 'shutting down', 'stopped']),
    );
  });
});
