// A run streamed to a person (issue 16: `agent run` at a terminal): the text arrives in pieces
// through onText, and the run is recorded exactly as a generated one — turns, tool calls,
// tokens, spans — with the same final answer.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { RunProgressEvent } from '../src/runs/agent-runner.js';
import { createHarness, type Harness } from './run-harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

describe('a streamed run', () => {
  it('hands over the text in pieces and records turns, tool calls and tokens as usual', async () => {
    h.agent('calc', 'model: openai/gpt-test\ntools: [add]');
    await h.sync();
    h.fake.script([
      { toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }], chunkDelayMs: 5 },
      { text: 'The sum of two and three is five.', chunkDelayMs: 5 },
    ]);
    const pieces: string[] = [];
    const events: RunProgressEvent[] = [];
    const done = await h.runner.execute(await h.claimed('calc', 'Add 2 and 3'), {
      workerId: 'test-worker',
      onText: (delta) => pieces.push(delta),
      onEvent: (e) => events.push(e),
    });
    expect(done).toMatchObject({
      status: 'completed',
      finalResponse: 'The sum of two and three is five.',
      stepsTaken: 2,
    });
    expect(h.fake.requests.every((r) => (r.body as { stream?: boolean }).stream === true)).toBe(
      true,
    );
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe('The sum of two and three is five.');
    expect(events.map((e) => e.type)).toEqual(['model_turn', 'tool_call', 'model_turn']);
    expect(done.inputTokens).toBeGreaterThan(0);
    const recorded = (await h.store.runEvents.list(done.id)).map((e) => e.type);
    expect(recorded).toEqual(['model_turn', 'tool_call', 'model_turn']);
    const spans = h.tracing.memoryExporter!.getFinishedSpans().map((s) => s.name);
    expect(spans.filter((n) => n === 'llm.generate')).toHaveLength(2);
  });

  it("a provider error while streaming fails the run with the provider's reason", async () => {
    h.agent('plain', 'model: openai/gpt-test');
    await h.sync();
    h.fake.script([{ error: { status: 400, message: 'model gpt-test does not exist' } }]);
    const done = await h.runner.execute(await h.claimed('plain', 'hi'), {
      workerId: 'test-worker',
      onText: () => undefined,
    });
    expect(done.status).toBe('error');
    expect(done.error).toContain('model gpt-test does not exist');
  });
});
