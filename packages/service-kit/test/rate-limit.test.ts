// Rate limits (settings `rate_limit`, issue 33 §6): off by default; when on, REST, the webhook
// port and MCP over HTTP each refuse a client over its limit with 429 and Retry-After in the
// surface's own body shape, count each API key on its own and every keyless client by address,
// and never count /health. Real servers on 127.0.0.1, a real store.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig, resolvePaths, Workspace } from '@junction/config-templates';
import { openStore, type Store } from '@junction/store';
import { createLogger } from '@junction/telemetry';
import { composeService, type Composition } from '../src/index.js';

const KEY_A = 'rate-limit-key-a-0123456789';
const KEY_B = 'rate-limit-key-b-0123456789';
const HOOK_KEY = 'rate-limit-webhook-key-0123456789';

let home: string;
let store: Store;
const services: Composition[] = [];
const servers: http.Server[] = [];

interface Ports {
  rest: number;
  webhook: number;
  mcp: number;
}

async function listen(app: http.RequestListener): Promise<number> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return (server.address() as AddressInfo).port;
}

/** A service composed from the config.yaml `yaml`, its three HTTP surfaces listening. */
async function serve(yaml: string): Promise<Ports> {
  const configHome = mkdtempSync(path.join(home, 'config-'));
  mkdirSync(path.join(configHome, 'junction'), { recursive: true });
  writeFileSync(path.join(configHome, 'junction', 'config.yaml'), yaml);
  const env = {
    XDG_CONFIG_HOME: configHome,
    JUNCTION_WEBHOOK_ENABLED: 'true',
    OPENAI_API_KEY: 'sk-rate-limit-test-key',
  };
  const paths = resolvePaths(env);
  const config = loadConfig({ paths, env });
  const logger = createLogger({ level: 'error', format: 'json', env: {} });
  // MCP serves from a workspace and a process that executes runs (never started here).
  const workspace = new Workspace(paths);
  const service = composeService({
    config,
    store,
    logger,
    env,
    version: '0',
    executes: true,
    workspace,
  });
  services.push(service);
  const rest = await listen(service.restApp());
  const webhook = await listen(
    service.webhookApp({ health: (_req, res) => void res.json({ status: 'ok' }) }),
  );
  // MCP's allowed Host names the port it serves, so it is bound first and then given its app.
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  const mcp = (server.address() as AddressInfo).port;
  server.on('request', service.mcpHttp(mcp).app);
  return { rest, webhook, mcp };
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function request(
  port: number,
  method: string,
  route: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: route,
        headers: { 'content-type': 'application/json', host: `127.0.0.1:${port}`, ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The statuses of `count` requests made one after another. */
async function statuses(count: number, make: () => Promise<Answer>): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < count; i += 1) seen.push((await make()).status);
  return seen;
}

const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });

beforeAll(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'junction-rate-limit-'));
  store = await openStore({ url: ':memory:' });
  const env = await store.environments.ensure('default');
  await store.agents.create(env.id, { name: 'assistant', model: 'openai/gpt-4o-mini' });
});
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  for (const service of services.splice(0)) await service.stop(0);
});
afterAll(async () => {
  await store.close();
  rmSync(home, { recursive: true, force: true });
});

