// Real parts for the webhook tests: a libSQL file store, a JSON logger whose lines we read
// back, express apps and HTTP sinks on 127.0.0.1 ephemeral ports.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { RequestHandler } from 'express';
import type { ModelCheck } from '@junction/agent-core/models';
import { createRunDoor } from '@junction/agent-core/runs';
import { keyRing } from '@junction/tooling/fixtures/key-ring.mjs';
import { openStore, type Agent, type Store } from '@junction/store';
import { createLogger, type RootLogger } from '@junction/telemetry';
import { createWebhookApp, type WebhookRouterDeps } from '../src/index.js';

/** A parsed JSON log line. */
export type LogLine = Record<string, unknown> & { level: string; msg: string };

/** A real logger writing JSON lines into memory. */
export function memoryLogger(): { logger: RootLogger; lines: () => LogLine[] } {
  const stream = new PassThrough();
  let text = '';
  stream.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  const logger = createLogger({ level: 'debug', format: 'json', stream, env: {} });
  return {
    logger,
    lines: () =>
      text
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as LogLine),
  };
}

/** A temp-file store with environments `default` and `prod`, agents `assistant` (default), `triage` (prod) and `twin` (in both, plus `staging`). */
export interface Fixture {
  store: Store;
  dir: string;
  assistant: Agent;
  triage: Agent;
  twinDefault: Agent;
  close(): Promise<void>;
}

export async function openFixture(now?: () => Date): Promise<Fixture> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'junction-webhooks-'));
  const store = await openStore({ url: path.join(dir, 'junction.db'), ...(now ? { now } : {}) });
  const def = await store.environments.ensure('default');
  const prod = await store.environments.ensure('prod');
  const staging = await store.environments.ensure('staging');
  const assistant = await store.agents.create(def.id, {
    name: 'assistant',
    model: 'openai/gpt-test',
  });
  const triage = await store.agents.create(prod.id, { name: 'triage' });
  const twinDefault = await store.agents.create(def.id, { name: 'twin' });
  await store.agents.create(prod.id, { name: 'twin' });
  await store.agents.create(prod.id, { name: 'pair' });
  await store.agents.create(staging.id, { name: 'pair' });
  return {
    store,
    dir,
    assistant,
    triage,
    twinDefault,
    close: async () => {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A server listening on 127.0.0.1 at an ephemeral port. */
export interface Listening {
  url: string;
  close(): Promise<void>;
}

export async function listen(handler: http.RequestListener): Promise<Listening> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The app the webhook-server app serves (`createWebhookApp`: the routes flat on it, then JSON 404 and error handlers). */
export async function startWebhookApp(
  fixture: Fixture,
  options: Partial<WebhookRouterDeps> & {
    logger?: RootLogger;
    health?: RequestHandler;
    /** The run door's model check. Default: every model can run. */
    checkModel?: ModelCheck;
    /** The run door's clock (idempotency window). */
    now?: () => Date;
    /** The webhook key (config webhook.api_key), held in a key ring as the composition root does. */
    apiKey?: string;
  } = {},
): Promise<Listening> {
  const logger = options.logger ?? memoryLogger().logger;
  const { health, checkModel, now, apiKey, ...deps } = options;
  // No workers: the run door writes the run `queued` and it stays so.
  const runs = createRunDoor({
    store: fixture.store,
    checkModel: checkModel ?? ((): void => undefined),
    ...(now ? { now } : {}),
  });
  const app = createWebhookApp(
    {
      store: fixture.store,
      runs,
      logger,
      enabled: true,
      ...(apiKey !== undefined ? { keys: keyRing([apiKey], { xApiKey: false }) } : {}),
      ...deps,
    },
    health ? { health } : {},
  );
  return listen(app);
}

/** POSTs a JSON body (or raw text) to `url`. */
export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** One request a sink received. */
export interface SinkRequest {
  at: number;
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** An HTTP sink answering each request with `respond(n)` (1-based): a status, or 'hang' to never answer. */
export async function startSink(
  respond: (n: number) => number | 'hang',
): Promise<Listening & { requests: SinkRequest[] }> {
  const requests: SinkRequest[] = [];
  const server = await listen((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      requests.push({
        at: performance.now(),
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
      });
      const answer = respond(requests.length);
      if (answer === 'hang') return;
      res.writeHead(answer, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  return { ...server, requests };
}
