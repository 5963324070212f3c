// Real parts for the trace tests: a libSQL file store in a temp folder, a JSON logger whose
// lines we read back, and the receiver listening on 127.0.0.1 at an ephemeral port.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { openStore, type SpanRecord, type Store } from '@junction/store';
import { createLogger, type RootLogger } from '@junction/telemetry';
import { createTraceReceiverApp } from '../src/index.js';

/** A parsed JSON log line. */
export type LogLine = Record<string, unknown> & { level: string; msg: string };

/** A real logger writing JSON lines into memory, every level kept. */
export function memoryLogger(): { logger: RootLogger; lines: () => LogLine[]; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  const logger = createLogger({ level: 'debug', format: 'json', stream, env: {} });
  return {
    logger,
    text: () => text,
    lines: () =>
      text
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as LogLine),
  };
}

/** A store on a file in a fresh temp folder; close() removes the folder. */
export async function openTempStore(
  now?: () => Date,
): Promise<{ store: Store; dir: string; close: () => Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'junction-traces-'));
  const store = await openStore({ url: path.join(dir, 'junction.db'), ...(now ? { now } : {}) });
  return {
    store,
    dir,
    close: async () => {
      if (!store.closed) await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The receiver on 127.0.0.1 at an ephemeral port. */
export interface Receiver {
  /** e.g. http://127.0.0.1:41234 */
  base: string;
  /** `${base}/v1/traces` */
  url: string;
  close(): Promise<void>;
}

export async function startReceiver(
  store: Store,
  logger: RootLogger,
  maxBodyBytes?: number,
): Promise<Receiver> {
  const app = createTraceReceiverApp({ store, logger, ...(maxBodyBytes ? { maxBodyBytes } : {}) });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  return {
    base,
    url: `${base}/v1/traces`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

/** A span record with plain defaults, for tests that write records directly. */
export function spanRecord(overrides: Partial<SpanRecord> = {}): SpanRecord {
  return {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: '00f067aa0ba902b7',
    parentSpanId: null,
    name: 'work',
    kind: 1,
    serviceName: 'junction',
    scopeName: null,
    startUs: Date.UTC(2025, 0, 1) * 1000,
    durationUs: 10,
    statusCode: 0,
    statusMessage: null,
    attributes: {},
    events: [],
    resource: { 'service.name': 'junction' },
    runId: null,
    ...overrides,
  };
}
