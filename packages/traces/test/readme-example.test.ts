import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { openStore } from '@junction/store';
import { createLogger, createTracing, withSpan } from '@junction/telemetry';
import { createTraceReceiverApp, startTraceRetention, StoreSpanExporter } from '../src/index.js';
import { readmeExample } from '@junction/tooling/fixtures/readme-example.mjs';

describe('README example', () => {
  it('is the code below, verbatim, and it keeps its own spans and those it receives', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'junction-traces-readme-'));
    const databaseFile = path.join(dir, 'junction.db');
    const port = 0;
    const log = console.log;
    const printed: unknown[][] = [];
    console.log = (...args: unknown[]): void => void printed.push(args);
    try {
      // README-EXAMPLE-START
      const store = await openStore({ url: databaseFile });
      const logger = createLogger({ level: 'info' });

      // Spans of other programs: OTLP/HTTP on POST http://127.0.0.1:<port>/v1/traces.
      const receiver = createTraceReceiverApp({ store, logger }).listen(port, '127.0.0.1');

      // This process's own spans, kept in the same store.
      const tracing = createTracing({
        serviceName: 'junction',
        exporter: 'custom',
        spanExporter: new StoreSpanExporter({ store, logger }),
        destination: 'local store',
      });
      await withSpan(tracing.tracer, 'example.work', { 'example.size': 3 }, async () => undefined);
      await tracing.forceFlush();

      // Spans older than 7 days go, then the oldest whole traces above 256 MiB; now and every 10 minutes.
      const retention = startTraceRetention({
        store,
        logger,
        retentionMs: 7 * 24 * 60 * 60 * 1000,
        maxBytes: 256 * 1024 * 1024,
      });
      console.log(await store.spans.stats()); // { spans: 1, bytes: …, oldestUs: … }

      async function shutdown(): Promise<void> {
        retention.stop();
        await new Promise((resolve) => receiver.close(resolve));
        await tracing.shutdown();
        await store.close();
        await logger.close();
      }
      // README-EXAMPLE-END

      console.log = log;
      expect(printed).toEqual([
        [{ spans: 1, bytes: expect.any(Number), oldestUs: expect.any(Number) }],
      ]);
      const [own] = await store.spans.searchTraces({ operation: 'example.work' });
      expect(own).toMatchObject({ rootName: 'example.work', rootService: 'junction' });
      // The retention's first prune (now) kept the fresh span.
      expect(await retention.runOnce()).toBe(0);

      // Another program exports a span over OTLP/HTTP (JSON) to the receiver.
      if (!receiver.listening) await new Promise((resolve) => receiver.once('listening', resolve));
      const { port: bound } = receiver.address() as AddressInfo;
      const startNs = BigInt(Date.now()) * 1_000_000n;
      const res = await fetch(`http://127.0.0.1:${bound}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          resourceSpans: [
            {
              resource: {
                attributes: [{ key: 'service.name', value: { stringValue: 'billing' } }],
              },
              scopeSpans: [
                {
                  scope: { name: 'billing.http' },
                  spans: [
                    {
                      traceId: '5b8efff798038103d269b633813fc60c',
                      spanId: 'eee19b7ec3c1b174',
                      name: 'charge',
                      kind: 2,
                      startTimeUnixNano: String(startNs),
                      endTimeUnixNano: String(startNs + 2_000_000n),
                    },
                  ],
                },
              ],
            },
          ],
        }),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({});
      expect(await store.spans.trace('5b8efff798038103d269b633813fc60c')).toEqual([
        expect.objectContaining({ name: 'charge', serviceName: 'billing', durationUs: 2000 }),
      ]);
      expect((await store.spans.stats()).spans).toBe(2);

      await shutdown();
      expect(receiver.listening).toBe(false);
      expect(store.closed).toBe(true);
    } finally {
      console.log = log;
      fs.rmSync(dir, { recursive: true, force: true });
    }

    const { example, readme } = readmeExample(import.meta.url);
    expect(example.split('\n').length).toBeGreaterThan(10);
    expect(readme).toContain(example);
  });
});
