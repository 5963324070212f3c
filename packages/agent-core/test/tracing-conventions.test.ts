// The trace conventions of a run (issue 19): a failed run's root span is ERROR with its error
// recorded; every span of a run carries `run_id`; model and tool calls are CLIENT spans with
// the OpenTelemetry GenAI attributes; log lines name the run's trace.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import {
  SPAN_AGENT_EXECUTE,
  SPAN_LLM_GENERATE,
  SPAN_TOOL_CALL,
  SpanKind,
  SpanStatusCode,
} from '@junction/telemetry';
import { createHarness, type Harness } from './run-harness.js';

let h: Harness;

beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

const spans = () => h.tracing.memoryExporter!.getFinishedSpans();
const logRecords = () => h.logLines.map((line) => JSON.parse(line) as Record<string, unknown>);

describe('trace conventions of a run', () => {
  it('marks a failed run ERROR with the error recorded, on the span its record names', async () => {
    h.agent('bad', 'model: openai/gpt-test');
    await h.sync();
    h.fake.script([{ error: { status: 400, message: 'model gpt-test does not exist' } }]);
    const done = await h.runner.execute(await h.claimed('bad', 'x'), { workerId: 'test-worker' });
    expect(done.status).toBe('error');

    const root = spans().find((span) => span.name === SPAN_AGENT_EXECUTE)!;
    expect(root.status.code).toBe(SpanStatusCode.ERROR);
    expect(root.status.message).toContain('model gpt-test does not exist');
    expect(root.events.map((event) => event.name)).toContain('exception');
    expect(root.attributes).toMatchObject({ run_id: done.id, 'run.status': 'error' });
    expect(root.spanContext().traceId).toBe(done.traceId);
    // The model call that failed is a CLIENT span in error too.
    const llm = spans().find((span) => span.name === SPAN_LLM_GENERATE)!;
    expect(llm.kind).toBe(SpanKind.CLIENT);
    expect(llm.status.code).toBe(SpanStatusCode.ERROR);

    // The failure's log line names the run's trace.
    const failed = logRecords().find((record) => record.msg === 'run failed');
    expect(failed).toMatchObject({ run_id: done.id, trace_id: done.traceId });
  });

  it('puts run_id and the GenAI attributes on every span, model and tool calls as CLIENT', async () => {
    h.agent('calc', 'model: openai/gpt-test\ntools: [add]');
    await h.sync();
    h.fake.script([
      {
        toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }],
        usage: { prompt_tokens: 11, completion_tokens: 3 },
      },
      { text: 'The sum is 5.' },
    ]);
    const done = await h.runner.execute(await h.claimed('calc', 'Add'), {
      workerId: 'test-worker',
    });
    expect(done.status).toBe('completed');

    const all = spans();
    expect(all.length).toBeGreaterThanOrEqual(4);
    for (const span of all) {
      expect(span.attributes.run_id).toBe(done.id);
      expect(span.spanContext().traceId).toBe(done.traceId);
    }
    const root = all.find((span) => span.name === SPAN_AGENT_EXECUTE)!;
    expect(root.kind).toBe(SpanKind.INTERNAL);
    expect(root.status.code).toBe(SpanStatusCode.UNSET);
    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'calc',
      'gen_ai.request.model': 'openai/gpt-test',
    });
    const [firstTurn] = all.filter((span) => span.name === SPAN_LLM_GENERATE);
    expect(firstTurn!.kind).toBe(SpanKind.CLIENT);
    expect(firstTurn!.attributes).toMatchObject({
      model: 'openai/gpt-test',
      input_tokens: 11,
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'openai/gpt-test',
      'gen_ai.provider.name': expect.any(String),
      'gen_ai.usage.input_tokens': 11,
      'gen_ai.usage.output_tokens': 3,
    });
    const tool = all.find((span) => span.name === SPAN_TOOL_CALL)!;
    expect(tool.kind).toBe(SpanKind.CLIENT);
    expect(tool.attributes).toMatchObject({
      'tool.name': 'add',
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'add',
    });

    // Lines written during the run carry its trace and the span they were written in.
    const completed = logRecords().find((record) => record.msg === 'run completed');
    expect(completed).toMatchObject({ run_id: done.id, trace_id: done.traceId });
    const spanIds = new Set(all.map((span) => span.spanContext().spanId));
    for (const record of logRecords().filter((r) => r.span_id !== undefined)) {
      expect(record.trace_id).toBe(done.traceId);
      expect(spanIds.has(record.span_id as string)).toBe(true);
    }
  });
});
