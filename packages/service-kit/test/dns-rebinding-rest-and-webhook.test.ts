// Regression (issue 13, item 8): only /mcp checked Host/Origin. With no keys set, a page that
// rebinds its domain to 127.0.0.1 could read run history (GET /api/v1/runs with
// `Host: attacker.example` → 200) and start runs (POST …/queue → 202).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig, resolvePaths } from '@junction/config-templates';
import { openStore, type Store } from '@junction/store';
import { createLogger } from '@junction/telemetry';
import { composeService, type Composition } from '../src/index.js';

let home: string;
let store: Store;
let service: Composition;
const servers: http.Server[] = [];

async function serve(env: NodeJS.ProcessEnv): Promise<{ rest: number; webhook: number }> {
  const config = loadConfig({ paths: resolvePaths(env), env });
  const logger = createLogger({ level: 'error', format: 'json', env: {} });
  service = composeService({ config, store, logger, env, version: '0', executes: false });
  const ports: number[] = [];
  for (const app of [service.restApp(), service.webhookApp()]) {
    const server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    ports.push((server.address() as AddressInfo).port);
  }
  return { rest: ports[0] as number, webhook: ports[1] as number };
}

function request(
  port: number,
  method: string,
  route: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: route,
        headers: { 'content-type': 'application/json', ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

beforeAll(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'junction-rebind-'));
  store = await openStore({ url: ':memory:' });
  const env = await store.environments.ensure('default');
  await store.agents.create(env.id, { name: 'assistant', model: 'openai/gpt-4o-mini' });
});
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await service?.stop(0);
  await store.close();
  rmSync(home, { recursive: true, force: true });
});

describe('REST and the webhook port bound to loopback', () => {
  it('refuse a foreign Host or Origin with 403, and write nothing', async () => {
    const ports = await serve({
      XDG_CONFIG_HOME: home,
      OPENAI_API_KEY: 'sk-rebinding-test-key',
      JUNCTION_WEBHOOK_ENABLED: 'true',
    });
    const foreign = { host: 'attacker.example' };
    const runs = await request(ports.rest, 'GET', '/api/v1/runs', foreign);
    expect(runs.status).toBe(403);
    expect(JSON.parse(runs.body)).toMatchObject({ error: { code: 'HOST_NOT_ALLOWED' } });
    const body = JSON.stringify({ agent_name: 'assistant', task: 'steal' });
    expect((await request(ports.rest, 'POST', '/api/v1/runs', foreign, body)).status).toBe(403);
    expect((await request(ports.webhook, 'POST', '/execute', foreign, body)).status).toBe(403);
    const origin = { host: `127.0.0.1:${ports.webhook}`, origin: 'http://attacker.example' };
    expect((await request(ports.webhook, 'POST', '/execute', origin, body)).status).toBe(403);
    expect(await store.runs.count()).toBe(0);

    // This machine's own names still work, with or without a port, Origin included.
    const own = { host: `localhost:${ports.rest}`, origin: `http://localhost:${ports.rest}` };
    expect((await request(ports.rest, 'GET', '/api/v1/runs', own)).status).toBe(200);
    const queued = await request(ports.webhook, 'POST', '/execute', { host: '127.0.0.1' }, body);
    expect(queued.status).toBe(202);
  });

  it('answer the names JUNCTION_ALLOWED_HOSTS adds, for a proxy', async () => {
    const ports = await serve({
      XDG_CONFIG_HOME: home,
      OPENAI_API_KEY: 'sk-rebinding-test-key',
      JUNCTION_ALLOWED_HOSTS: 'junction.internal.example',
    });
    const proxied = { host: 'junction.internal.example:443' };
    expect((await request(ports.rest, 'GET', '/api/v1/runs', proxied)).status).toBe(200);
    const other = { host: 'other.example' };
    expect((await request(ports.rest, 'GET', '/api/v1/runs', other)).status).toBe(403);
  });
});
