import { afterEach, describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import {
  SPAN_AGENT_EXECUTE,
  SPAN_LLM_GENERATE,
  SPAN_TOOL_CALL,
  SpanStatusCode,
  agentExecuteAttributes,
  createLogger,
  createTracing,
  llmGenerateAttributes,
  toolCallAttributes,
  withSpan,
} from '../src/index.js';
import type { Tracing } from '../src/index.js';
import { TelemetryError } from '../src/errors.js';
import { createSampler } from '../src/samplers.js';
import { activeTraceId } from '../src/spans.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const open: Tracing[] = [];
function memoryTracing(options: Parameters<typeof createTracing>[0] = {}): Tracing {
  const tracing = createTracing({ exporter: 'memory', ...options });
  open.push(tracing);
  return tracing;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((tracing) => tracing.shutdown()));
});

function finished(tracing: Tracing): ReadableSpan[] {
  return tracing.memoryExporter?.getFinishedSpans() ?? [];
}

function byName(spans: ReadableSpan[], name: string): ReadableSpan[] {
  return spans.filter((span) => span.name === name);
}

function parentId(span: ReadableSpan | undefined): string | undefined {
  return span?.parentSpanContext?.spanId;
}

describe('withSpan nesting', () => {
  it('nests llm.generate and tool.call under agent.execute across await and timers', async () => {
    const tracing = memoryTracing();
    const { tracer } = tracing;
    await withSpan(
      tracer,
      SPAN_AGENT_EXECUTE,
      agentExecuteAttributes({
        agentId: 12,
        agentName: 'cost-explorer',
        environment: 'default',
        task: 'summarise spend',
        model: 'gpt-4o-mini',
        maxSteps: 25,
      }),
      async () => {
        await sleep(5);
        await withSpan(
          tracer,
          SPAN_LLM_GENERATE,
          llmGenerateAttributes({ model: 'gpt-4o-mini', provider: 'openai' }),
          async (span) => {
            await sleep(2);
            span.setAttributes(
              llmGenerateAttributes({ inputTokens: 120, outputTokens: 33.4, latencyMs: 812.6 }),
            );
          },
        );
        // A tool call started from a timer callback, not a direct await chain.
        await new Promise<void>((resolve, reject) => {
          setTimeout(() => {
            withSpan(
              tracer,
              SPAN_TOOL_CALL,
              toolCallAttributes({ toolName: 'get_cost', toolServer: 'aws' }),
              async (span) => {
                await sleep(1);
                span.setAttributes(toolCallAttributes({ durationMs: 14, success: true }));
              },
            ).then(resolve, reject);
          }, 3);
        });
        // Parallel tool calls are siblings.
        await Promise.all(
          ['a', 'b'].map((toolName) =>
            withSpan(
              tracer,
              SPAN_TOOL_CALL,
              toolCallAttributes({ toolName, toolServer: 'fs' }),
              () => sleep(2),
            ),
          ),
        );
      },
    );

    const spans = finished(tracing);
    const [agent] = byName(spans, SPAN_AGENT_EXECUTE);
    const llm = byName(spans, SPAN_LLM_GENERATE);
    const tools = byName(spans, SPAN_TOOL_CALL);
    expect(agent).toBeDefined();
    expect(parentId(agent)).toBeUndefined();
    expect(llm).toHaveLength(1);
    expect(tools).toHaveLength(3);
    for (const child of [...llm, ...tools]) {
      expect(parentId(child)).toBe(agent?.spanContext().spanId);
      expect(child.spanContext().traceId).toBe(agent?.spanContext().traceId);
    }
    expect(agent?.attributes).toEqual({
      'agent.id': '12',
      'agent.name': 'cost-explorer',
      'agent.environment': 'default',
      task: 'summarise spend',
      model: 'gpt-4o-mini',
      max_steps: 25,
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': '12',
      'gen_ai.agent.name': 'cost-explorer',
      'gen_ai.request.model': 'gpt-4o-mini',
    });
    expect(llm[0]?.attributes).toEqual({
      model: 'gpt-4o-mini',
      provider: 'openai',
      input_tokens: 120,
      output_tokens: 33,
      latency_ms: 813,
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.provider.name': 'openai',
      'gen_ai.system': 'openai',
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 33,
    });
    expect(tools[0]?.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'get_cost',
      'gen_ai.tool.type': 'function',
      'tool.name': 'get_cost',
      'tool.server': 'aws',
      duration_ms: 14,
      success: true,
    });
  });

  it('keeps the children of concurrent runs apart', async () => {
    const tracing = memoryTracing();
    const run = (agentName: string, delay: number): Promise<void> =>
      withSpan(
        tracing.tracer,
        SPAN_AGENT_EXECUTE,
        agentExecuteAttributes({ agentId: agentName, agentName }),
        async () => {
          await sleep(delay);
          await withSpan(tracing.tracer, SPAN_LLM_GENERATE, { run: agentName }, () => sleep(delay));
        },
      );
    await Promise.all([run('first', 8), run('second', 2)]);

    const spans = finished(tracing);
    for (const agent of byName(spans, SPAN_AGENT_EXECUTE)) {
      const children = spans.filter((span) => parentId(span) === agent.spanContext().spanId);
      expect(children.map((span) => span.attributes.run)).toEqual([agent.attributes['agent.name']]);
    }
  });

  it('nests a sub-agent run and its tool calls under the parent run', async () => {
    const tracing = memoryTracing();
    await withSpan(
      tracing.tracer,
      SPAN_AGENT_EXECUTE,
      agentExecuteAttributes({ agentId: 1, agentName: 'parent' }),
      () =>
        withSpan(
          tracing.tracer,
          SPAN_AGENT_EXECUTE,
          agentExecuteAttributes({ agentId: 2, agentName: 'child' }),
          () =>
            withSpan(
              tracing.tracer,
              SPAN_TOOL_CALL,
              toolCallAttributes({ toolName: 'ls' }),
              () => 'done',
            ),
        ),
    );
    const spans = finished(tracing);
    const parent = spans.find((span) => span.attributes['agent.name'] === 'parent');
    const child = spans.find((span) => span.attributes['agent.name'] === 'child');
    const tool = byName(spans, SPAN_TOOL_CALL)[0];
    expect(parentId(child)).toBe(parent?.spanContext().spanId);
    expect(parentId(tool)).toBe(child?.spanContext().spanId);
  });

  it('returns the value of fn and exposes the active trace id inside it only', async () => {
    const tracing = memoryTracing();
    expect(activeTraceId()).toBeUndefined();
    const inside = await withSpan(tracing.tracer, SPAN_AGENT_EXECUTE, {}, async () => {
      await sleep(1);
      return activeTraceId();
    });
    expect(inside).toMatch(/^[0-9a-f]{32}$/);
    expect(inside).toBe(finished(tracing)[0]?.spanContext().traceId);
    expect(activeTraceId()).toBeUndefined();
  });
});

