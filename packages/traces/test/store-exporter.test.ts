// StoreSpanExporter under a real tracer: the spans this process makes land in the store as
// the receiver would have stored them, and a failed write is reported, never thrown.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { Store } from '@junction/store';
import { StoreSpanExporter } from '../src/index.js';
import { memoryLogger, openTempStore } from './helpers.js';

describe('StoreSpanExporter', () => {
  let store: Store;
  let closeStore: () => Promise<void>;
  let log: ReturnType<typeof memoryLogger>;

  beforeEach(async () => {
    ({ store, close: closeStore } = await openTempStore());
    log = memoryLogger();
  });
  afterEach(async () => {
    await closeStore();
  });

  it('stores the spans of a real tracer with their parents, kinds, attributes, events and status', async () => {
    const exporter = new StoreSpanExporter({ store, logger: log.logger });
    const provider = new NodeTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'junction-serve' }),
      spanProcessors: [new BatchSpanProcessor(exporter)],
    });
    const tracer = provider.getTracer('@junction/agent-core');
    const run = tracer.startSpan('agent.execute', {
      kind: SpanKind.INTERNAL,
      attributes: { run_id: 9, 'agent.name': 'helper' },
    });
    const llm = tracer.startSpan(
      'llm.generate',
      { kind: SpanKind.CLIENT, attributes: { 'gen_ai.usage.input_tokens': 12 } },
      trace.setSpan(context.active(), run),
    );
    llm.addEvent('first token', { latency_ms: 3.5 });
    llm.setStatus({ code: SpanStatusCode.ERROR, message: 'provider timed out' });
    llm.end();
    const consume = tracer.startSpan('queue.consume', { kind: SpanKind.CONSUMER });
    consume.end();
    run.end();
    await provider.forceFlush();
    await provider.shutdown();

    const traceId = run.spanContext().traceId;
    const spans = await store.spans.trace(traceId);
    const byName = new Map(spans.map((s) => [s.name, s]));
    expect(byName.get('agent.execute')).toEqual({
      traceId,
      spanId: run.spanContext().spanId,
      parentSpanId: null,
      name: 'agent.execute',
      kind: 1,
      serviceName: 'junction-serve',
      scopeName: '@junction/agent-core',
      startUs: expect.any(Number),
      durationUs: expect.any(Number),
      statusCode: 0,
      statusMessage: null,
      attributes: { run_id: 9, 'agent.name': 'helper' },
      events: [],
      resource: expect.objectContaining({ 'service.name': 'junction-serve' }),
      runId: 9,
    });
    expect(byName.get('llm.generate')).toMatchObject({
      parentSpanId: run.spanContext().spanId,
      kind: 3,
      statusCode: 2,
      statusMessage: 'provider timed out',
      attributes: { 'gen_ai.usage.input_tokens': 12 },
      events: [
        { name: 'first token', timeUs: expect.any(Number), attributes: { latency_ms: 3.5 } },
      ],
      runId: null,
    });
    // A root of its own trace; CONSUMER is OTLP kind 5.
    const [consumed] = await store.spans.trace(consume.spanContext().traceId);
    expect(consumed).toMatchObject({ kind: 5, parentSpanId: null });
    expect((await store.spans.searchTraces({ runId: 9 })).map((t) => t.traceId)).toEqual([traceId]);
  });

  it('reports FAILED when the store cannot write, without throwing, and logs why', async () => {
    const exporter = new StoreSpanExporter({ store, logger: log.logger });
    const results: ExportResult[] = [];
    const provider = new BasicTracerProvider({
      spanProcessors: [
        new SimpleSpanProcessor({
          export: (spans: ReadableSpan[], done: (result: ExportResult) => void) =>
            exporter.export(spans, (result) => {
              results.push(result);
              done(result);
            }),
          shutdown: () => exporter.shutdown(),
        }),
      ],
    });
    await store.close();
    provider.getTracer('t').startSpan('lost').end();
    await provider.forceFlush();
    expect(results).toHaveLength(1);
    expect(results[0]?.code).toBe(ExportResultCode.FAILED);
    expect(results[0]?.error?.message).toContain('store was closed');
    expect(log.lines()).toContainEqual(
      expect.objectContaining({ level: 'warn', msg: 'could not store spans', spans: 1 }),
    );
    await provider.shutdown();
  });

  it('waits for writes in flight on forceFlush and shutdown, then refuses exports', async () => {
    const exporter = new StoreSpanExporter({ store });
    const provider = new BasicTracerProvider();
    const span = provider.getTracer('t').startSpan('pending') as unknown as ReadableSpan & {
      end(): void;
    };
    span.end();
    const results: ExportResult[] = [];
    exporter.export([span], (r) => results.push(r));
    // The callback comes after the write, not before.
    expect(results).toEqual([]);
    await exporter.forceFlush();
    expect(results).toEqual([{ code: ExportResultCode.SUCCESS }]);
    expect((await store.spans.stats()).spans).toBe(1);

    exporter.export([span], (r) => results.push(r));
    await exporter.shutdown();
    expect(results[1]).toEqual({ code: ExportResultCode.SUCCESS });
    exporter.export([span], (r) => results.push(r));
    expect(results[2]?.code).toBe(ExportResultCode.FAILED);
    expect(results[2]?.error?.message).toBe('The span exporter is shut down.');
  });

  it('does not fail when the callback throws', async () => {
    const exporter = new StoreSpanExporter({ store, logger: log.logger });
    const span = new BasicTracerProvider()
      .getTracer('t')
      .startSpan('x') as unknown as ReadableSpan & {
      end(): void;
    };
    span.end();
    exporter.export([span], () => {
      throw new Error('callback broke');
    });
    await exporter.forceFlush();
    expect(log.lines()).toContainEqual(
      expect.objectContaining({ msg: 'the span export callback failed', error: 'callback broke' }),
    );
  });
});
