import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { Run } from '@junction/store';
import { SPAN_AGENT_EXECUTE, SPAN_LLM_GENERATE, SPAN_TOOL_CALL } from '@junction/telemetry';
import type { RunProgressEvent } from '../src/runs/agent-runner.js';
import { fixtureServerPath } from './fixture-server.js';
import { API_KEY, createHarness, type Harness } from './run-harness.js';
import { recoveryPolicy } from '../src/runs/lease.js';

let h: Harness;

beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

/** Written and claimed by `test-worker`, ready for `runner.execute`. */
const start = (agentName: string, task: string, variables?: Record<string, string>): Promise<Run> =>
  h.claimed(agentName, task, variables);

function lastUserOrToolMessages(request: Record<string, unknown>): string {
  return JSON.stringify((request.messages as unknown[]).slice(-3));
}

describe('AgentRunner', () => {
  it('runs several turns of tool use against the MCP fixture and records everything', async () => {
    h.agent('calc', 'model: openai/gpt-test\ntools: [add, echo]');
    await h.sync();
    h.fake.script([
      {
        toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }],
        usage: { prompt_tokens: 11, completion_tokens: 3 },
      },
      { toolCalls: [{ name: 'echo', arguments: { text: 'héllo "world"' } }] },
      { text: 'The sum is 5.' },
    ]);
    const events: RunProgressEvent[] = [];
    const run = await start('calc', 'Add 2 and 3');
    const done = await h.runner.execute(run, {
      workerId: 'test-worker',
      onEvent: (e) => events.push(e),
    });

    expect(done).toMatchObject({
      status: 'completed',
      finalResponse: 'The sum is 5.',
      stepsTaken: 3,
      model: 'openai/gpt-test',
    });
    expect(done.inputTokens).toBe(11 + 10 + 10);
    expect(done.outputTokens).toBe(3 + 5 + 5);
    // The model saw the tool results.
    expect(h.fake.requests).toHaveLength(3);
    expect(lastUserOrToolMessages(h.fake.requests[1]!.body)).toContain('5');
    expect(lastUserOrToolMessages(h.fake.requests[2]!.body)).toContain('héllo');
    expect(h.fake.requests[0]!.body.messages).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          role: 'system',
          content: expect.stringContaining('You are calc.'),
        }),
      ]),
    );
    // One event per model turn and per tool call, in order.
    const stored = await h.store.runEvents.list(run.id);
    expect(stored.map((e) => e.type)).toEqual([
      'model_turn',
      'tool_call',
      'model_turn',
      'tool_call',
      'model_turn',
    ]);
    expect(stored[1]!.payload).toMatchObject({
      tool: 'add',
      server: 'calc',
      arguments: { a: 2, b: 3 },
      success: true,
    });
    expect(events.map((e) => e.type)).toEqual([
      'model_turn',
      'tool_call',
      'model_turn',
      'tool_call',
      'model_turn',
    ]);
    // Spans nest under agent.execute.
    const spans = h.tracing.memoryExporter!.getFinishedSpans();
    const root = spans.find((s) => s.name === SPAN_AGENT_EXECUTE)!;
    expect(root.attributes).toMatchObject({
      'agent.name': 'calc',
      'agent.environment': 'default',
      task: 'Add 2 and 3',
    });
    const children = spans.filter((s) => s.parentSpanContext?.spanId === root.spanContext().spanId);
    expect(children.filter((s) => s.name === SPAN_LLM_GENERATE)).toHaveLength(3);
    expect(
      children.filter((s) => s.name === SPAN_TOOL_CALL).map((s) => s.attributes['tool.name']),
    ).toEqual(['add', 'echo']);
    expect(done.traceId).toBe(root.spanContext().traceId);
    // Metrics and the log line.
    const metrics = await h.metrics.renderPrometheus();
    expect(metrics).toMatch(/^agent_runs_total\{[^}]*agent_name="calc"[^}]*\} 1$/m);
    expect(metrics).toMatch(/^llm_requests_total\{[^}]*\} 3$/m);
    const line = h.logLines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'run completed');
    expect(line).toMatchObject({
      agent_name: 'calc',
      run_id: run.id,
      status: 'success',
      duration_ms: expect.any(Number),
    });
  });

  it('stops at max_steps and says so', async () => {
    h.agent('looper', 'model: openai/gpt-test\nmax_steps: 2\ntools: [echo]');
    await h.sync();
    h.fake.script([
      { toolCalls: [{ name: 'echo', arguments: { text: 'a' } }] },
      { toolCalls: [{ name: 'echo', arguments: { text: 'b' } }] },
      { text: 'never reached' },
    ]);
    const done = await h.runner.execute(await start('looper', 'loop'), { workerId: 'test-worker' });
    expect(done.status).toBe('error');
    expect(done.stepsTaken).toBe(2);
    expect(done.error).toContain('max_steps');
    expect(h.fake.requests).toHaveLength(2);
  });

  it('times out a run whose model is too slow', async () => {
    h.agent('slow', 'model: openai/gpt-test');
    await h.sync();
    h.fake.script([{ delayMs: 60_000, text: 'late' }]);
    const started = Date.now();
    const done = await h.runner.execute(await start('slow', 'wait'), {
      workerId: 'test-worker',
      timeoutMs: 500,
    });
    expect(done.status).toBe('timeout');
    expect(done.error).toContain('timed out');
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('honours the agent timeout_seconds from its prompt file', async () => {
    h.agent('patient', 'model: openai/gpt-test\ntimeout_seconds: 1');
    await h.sync();
    h.fake.script([{ delayMs: 60_000, text: 'late' }]);
    const started = Date.now();
    const done = await h.runner.execute(await start('patient', 'wait'), {
      workerId: 'test-worker',
    });
    expect(done.status).toBe('timeout');
    expect(done.error).toContain('1000 ms');
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('retries a provider 500 and then succeeds', async () => {
    h.agent('flaky', 'model: openai/gpt-test');
    await h.sync();
    h.fake.script([
      { error: { status: 500, message: 'upstream exploded' } },
      { text: 'recovered' },
    ]);
    const done = await h.runner.execute(await start('flaky', 'try'), { workerId: 'test-worker' });
    expect(done).toMatchObject({ status: 'completed', finalResponse: 'recovered', stepsTaken: 1 });
    expect(h.fake.requests).toHaveLength(2);
  });

  it('fails with the provider message on a 400, without retrying', async () => {
    h.agent('bad', 'model: openai/gpt-test');
    await h.sync();
    h.fake.script([{ error: { status: 400, message: 'model gpt-test does not exist' } }]);
    const done = await h.runner.execute(await start('bad', 'x'), { workerId: 'test-worker' });
    expect(done.status).toBe('error');
    expect(done.error).toContain('model gpt-test does not exist');
    expect(h.fake.requests).toHaveLength(1);
  });

  it('hands a tool error back to the model instead of ending the run', async () => {
    h.agent('brave', 'model: openai/gpt-test\ntools: [fail]');
    await h.sync();
    h.fake.script([
      { toolCalls: [{ name: 'fail', arguments: { message: 'disk on fire' } }] },
      { text: 'The tool failed; sorry.' },
    ]);
    const run = await start('brave', 'try the tool');
    const done = await h.runner.execute(run, { workerId: 'test-worker' });
    expect(done).toMatchObject({
      status: 'completed',
      finalResponse: 'The tool failed; sorry.',
      stepsTaken: 2,
    });
    expect(lastUserOrToolMessages(h.fake.requests[1]!.body)).toContain('disk on fire');
    const toolEvent = (await h.store.runEvents.list(run.id)).find((e) => e.type === 'tool_call')!;
    expect(toolEvent.payload).toMatchObject({
      tool: 'fail',
      success: false,
      error: expect.stringContaining('disk on fire'),
    });
  });

  it('runs a sub-agent as a child run nested under the parent span', async () => {
    h.agent('child', 'model: openai/gpt-test\nmetadata:\n  description: Knows facts');
    h.agent('parent', 'model: openai/gpt-test\nagents: [child]');
    await h.sync();
    h.fake.script([
      { toolCalls: [{ name: 'agent_child', arguments: { task: 'What is the answer?' } }] },
      { text: '42' },
      { text: 'The child says 42.' },
    ]);
    const run = await start('parent', 'Ask the child');
    const done = await h.runner.execute(run, { workerId: 'test-worker' });
    expect(done).toMatchObject({ status: 'completed', finalResponse: 'The child says 42.' });
    const children = await h.store.runs.list({ parentRunId: run.id });
    expect(children).toHaveLength(1);
    expect(children[0]).toMatchObject({
      agentName: 'child',
      status: 'completed',
      finalResponse: '42',
      task: 'What is the answer?',
    });
    const spans = h.tracing.memoryExporter!.getFinishedSpans();
    const executes = spans.filter((s) => s.name === SPAN_AGENT_EXECUTE);
    const parentSpan = executes.find((s) => s.attributes['agent.name'] === 'parent')!;
    const childSpan = executes.find((s) => s.attributes['agent.name'] === 'child')!;
    expect(childSpan.spanContext().traceId).toBe(parentSpan.spanContext().traceId);
    const toolSpan = spans.find(
      (s) => s.spanContext().spanId === childSpan.parentSpanContext?.spanId,
    )!;
    expect(toolSpan.name).toBe(SPAN_TOOL_CALL);
    expect(toolSpan.parentSpanContext?.spanId).toBe(parentSpan.spanContext().spanId);
    expect((await h.store.runEvents.list(run.id)).some((e) => e.type === 'sub_agent')).toBe(true);
  });

  // Regression (issue 13, item 10): sub-agent arguments from the model were not checked:
  // {"task": {"nested": 1}} gave the model "SQLite3 can only bind numbers…", {"input": "x"}
  // gave "NOT NULL constraint failed: runs.task".
  it('checks sub-agent arguments and tells the model what to send, writing no child run', async () => {
    h.agent('child', 'model: openai/gpt-test');
    h.agent('parent', 'model: openai/gpt-test\nagents: [child]');
    await h.sync();
    h.fake.script([
      { toolCalls: [{ name: 'agent_child', arguments: { task: { nested: 1 } } }] },
      { toolCalls: [{ name: 'agent_child', arguments: { input: 'x' } }] },
      { text: 'I could not delegate.' },
    ]);
    const run = await start('parent', 'Delegate badly');
    const done = await h.runner.execute(run, { workerId: 'test-worker' });
    expect(done.status).toBe('completed');
    expect(await h.store.runs.list({ parentRunId: run.id })).toHaveLength(0);
    const errors = (await h.store.runEvents.list(run.id))
      .filter((e) => e.type === 'tool_call')
      .map((e) => String((e.payload as { error?: string }).error ?? ''));
    expect(errors).toHaveLength(2);
    expect(errors[0]).toContain('task must be a string');
    expect(errors[1]).toContain('task is required');
    for (const text of errors) {
      expect(text).toContain('Invalid arguments for agent_child');
      expect(text).not.toMatch(/SQLite|constraint|bind/i);
    }
    // What the model was told on its next turn carries the same words, and no database text.
    const told = JSON.stringify(h.fake.requests.slice(1));
    expect(told).toContain('task must be a string');
    expect(told).not.toMatch(/SQLite|NOT NULL|bind numbers/);
  });

  // Regression (issue 13, item 6): a secret template variable (GITHUB_TOKEN in variables.yml,
  // passed to a tool server) that a tool echoed reached final_response and events unredacted.
  it('redacts secrets of its tool servers and its secret-named variables from what it records', async () => {
    const token = 'ghp_templateSecret0123456789abcdef';
    const runToken = 'run-variable-secret-987654';
    const envDir = h.workspace.environmentDir('default');
    writeFileSync(
      path.join(envDir, 'tools.json'),
      JSON.stringify({
        mcpServers: {
          calc: {
            command: process.execPath,
            args: [fixtureServerPath],
            env: { GITHUB_TOKEN: '{{ .GITHUB_TOKEN }}' },
          },
        },
      }),
    );
    await h.workspace.writeVariables('default', { GITHUB_TOKEN: token });
    h.agent('leaky', 'model: openai/gpt-test\ntools: [env_value, echo]');
    await h.sync();
    h.fake.script([
      { toolCalls: [{ name: 'env_value', arguments: { name: 'GITHUB_TOKEN' } }] },
      { toolCalls: [{ name: 'echo', arguments: { text: `my token is ${runToken}` } }] },
      { text: `The token is ${token} and the other is ${runToken}.` },
    ]);
    const run = await start('leaky', 'Show me the token', { API_TOKEN: runToken });
    const done = await h.runner.execute(run, { workerId: 'test-worker' });
    expect(done.status).toBe('completed');
    expect(done.finalResponse).toBe('The token is [REDACTED] and the other is [REDACTED].');
    const recorded = JSON.stringify([
      await h.store.runs.get(run.id),
      await h.store.runEvents.list(run.id),
    ]);
    expect(recorded).not.toContain(token);
    expect(recorded.replace(/"variables":\{[^}]*\}/, '')).not.toContain(runToken);
    expect(recorded).toContain('[REDACTED]');
  });

  it('validates structured output against output.schema', async () => {
    h.agent(
      'structured',
      'model: openai/gpt-test\noutput:\n  format: json\n  schema:\n    answer: number\n    reason: string',
    );
    await h.sync();
    h.fake.script([{ json: { answer: 7, reason: 'counted' } }]);
    const done = await h.runner.execute(await start('structured', 'count'), {
      workerId: 'test-worker',
    });
    expect(done.status).toBe('completed');
    expect(JSON.parse(done.finalResponse!)).toEqual({ answer: 7, reason: 'counted' });
  });

  it('fails clearly before calling the model when the API key is missing', async () => {
    await h.close();
    h = await createHarness({ env: {} });
    h.agent('nokey', 'model: openai/gpt-test');
    await h.sync();
    const done = await h.runner.execute(await start('nokey', 'x'), { workerId: 'test-worker' });
    expect(done.status).toBe('error');
    expect(done.error).toContain('OPENAI_API_KEY');
    expect(h.fake.requests).toHaveLength(0);
  });

  it('is cancelled by its signal', async () => {
    h.agent('waiter', 'model: openai/gpt-test');
    await h.sync();
    h.fake.script([{ delayMs: 5_000, text: 'late' }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const done = await h.runner.execute(await start('waiter', 'x'), {
      workerId: 'test-worker',
      signal: controller.signal,
    });
    expect(done.status).toBe('cancelled');
  });

  it('stops a run whose lease another worker took over, writing nothing more on it', async () => {
    await h.close();
    h = await createHarness({ leaseMs: 1_000 });
    h.agent('stalled', 'model: openai/gpt-test');
    await h.sync();
    h.fake.script([{ delayMs: 60_000, text: 'too late' }]);
    const run = await start('stalled', 'x');
    const started = Date.now();
    const done = h.runner.execute(run, { workerId: 'test-worker' });
    // The lease runs out (as if this worker had stalled) and another worker claims the run.
    await new Promise((r) => setTimeout(r, 200));
    const { requeued } = await h.store.runs.recoverExpired(
      recoveryPolicy(),
      new Date(Date.now() + 60_000),
    );
    expect(requeued.map((r) => r.id)).toEqual([run.id]);
    expect(await h.store.runs.claim(run.id, 'other-worker', 60_000)).toBeDefined();
    const finished = await done;
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(finished).toMatchObject({ id: run.id, status: 'running', workerId: 'other-worker' });
    const events = await h.store.runEvents.list(run.id);
    expect(events.map((e) => e.type)).not.toContain('run_error');
    expect(h.logLines.join('')).toContain('run stopped: its lease was lost');
  });

  it('stops a run that recovery failed meanwhile and leaves its end to recovery', async () => {
    await h.close();
    h = await createHarness({ leaseMs: 1_000 });
    h.agent('stalled', 'model: openai/gpt-test');
    await h.sync();
    h.fake.script([{ delayMs: 60_000, text: 'too late' }]);
    const run = await start('stalled', 'x');
    const done = h.runner.execute(run, { workerId: 'test-worker' });
    await new Promise((r) => setTimeout(r, 200));
    // What recovery does when a lease ran out of a run that used its last attempt: it ends `error`.
    const { failed } = await h.store.runs.recoverExpired(
      recoveryPolicy(1),
      new Date(Date.now() + 60_000),
    );
    expect(failed.map((r) => r.id)).toEqual([run.id]);
    const finished = await done;
    expect(finished).toMatchObject({ id: run.id, status: 'error' });
    expect(finished.error).toMatch(/used all 1 of its attempts \(runs.max_attempts is 1;/);
    expect(h.runner.endedHere(finished)).toBe(false);
    expect(h.logLines.join('')).not.toContain('"msg":"run failed"');
  });

  it('never writes the API key into run records, events or logs', async () => {
    h.agent('leaky', 'model: openai/gpt-test\ntools: [echo]');
    await h.sync();
    h.fake.script([
      { toolCalls: [{ name: 'echo', arguments: { text: `key is ${API_KEY}` } }] },
      { text: `done ${API_KEY}` },
    ]);
    const run = await start('leaky', 'leak it');
    const done = await h.runner.execute(run, { workerId: 'test-worker' });
    const everything = JSON.stringify([done, await h.store.runEvents.list(run.id), h.logLines]);
    expect(everything).not.toContain(API_KEY);
    expect(everything).toContain('[REDACTED]');
  });
});
