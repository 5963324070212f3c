// `junction serve` as the one-command service: REST + /health + /metrics, MCP, the webhook
// routes, workers and alert notifications in one process, stopped cleanly by SIGTERM.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { runCliAsync, syncedWorkspace } from './run-cli.js';
import { startServe, until, type ServeProcess } from './serve-process.js';

const MODEL_KEY = 'sk-serve-model-key-31337';
const REST_KEY = 'rest-key-4242-abcdef';
const WEBHOOK_KEY = 'webhook-key-9191-xyz';

interface Delivery {
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

let fake: FakeOpenAI;
let sink: http.Server;
const deliveries: Delivery[] = [];
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  fake = await startFakeOpenAI({});
  sink = http.createServer((req, res) => {
    let data = '';
    req.setEncoding('utf8').on('data', (d: string) => (data += d));
    req.on('end', () => {
      deliveries.push({ headers: req.headers, body: JSON.parse(data) as Record<string, unknown> });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', () => r()));
  const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/alerts`;
  env = await syncedWorkspace({
    modelUrl: fake.url,
    env: {
      OPENAI_API_KEY: MODEL_KEY,
      JUNCTION_API_KEY: REST_KEY,
      JUNCTION_WEBHOOK_ENABLED: 'true',
      JUNCTION_WEBHOOK_API_KEY: WEBHOOK_KEY,
    },
    config: `notifications:\n  webhook_url: ${sinkUrl}\n  webhook_events: [agent.completed, agent.failed]\n`,
  });
});

afterAll(async () => {
  await fake.close();
  await new Promise<void>((r) => sink.close(() => r()));
});

beforeEach(() => {
  fake.reset();
  deliveries.length = 0;
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are checked with toMatchObject
async function json(url: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url, init);
  const text = await res.text();
  return {
    status: res.status,
    body: text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text,
  };
}

describe('junction serve (all-in-one)', () => {
  let serve: ServeProcess;

  it('serves REST, /health, /metrics, MCP and /execute; runs are executed and alerts sent', async () => {
    serve = await startServe(env);
    try {
      const out = await serve.ready;
      const { api, mcp, webhook } = serve.ports;
      expect(out).toContain(`http://127.0.0.1:${api}/api/v1`);
      expect(out).toContain(`http://127.0.0.1:${mcp}/mcp`);
      expect(out).toContain(`http://127.0.0.1:${webhook}/execute`);
      const rest = `http://127.0.0.1:${api}`;
      const auth = { authorization: `Bearer ${REST_KEY}` };

      const health = await json(`${rest}/health`);
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({
        status: 'healthy',
        database: 'ok',
        scheduler: 'running',
        agents: 1,
        mcp_servers: 1,
      });
      expect(health.body.uptime).toMatch(/\d+s/);
      expect((await json(`${rest}/api/v1/agents`)).status).toBe(401);
      const agents = await json(`${rest}/api/v1/agents`, { headers: auth });
      expect(agents.status).toBe(200);
      const assistant = (agents.body.items as Array<{ id: number; name: string }>).find(
        (a) => a.name === 'assistant',
      )!;
      expect(assistant).toBeDefined();
      expect((await fetch(`http://127.0.0.1:${mcp}/mcp`)).status).toBe(200);
      // With api.keys set, MCP over HTTP needs one too (the Host check is no access control).
      const initialize = (headers: Record<string, string>): Promise<Response> =>
        fetch(`http://127.0.0.1:${mcp}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...headers,
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: {
              protocolVersion: '2025-06-18',
              capabilities: {},
              clientInfo: { name: 't', version: '1' },
            },
          }),
        });
      expect((await initialize({})).status).toBe(401);
      expect((await initialize({ authorization: `Bearer ${REST_KEY}` })).status).toBe(200);

      // The webhook: accepted with the key, executed by the workers, alert delivered.
      fake.script([
        { toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] },
        { text: 'It is 3.' },
      ]);
      const wrong = await json(`http://127.0.0.1:${webhook}/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer nope' },
        body: JSON.stringify({ agent_name: 'assistant', task: 'x' }),
      });
      expect(wrong.status).toBe(401);
      const accepted = await json(`http://127.0.0.1:${webhook}/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${WEBHOOK_KEY}` },
        body: JSON.stringify({ agent_name: 'assistant', task: 'Add 1 and 2' }),
      });
      expect(accepted.status).toBe(202);
      expect(accepted.body).toMatchObject({ agent_name: 'assistant', status: 'running' });
      const runId = accepted.body.run_id as number;
      const done = await until('the webhook run to complete', async () => {
        const r = await json(`http://127.0.0.1:${webhook}/runs/${runId}`, {
          headers: { authorization: `Bearer ${WEBHOOK_KEY}` },
        });
        return r.body.run?.status === 'completed' ? r.body.run : undefined;
      });
      expect(done).toMatchObject({ steps_taken: 2, final_response: 'It is 3.' });
      const alert = await until('the completion alert', async () =>
        deliveries.find((d) => d.body.run_id === runId),
      );
      expect(alert.headers['user-agent']).toBe('Svc-Webhook/1.0');
      expect(alert.body).toMatchObject({
        event: 'agent.completed',
        status: 'completed',
        steps_taken: 2,
      });
      expect(JSON.stringify(alert.body)).not.toContain(MODEL_KEY);

      // REST queue: 202, then completed in the run history.
      fake.script([{ text: 'queued via REST' }]);
      const queued = await json(`${rest}/api/v1/agents/${assistant.id}/queue`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ task: 'hello' }),
      });
      expect(queued.status).toBe(202);
      const restRun = queued.body.id ?? queued.body.run_id;
      await until('the REST run to complete', async () => {
        const r = await json(`${rest}/api/v1/runs/${restRun}`, { headers: auth });
        return r.body.status === 'completed' ? r.body : undefined;
      });

      const metrics = await fetch(`${rest}/metrics`, { headers: auth });
      expect(metrics.status).toBe(200);
      const text = await metrics.text();
      expect(text).toMatch(/agent_runs_total\{agent_name="assistant"\} 2/);
      expect(text).toContain('station_uptime_seconds');
    } finally {
      serve.child.kill('SIGTERM');
    }
    expect(await serve.exit).toBe(0);
    expect(serve.stderr()).not.toContain(MODEL_KEY);
    expect(serve.stderr()).not.toContain(REST_KEY);
  }, 120_000);

  it('on SIGTERM drains in-flight runs for --drain-seconds, re-queues the rest, and exits 0', async () => {
    serve = await startServe(env, {}, ['--drain-seconds', '1']);
    await serve.ready;
    fake.script([{ delayMs: 8_000, text: 'too late' }]);
    const accepted = await json(`http://127.0.0.1:${serve.ports.webhook}/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${WEBHOOK_KEY}` },
      body: JSON.stringify({ agent_name: 'assistant', task: 'slow' }),
    });
    expect(accepted.status).toBe(202);
    await until('the run to start', async () => (fake.requests.length > 0 ? true : undefined));
    const stopped = Date.now();
    serve.child.kill('SIGTERM');
    expect(await serve.exit).toBe(0);
    expect(Date.now() - stopped).toBeLessThan(6_000);
    expect(serve.stdout()).toContain('1 in-flight run(s) re-queued');
    const runs = JSON.parse((await runCliAsync(['runs', 'list', '--json'], env)).stdout) as Array<{
      run_id: number;
      status: string;
    }>;
    expect(runs.find((r) => r.run_id === accepted.body.run_id)?.status).toBe('queued');
  }, 180_000);
});