describe('withSpan errors', () => {
  it('records the exception, sets ERROR status, ends the span and rethrows', async () => {
    const tracing = memoryTracing();
    const failure = new Error('tool server unreachable');
    await expect(
      withSpan(tracing.tracer, SPAN_TOOL_CALL, toolCallAttributes({ toolName: 'x' }), async () => {
        await sleep(1);
        throw failure;
      }),
    ).rejects.toBe(failure);

    const [span] = finished(tracing);
    expect(span?.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: 'tool server unreachable',
    });
    const exception = span?.events.find((event) => event.name === 'exception');
    expect(exception?.attributes?.['exception.message']).toBe('tool server unreachable');
    expect(exception?.attributes?.['exception.type']).toBe('Error');
    expect(span?.ended).toBe(true);
  });

  it('handles a synchronous throw of a non-Error value', async () => {
    const tracing = memoryTracing();
    await expect(
      withSpan(tracing.tracer, SPAN_LLM_GENERATE, {}, () => {
        throw 'rate limited';
      }),
    ).rejects.toBe('rate limited');
    expect(finished(tracing)[0]?.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: 'rate limited',
    });
  });

  it('leaves the status unset on success', async () => {
    const tracing = memoryTracing();
    await withSpan(tracing.tracer, SPAN_LLM_GENERATE, {}, () => 1);
    expect(finished(tracing)[0]?.status.code).toBe(SpanStatusCode.UNSET);
  });
});

