// The receiver against the official OpenTelemetry exporters: what they send (protobuf from
// exporter-trace-otlp-proto, OTLP/JSON from exporter-trace-otlp-http, plain and gzip) is what
// the store keeps.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { context, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter as HttpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import type { Store } from '@junction/store';
import { memoryLogger, openTempStore, startReceiver, type Receiver } from './helpers.js';

type ExporterConfig = NonNullable<ConstructorParameters<typeof ProtobufExporter>[0]>;
const GZIP = 'gzip' as ExporterConfig['compression'];

const EXPORTERS: Array<
  [string, (url: string) => SpanExporter, { encoding: string; gzip: boolean }]
> = [
  ['protobuf', (url) => new ProtobufExporter({ url }), { encoding: 'protobuf', gzip: false }],
  [
    'protobuf, gzip',
    (url) => new ProtobufExporter({ url, compression: GZIP }),
    { encoding: 'protobuf', gzip: true },
  ],
  ['JSON', (url) => new HttpJsonExporter({ url }), { encoding: 'json', gzip: false }],
  [
    'JSON, gzip',
    (url) => new HttpJsonExporter({ url, compression: GZIP }),
    { encoding: 'json', gzip: true },
  ],
];

/** Three nested spans as an agent run makes them: a server span, a client call, a failed step. */
function recordRun(tracer: Tracer): { traceId: string; ids: string[] } {
  const root = tracer.startSpan('POST /api/v1/runs', {
    kind: SpanKind.SERVER,
    attributes: {
      run_id: 42,
      'http.method': 'POST',
      retries: 3,
      ratio: 0.25,
      cached: false,
      tags: ['a', 'b'],
    },
  });
  const rootCtx = trace.setSpan(context.active(), root);
  const call = tracer.startSpan('llm.generate', { kind: SpanKind.CLIENT }, rootCtx);
  call.addEvent('retry', { attempt: 1, reason: 'rate limited' });
  const step = tracer.startSpan('tool.call', {}, trace.setSpan(rootCtx, call));
  step.setAttribute('tool.name', 'search');
  step.recordException(new Error('tool exploded'));
  step.setStatus({ code: SpanStatusCode.ERROR, message: 'tool exploded' });
  step.end();
  call.setStatus({ code: SpanStatusCode.OK });
  call.end();
  root.end();
  const ids = [root, call, step].map((s) => s.spanContext().spanId);
  return { traceId: root.spanContext().traceId, ids };
}

describe.each(EXPORTERS)(
  'spans sent by the official exporter (%s)',
  (_name, makeExporter, sent) => {
    let store: Store;
    let closeStore: () => Promise<void>;
    let receiver: Receiver;
    let log: ReturnType<typeof memoryLogger>;

    beforeEach(async () => {
      ({ store, close: closeStore } = await openTempStore());
      log = memoryLogger();
      receiver = await startReceiver(store, log.logger);
    });
    afterEach(async () => {
      await receiver.close();
      await closeStore();
    });

    it('are stored with their parents, kinds, attributes, events, status and service', async () => {
      const provider = new BasicTracerProvider({
        resource: resourceFromAttributes({
          'service.name': 'checkout',
          'deployment.environment': 'test',
        }),
        spanProcessors: [new SimpleSpanProcessor(makeExporter(receiver.url))],
      });
      const { traceId, ids } = recordRun(provider.getTracer('junction-test', '1.0.0'));
      await provider.forceFlush();
      await provider.shutdown();

      // Spans started within the same microsecond tie on start: take them by id, not by order.
      const stored = await store.spans.trace(traceId);
      expect(stored).toHaveLength(3);
      const spans = ids.map((id) => stored.find((s) => s.spanId === id));
      expect(spans.map((s) => s?.name)).toEqual(['POST /api/v1/runs', 'llm.generate', 'tool.call']);
      const [root, call, step] = spans;
      expect(spans.map((s) => s?.parentSpanId)).toEqual([null, ids[0], ids[1]]);
      // OTLP kinds: server 2, client 3, internal 1.
      expect(spans.map((s) => s?.kind)).toEqual([2, 3, 1]);
      for (const span of stored) {
        expect(span.serviceName).toBe('checkout');
        expect(span.scopeName).toBe('junction-test');
        expect(span.resource).toMatchObject({
          'service.name': 'checkout',
          'deployment.environment': 'test',
        });
        expect(span.startUs).toBeGreaterThan(Date.UTC(2024, 0, 1) * 1000);
        expect(span.startUs).toBeLessThanOrEqual(Date.now() * 1000);
      }
      expect(root?.attributes).toEqual({
        run_id: 42,
        'http.method': 'POST',
        retries: 3,
        ratio: 0.25,
        cached: false,
        tags: ['a', 'b'],
      });
      expect(root?.runId).toBe(42);
      expect(call?.runId).toBeNull();
      expect(root?.statusCode).toBe(0);
      expect(call?.statusCode).toBe(1);
      expect(step).toMatchObject({
        statusCode: 2,
        statusMessage: 'tool exploded',
        attributes: { 'tool.name': 'search' },
      });
      expect(call?.events).toEqual([
        {
          name: 'retry',
          timeUs: expect.any(Number),
          attributes: { attempt: 1, reason: 'rate limited' },
        },
      ]);
      expect(step?.events).toEqual([
        {
          name: 'exception',
          timeUs: expect.any(Number),
          attributes: expect.objectContaining({
            'exception.type': 'Error',
            'exception.message': 'tool exploded',
          }),
        },
      ]);
      // The SDK's own clock: what it measured, to the microsecond.
      expect(root!.durationUs).toBeGreaterThanOrEqual(call!.durationUs);

      expect(await store.spans.searchTraces({ runId: 42 })).toEqual([
        {
          traceId,
          rootName: 'POST /api/v1/runs',
          rootService: 'checkout',
          startUs: Math.min(...stored.map((s) => s.startUs)),
          durationUs: expect.any(Number),
          spanCount: 3,
          errorCount: 1,
          services: ['checkout'],
          runIds: [42],
        },
      ]);
      expect(await store.spans.searchTraces({ service: 'checkout', status: 'error' })).toHaveLength(
        1,
      );
      expect((await store.spans.searchTraces({ runId: 42 })).map((t) => t.traceId)).toEqual([
        traceId,
      ]);

      const received = log.lines().filter((l) => l.msg === 'received spans');
      expect(received.length).toBeGreaterThanOrEqual(1);
      expect(received.reduce((n, l) => n + Number(l.spans), 0)).toBe(3);
      for (const line of received) expect(line).toMatchObject(sent);
      expect(log.text()).not.toContain('tool exploded');
    });
  },
);
