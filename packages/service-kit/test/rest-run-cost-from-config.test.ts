// The REST API of a composed service prices runs with config.yaml's `pricing`, not only the
// built-in list prices: the setting reaches the router through composeService.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig, resolvePaths } from '@junction/config-templates';
import { openStore, type Store } from '@junction/store';
import { createLogger } from '@junction/telemetry';
import { composeService, type Composition } from '../src/index.js';

let home: string;
let store: Store;
const services: Composition[] = [];
const servers: http.Server[] = [];
const runIds: Record<'mini' | 'local', number> = { mini: 0, local: 0 };

/** A service composed from the config.yaml `yaml`, its REST app listening on 127.0.0.1:0. */
async function restOn(yaml: string): Promise<string> {
  const configHome = mkdtempSync(path.join(home, 'config-'));
  mkdirSync(path.join(configHome, 'junction'), { recursive: true });
  writeFileSync(path.join(configHome, 'junction', 'config.yaml'), yaml);
  const env = { XDG_CONFIG_HOME: configHome };
  const config = loadConfig({ paths: resolvePaths(env), env });
  const logger = createLogger({ level: 'error', format: 'json', env: {} });
  const service = composeService({ config, store, logger, env, version: '0', executes: false });
  services.push(service);
  const server = http.createServer(service.restApp());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
}

async function costOf(api: string, runId: number): Promise<unknown> {
  const res = await fetch(`${api}/runs/${runId}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { cost_usd: unknown }).cost_usd;
}

beforeAll(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'junction-cost-'));
  store = await openStore({ url: ':memory:' });
  const env = await store.environments.ensure('default');
  for (const [name, model] of [
    ['mini', 'openai/gpt-4o-mini-2024-07-18'],
    ['local', 'openai-compatible/llama3.1'],
  ] as const) {
    const run = await store.runs.create({
      agentName: 'assistant',
      environmentId: env.id,
      task: 'Count the files',
      source: 'api',
    });
    await store.runs.claimNext('test-worker', 60_000);
    await store.runs.markCompleted(run.id, { model, inputTokens: 1000, outputTokens: 10 });
    runIds[name] = run.id;
  }
});
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  for (const service of services) await service.stop(0);
  await store.close();
  rmSync(home, { recursive: true, force: true });
});

describe('cost_usd of GET /api/v1/runs/:run_id', () => {
  it('is the built-in list price without pricing, null for a model it lacks', async () => {
    const api = await restOn('log_level: error\n');
    // gpt-4o-mini: 1000 × $0.15 + 10 × $0.60 per million.
    expect(await costOf(api, runIds.mini)).toBe(0.000156);
    expect(await costOf(api, runIds.local)).toBeNull();
  });

  it('is the price config.yaml sets, over the built-in one and for models it lacks', async () => {
    const api = await restOn(
      [
        'pricing:',
        '  gpt-4o-mini: { input_per_million: 1, output_per_million: 100 }',
        '  openai-compatible/llama3.1: { input_per_million: 0, output_per_million: 0 }',
        '',
      ].join('\n'),
    );
    expect(await costOf(api, runIds.mini)).toBe(0.002);
    expect(await costOf(api, runIds.local)).toBe(0);
  });
});