describe('attribute helpers', () => {
  it('cuts long tasks and leaves out absent fields', () => {
    const attributes = agentExecuteAttributes({
      agentId: 'x',
      agentName: 'n',
      task: 'a'.repeat(5000),
    });
    expect(String(attributes.task)).toHaveLength(2049);
    expect(Object.keys(attributes)).toEqual([
      'agent.id',
      'agent.name',
      'gen_ai.operation.name',
      'gen_ai.agent.id',
      'gen_ai.agent.name',
      'task',
    ]);
    expect(llmGenerateAttributes({})).toEqual({});
    expect(toolCallAttributes({ success: false, durationMs: Number.NaN })).toEqual({
      success: false,
    });
  });
});

describe('run ids and log correlation', () => {
  it('puts run_id on the run span and on every span started inside it, and nothing outside', async () => {
    const tracing = memoryTracing();
    await withSpan(tracing.tracer, 'outside', {}, () => undefined);
    await withSpan(
      tracing.tracer,
      SPAN_AGENT_EXECUTE,
      agentExecuteAttributes({ agentId: 1, agentName: 'a', runId: 41 }),
      async () => {
        await sleep(1);
        await withSpan(tracing.tracer, SPAN_TOOL_CALL, {}, async () => {
          await withSpan(tracing.tracer, 'db.operation', {}, () => undefined);
        });
        // A sub-agent's run inside it carries its own id.
        await withSpan(tracing.tracer, SPAN_AGENT_EXECUTE, {}, () => undefined, { runId: 42 });
      },
      { runId: 41 },
    );
    const spans = finished(tracing);
    const runIdOfSpan = (name: string): unknown[] =>
      spans.filter((span) => span.name === name).map((span) => span.attributes.run_id);
    expect(runIdOfSpan('outside')).toEqual([undefined]);
    expect(runIdOfSpan(SPAN_TOOL_CALL)).toEqual([41]);
    expect(runIdOfSpan('db.operation')).toEqual([41]);
    expect(runIdOfSpan(SPAN_AGENT_EXECUTE).sort()).toEqual([41, 42]);
  });

  it('writes trace_id and span_id on log lines inside a span, and none outside', async () => {
    const tracing = memoryTracing();
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger({ stream, env: {} });
    let ids: { traceId: string; spanId: string } | undefined;
    logger.info('before');
    await withSpan(tracing.tracer, SPAN_AGENT_EXECUTE, {}, (span) => {
      ids = { traceId: span.spanContext().traceId, spanId: span.spanContext().spanId };
      logger.info('inside', { run_id: 3 });
      logger.info('inside, no fields');
    });
    await logger.close();
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records[0]).not.toHaveProperty('trace_id');
    expect(records[1]).toMatchObject({ trace_id: ids?.traceId, span_id: ids?.spanId, run_id: 3 });
    expect(records[2]).toMatchObject({ trace_id: ids?.traceId, span_id: ids?.spanId });
  });

  it('refuses a custom exporter kind without an exporter, and names where spans go', () => {
    expect(() => createTracing({ exporter: 'custom' })).toThrow(/needs a spanExporter/);
    expect(memoryTracing().destination).toBe('memory');
    expect(memoryTracing({ exporter: 'none' }).destination).toBe('nowhere');
  });
});