describe('rate_limit', () => {
  it('is off by default: many requests, none refused, no RateLimit headers', async () => {
    const ports = await serve('');
    const seen = await statuses(40, () => request(ports.rest, 'GET', '/api/v1/agents'));
    expect(seen.every((status) => status === 200)).toBe(true);
    const last = await request(ports.rest, 'GET', '/api/v1/agents');
    expect(last.headers.ratelimit).toBeUndefined();
  });

  it('refuses REST over the limit with 429, Retry-After and the REST error body; /health is never counted', async () => {
    const ports = await serve(
      'rate_limit:\n  enabled: true\n  requests: 3\n  window_seconds: 600\n',
    );
    expect(await statuses(3, () => request(ports.rest, 'GET', '/api/v1/agents'))).toEqual([
      200, 200, 200,
    ]);
    const refused = await request(ports.rest, 'GET', '/api/v1/agents');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(600);
    expect(refused.headers.ratelimit).toMatch(/r=0/);
    const body = JSON.parse(refused.body) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('RATE_LIMITED');
    expect(body.error.message).toMatch(/3 per 600 s/);
    // A refused POST starts nothing.
    const post = await request(
      ports.rest,
      'POST',
      '/api/v1/agents/assistant/queue',
      {},
      JSON.stringify({ task: 'over the limit' }),
    );
    expect(post.status).toBe(429);
    expect(await store.runs.count()).toBe(0);
    // Probes keep working, however often they ask, however they spell the path.
    const health = await statuses(10, () => request(ports.rest, 'GET', '/health'));
    expect(health.every((status) => status === 200)).toBe(true);
    expect((await request(ports.rest, 'GET', '/health/')).status).toBe(200);
  });

  it('counts clients behind proxy_hops proxies by the address the proxy was reached from', async () => {
    const behind = await serve(
      'rate_limit:\n  enabled: true\n  requests: 1\n  window_seconds: 600\n  proxy_hops: 1\n',
    );
    const from = (address: string): Promise<Answer> =>
      request(behind.rest, 'GET', '/api/v1/agents', {
        'x-forwarded-for': `203.0.113.9, ${address}`,
      });
    // The last entry is what the one proxy saw: two clients, two budgets.
    expect((await from('198.51.100.1')).status).toBe(200);
    expect((await from('198.51.100.2')).status).toBe(200);
    expect((await from('198.51.100.1')).status).toBe(429);
    // A client cannot buy a new budget by writing the header's earlier entries.
    expect(
      (
        await request(behind.rest, 'GET', '/api/v1/agents', {
          'x-forwarded-for': '10.9.9.9, 198.51.100.2',
        })
      ).status,
    ).toBe(429);
  });

  it('without proxy_hops, counts by the connection whatever X-Forwarded-For says', async () => {
    const direct = await serve(
      'rate_limit:\n  enabled: true\n  requests: 1\n  window_seconds: 600\n',
    );
    const spoofed = (address: string): Promise<Answer> =>
      request(direct.rest, 'GET', '/api/v1/agents', { 'x-forwarded-for': address });
    expect((await spoofed('198.51.100.1')).status).toBe(200);
    expect((await spoofed('198.51.100.2')).status).toBe(429);
  });

  it('counts each API key on its own, and refuses invented keys by address', async () => {
    const ports = await serve(
      `api:\n  keys: [${KEY_A}, ${KEY_B}]\nrate_limit:\n  enabled: true\n  requests: 2\n  window_seconds: 600\n`,
    );
    const a = (): Promise<Answer> => request(ports.rest, 'GET', '/api/v1/agents', bearer(KEY_A));
    const b = (): Promise<Answer> => request(ports.rest, 'GET', '/api/v1/agents', bearer(KEY_B));
    expect(await statuses(3, a)).toEqual([200, 200, 429]);
    // Key B has its own budget, spent by no one yet.
    expect(await statuses(3, b)).toEqual([200, 200, 429]);
    // Keys that are not the server's share this address's budget: guessing is limited too.
    let guess = 0;
    const wrong = (): Promise<Answer> =>
      request(ports.rest, 'GET', '/api/v1/agents', bearer(`guess-${(guess += 1)}`));
    expect(await statuses(3, wrong)).toEqual([401, 401, 429]);
  });

  it('refuses POST /execute over its own limit with the webhook error body', async () => {
    const ports = await serve(
      `webhook:\n  api_key: ${HOOK_KEY}\nrate_limit:\n  enabled: true\n  requests: 100\n  execute: 2\n  window_seconds: 600\n`,
    );
    const body = JSON.stringify({ agent_name: 'assistant', task: 'hello' });
    const execute = (): Promise<Answer> =>
      request(ports.webhook, 'POST', '/execute', bearer(HOOK_KEY), body);
    expect(await statuses(2, execute)).toEqual([202, 202]);
    const refused = await execute();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    // Two runs were queued, the refused third was not.
    expect(await store.runs.count()).toBe(2);
    const health = await statuses(5, () => request(ports.webhook, 'GET', '/health'));
    expect(health.every((status) => status === 200)).toBe(true);
    // REST keeps its own, larger limit.
    expect((await request(ports.rest, 'GET', '/api/v1/agents')).status).toBe(200);
  });

  it('refuses /mcp over its limit with a JSON-RPC error and 429', async () => {
    const ports = await serve('rate_limit:\n  enabled: true\n  mcp: 1\n  window_seconds: 600\n');
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'rate-limit-test', version: '0' },
      },
    });
    const headers = { accept: 'application/json, text/event-stream' };
    const first = await request(ports.mcp, 'POST', '/mcp', headers, initialize);
    expect(first.status).toBe(200);
    const refused = await request(ports.mcp, 'POST', '/mcp', headers, initialize);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    const body = JSON.parse(refused.body) as { jsonrpc: string; error: { message: string } };
    expect(body.jsonrpc).toBe('2.0');
    expect(body.error.message).toMatch(/Too many requests/);
  });

  it('refuses a limit that is not a whole number of requests, saying which key', () => {
    const configHome = mkdtempSync(path.join(home, 'config-'));
    mkdirSync(path.join(configHome, 'junction'), { recursive: true });
    writeFileSync(
      path.join(configHome, 'junction', 'config.yaml'),
      'rate_limit:\n  enabled: true\n  requests: 0\n',
    );
    const env = { XDG_CONFIG_HOME: configHome };
    expect(() => loadConfig({ paths: resolvePaths(env), env })).toThrow(/rate_limit\.requests/);
  });
});