describe('samplers', () => {
  async function spansRecorded(sampler: string, samplerArg?: number | string): Promise<number> {
    const tracing = memoryTracing({ sampler, ...(samplerArg === undefined ? {} : { samplerArg }) });
    for (let i = 0; i < 20; i += 1) {
      await withSpan(tracing.tracer, SPAN_AGENT_EXECUTE, {}, () =>
        withSpan(tracing.tracer, SPAN_LLM_GENERATE, {}, () => undefined),
      );
    }
    return finished(tracing).length;
  }

  it('always_off records nothing, always_on everything', async () => {
    expect(await spansRecorded('always_off')).toBe(0);
    expect(await spansRecorded('always_on')).toBe(40);
    expect(await spansRecorded('parentbased_always_off')).toBe(0);
    expect(await spansRecorded('parentbased_always_on')).toBe(40);
  });

  it('traceidratio 0 records none and 1 records all', async () => {
    expect(await spansRecorded('traceidratio', 0)).toBe(0);
    expect(await spansRecorded('traceidratio', 1)).toBe(40);
    expect(await spansRecorded('parentbased_traceidratio', '0')).toBe(0);
    expect(await spansRecorded('parentbased_traceidratio', '1')).toBe(40);
  });

  it('keeps children with their sampled parent under parentbased_traceidratio', async () => {
    // Every recorded child has its parent recorded too: whole traces, never fragments.
    const tracing = memoryTracing({ sampler: 'parentbased_traceidratio', samplerArg: 0.5 });
    for (let i = 0; i < 50; i += 1) {
      await withSpan(tracing.tracer, SPAN_AGENT_EXECUTE, {}, () =>
        withSpan(tracing.tracer, SPAN_LLM_GENERATE, {}, () => undefined),
      );
    }
    const spans = finished(tracing);
    const roots = byName(spans, SPAN_AGENT_EXECUTE).length;
    expect(roots).toBeGreaterThan(0);
    expect(roots).toBeLessThan(50);
    expect(byName(spans, SPAN_LLM_GENERATE)).toHaveLength(roots);
  });

  it('accepts names in any case and defaults the ratio to 1', () => {
    expect(createSampler('TraceIdRatio').toString()).toContain('1');
    expect(createSampler().toString()).toContain('ParentBased');
  });

  it('rejects an unknown sampler name with the supported names', () => {
    expect(() => createSampler('jaeger_remote')).toThrow(TelemetryError);
    expect(() => createSampler('jaeger_remote')).toThrow(
      expect.objectContaining({
        code: 'TELEMETRY_INVALID_SAMPLER',
        message: expect.stringContaining('parentbased_traceidratio'),
      }),
    );
    expect(() => createTracing({ sampler: 'sometimes' })).toThrow(
      expect.objectContaining({ code: 'TELEMETRY_INVALID_SAMPLER' }),
    );
  });

  it.each([1.5, -0.1, 'abc', Number.NaN])('rejects the ratio %p', (arg) => {
    expect(() => createSampler('parentbased_traceidratio', arg)).toThrow(
      expect.objectContaining({ code: 'TELEMETRY_INVALID_SAMPLER_ARG' }),
    );
  });
});

describe('createTracing', () => {
  it('exports nothing without an endpoint but still gives spans trace ids', async () => {
    const tracing = createTracing();
    open.push(tracing);
    expect(tracing.exporter).toBe('none');
    expect(tracing.memoryExporter).toBeUndefined();
    const traceId = await withSpan(tracing.tracer, SPAN_AGENT_EXECUTE, {}, () => activeTraceId());
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    // Nothing is recorded (there is nowhere to send it), yet children share their parent's trace.
    const [outer, inner, recording] = await withSpan(
      tracing.tracer,
      SPAN_AGENT_EXECUTE,
      {},
      async (span) => [
        span.spanContext().traceId,
        await withSpan(tracing.tracer, SPAN_AGENT_EXECUTE, {}, () => activeTraceId()),
        span.isRecording(),
      ],
    );
    expect(inner).toBe(outer);
    expect(recording).toBe(false);
  });

  it('sets service.name and service.version on the resource', async () => {
    const tracing = memoryTracing({ serviceName: 'junction-test', serviceVersion: '1.2.3' });
    await withSpan(tracing.tracer, SPAN_AGENT_EXECUTE, {}, () => undefined);
    const attributes = finished(tracing)[0]?.resource.attributes;
    expect(attributes?.['service.name']).toBe('junction-test');
    expect(attributes?.['service.version']).toBe('1.2.3');
  });

  it('does not register the provider globally unless asked', async () => {
    const { trace } = await import('@opentelemetry/api');
    const tracing = memoryTracing();
    trace.getTracer('global').startSpan('via-global').end();
    expect(finished(tracing)).toHaveLength(0);

    const registered = memoryTracing({ register: true });
    trace.getTracer('global').startSpan('via-global').end();
    expect(finished(registered).map((span) => span.name)).toEqual(['via-global']);
    await registered.shutdown();
    // Shutdown also unregisters it: the global API is back to non-recording spans.
    expect(trace.getTracer('global').startSpan('after-shutdown').isRecording()).toBe(false);
  });
});
