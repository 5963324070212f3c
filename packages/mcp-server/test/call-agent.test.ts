import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { AgentCoreError } from '@junction/agent-core';
import { createRunDoor } from '@junction/agent-core/runs';
import { call, connectInMemory, createHarness, textOf, type Harness } from './harness.js';

let h: Harness;
let client: Client;
let closeClient: () => Promise<void>;

beforeAll(async () => {
  h = await createHarness({
    agents: {
      calc: 'model: openai/gpt-test\ntools: [add]',
      chat: 'model: openai/gpt-test',
    },
  });
  ({ client, close: closeClient } = await connectInMemory(h.deps));
});
afterAll(async () => {
  await closeClient?.();
  await h?.close();
});
beforeEach(() => h.fake.reset());

/** Waits until every run this test queued has ended, so the next test starts clean. */
async function settle(runId: number): Promise<void> {
  await h.deps.runs.waitFor(runId, { timeoutMs: 15_000 });
}

describe('call_agent, waiting for the run', () => {
  it('runs the agent to completion through the real queue and runner: tool call, then answer', async () => {
    h.fake.script([
      { toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }] },
      { text: 'The sum is 5.', usage: { prompt_tokens: 30, completion_tokens: 7 } },
    ]);
    const calc = await h.get('calc');
    const result = await call(client, 'call_agent', {
      agent_id: String(calc.id),
      task: 'What is 2 + 3?',
    });
    expect(result.isError).toBeFalsy();
    const data = result.structuredContent as Record<string, unknown>;
    expect(data).toMatchObject({
      agent_id: calc.id,
      agent_name: 'calc',
      status: 'completed',
      steps_taken: 2,
      final_response: 'The sum is 5.',
      error: null,
      input_tokens: 40,
      output_tokens: 12,
    });
    expect(data.duration_ms).toEqual(expect.any(Number));
    expect(JSON.parse(textOf(result))).toEqual(data);
    // The fixture tool really ran, and inspect_run (verbose) shows the call with its result.
    const inspected = await call(client, 'inspect_run', {
      run_id: String(data.run_id),
      verbose: true,
    });
    const events = inspected.structuredContent?.events as Array<Record<string, unknown>>;
    expect(events.map((e) => e.type)).toEqual(['model_turn', 'tool_call', 'model_turn']);
    // A run its caller started alone has no origin (docs/runs.md, "Where a run came from").
    expect(inspected.structuredContent).toMatchObject({ origin: null });
    expect(events[1]?.payload).toMatchObject({
      tool: 'add',
      server: 'calc',
      arguments: { a: 2, b: 3 },
      result: '5',
      success: true,
    });
    const run = await h.store.runs.get(data.run_id as number);
    expect(run).toMatchObject({ source: 'mcp', task: 'What is 2 + 3?', status: 'completed' });
  });

  it('finds the agent by agent_name and passes variables to the run', async () => {
    h.fake.script([{ text: 'hello' }]);
    const result = await call(client, 'call_agent', {
      agent_name: 'chat',
      task: 'Say hello',
      variables: { CUSTOMER: 'acme' },
    });
    expect(result.structuredContent).toMatchObject({
      status: 'completed',
      final_response: 'hello',
    });
    const run = await h.store.runs.get(result.structuredContent?.run_id as number);
    expect(run?.variables).toEqual({ CUSTOMER: 'acme' });
  });

  it('accepts agent_id as a number as well as a string of digits', async () => {
    h.fake.script([{ text: 'ok' }]);
    const chat = await h.get('chat');
    const result = await call(client, 'call_agent', { agent_id: chat.id, task: 'hi' });
    expect(result.structuredContent).toMatchObject({ status: 'completed', agent_id: chat.id });
  });

  it('answers isError with the run error when the run ends in error', async () => {
    h.fake.script([{ error: { status: 400, message: 'model says no' } }]);
    const result = await call(client, 'call_agent', { agent_name: 'chat', task: 'fail please' });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ status: 'error' });
    expect(String(result.structuredContent?.error)).toContain('model says no');
    expect(textOf(result)).toMatch(
      /^Run \d+ of agent "chat" ended with status error: .*model says no/,
    );
  });

  it('answers status running and points to inspect_run when the timeout passes first', async () => {
    h.fake.script([{ delayMs: 3000, text: 'late answer' }]);
    const result = await call(client, 'call_agent', {
      agent_name: 'chat',
      task: 'take your time',
      timeout: 0.3,
    });
    // Queued or running (below): the answer came at the time-out, not at the run's end.
    expect(result.isError).toBeFalsy();
    const data = result.structuredContent as Record<string, unknown>;
    expect(['queued', 'running']).toContain(data.status);
    expect(String(data.message)).toContain(`inspect_run with run_id "${data.run_id}"`);
    await settle(data.run_id as number);
    expect((await h.store.runs.get(data.run_id as number))?.finalResponse).toBe('late answer');
  });

  it('uses defaultWaitMs when the caller gives no timeout', async () => {
    const { client: quick, close } = await connectInMemory({ ...h.deps, defaultWaitMs: 200 });
    try {
      h.fake.script([{ delayMs: 1000, text: 'slow' }]);
      const result = await call(quick, 'call_agent', { agent_name: 'chat', task: 'slowly' });
      expect(['queued', 'running']).toContain(result.structuredContent?.status);
      await settle(result.structuredContent?.run_id as number);
    } finally {
      await close();
    }
  });
});

describe('call_agent progress', () => {
  it('sends progress notifications every 5 s while it waits, when the client asks for them', async () => {
    h.fake.script([{ delayMs: 5_600, text: 'patient' }]);
    const seen: Array<{ progress: number; message?: string }> = [];
    const result = await client.callTool(
      { name: 'call_agent', arguments: { agent_name: 'chat', task: 'wait a bit' } },
      undefined,
      { onprogress: (p) => seen.push(p), timeout: 20_000 },
    );
    expect(result.structuredContent).toMatchObject({
      status: 'completed',
      final_response: 'patient',
    });
    // A quiet run: a line after 5 s; then its one model turn, as the run records it.
    expect(seen.map((p) => p.progress)).toEqual([1, 2]);
    expect(seen[0]?.message).toMatch(/^run \d+ of chat is still going \(5 s\)$/);
    expect(seen[1]?.message).toMatch(/^run \d+: model_turn step 1 .*finish stop/);
  });

  it('tells the client of each turn and tool call as the run makes them', async () => {
    h.fake.script([{ toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }] }, { text: 'five' }]);
    const seen: Array<{ progress: number; message?: string }> = [];
    const result = await client.callTool(
      { name: 'call_agent', arguments: { agent_name: 'calc', task: 'add 2 and 3' } },
      undefined,
      { onprogress: (p) => seen.push(p), timeout: 20_000 },
    );
    expect(result.structuredContent).toMatchObject({ status: 'completed', final_response: 'five' });
    const runId = (result.structuredContent as { run_id: number }).run_id;
    expect(seen.map((p) => p.progress)).toEqual(seen.map((_, i) => i + 1));
    expect(seen.map((p) => p.message)).toEqual([
      expect.stringMatching(new RegExp(`^run ${runId}: model_turn step 1 .*calls add$`)),
      expect.stringMatching(new RegExp(`^run ${runId}: tool_call step 1  \\S+/add  ok$`)),
      expect.stringMatching(new RegExp(`^run ${runId}: model_turn step 2 .*"five"$`)),
    ]);
  });

  it('only waits for the end (follows no events) when the client asked for no progress', async () => {
    const waitOnly = {
      ...h.deps.runs,
      follow: () => Promise.reject(new Error('followed without a progress token')),
    };
    const { client: c, close } = await connectInMemory({ ...h.deps, runs: waitOnly });
    try {
      h.fake.script([{ text: 'plain' }]);
      const answer = await call(c, 'call_agent', { agent_name: 'chat', task: 'no progress' });
      expect(answer.structuredContent).toMatchObject({
        status: 'completed',
        final_response: 'plain',
      });
    } finally {
      await close();
    }
  });
});

describe('call_agent with async: true', () => {
  it('returns the queued run at once; inspect_run follows it until it completes', async () => {
    h.fake.script([{ delayMs: 400, text: 'async done' }]);
    const result = await call(client, 'call_agent', {
      agent_name: 'chat',
      task: 'in the background',
      async: true,
    });
    const data = result.structuredContent as Record<string, unknown>;
    expect(data).toMatchObject({ agent_name: 'chat', agent_id: (await h.get('chat')).id });
    expect(['queued', 'running']).toContain(data.status);
    expect(Object.keys(data).sort()).toEqual(
      ['agent_id', 'agent_name', 'message', 'run_id', 'status'].sort(),
    );
    const runId = String(data.run_id);
    let status = '';
    const deadline = Date.now() + 10_000;
    let last: Record<string, unknown> = {};
    while (Date.now() < deadline) {
      last = (await call(client, 'inspect_run', { run_id: runId })).structuredContent as Record<
        string,
        unknown
      >;
      status = String(last.status);
      if (status !== 'queued' && status !== 'running') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe('completed');
    expect(last.final_response).toBe('async done');
  });
});

describe('call_agent refusals', () => {
  it('refuses an unknown agent_id with a tool error that names list_agents', async () => {
    const result = await call(client, 'call_agent', { agent_id: '9999', task: 'x' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      'No agent has id 9999. List agents with `junction agent list`, GET /api/v1/agents or the MCP tool list_agents for valid ids. (AGENT_NOT_FOUND)',
    );
    expect(result.structuredContent).toMatchObject({ error: { code: 'AGENT_NOT_FOUND' } });
  });

  it('refuses an unknown agent_name', async () => {
    const result = await call(client, 'call_agent', { agent_name: 'nobody', task: 'x' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('No agent is named "nobody"');
  });

  it('refuses a call that names no agent', async () => {
    const result = await call(client, 'call_agent', { task: 'x' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(
      'agent_name is required (or agent_id): the agent to run (RUN_REQUEST_INVALID)',
    );
  });

  it('refuses an agent_id that is not a string of digits', async () => {
    const result = await call(client, 'call_agent', { agent_id: 'calc', task: 'x' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(
      'Input validation error: Invalid arguments for tool call_agent: agent_id must be an id: a string of digits such as "12"',
    );
    expect(result.structuredContent).toMatchObject({ error: { code: 'ARGUMENT_INVALID' } });
  });

  it('refuses a missing task as invalid arguments, naming the field', async () => {
    const result = await call(client, 'call_agent', { agent_name: 'chat' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('task is required');
    expect(textOf(result)).toContain('at task');
  });

  it('refuses variables that are not strings', async () => {
    const result = await call(client, 'call_agent', {
      agent_name: 'chat',
      task: 'x',
      variables: { N: 3 },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('each value in variables must be a string at variables.N');
  });

  it('refuses a timeout over one hour', async () => {
    const result = await call(client, 'call_agent', {
      agent_name: 'chat',
      task: 'x',
      timeout: 7200,
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('timeout must be at most 3600 seconds');
  });

  it('refuses when the model check fails, without queueing a run', async () => {
    const before = await h.store.runs.count({});
    const { client: checked, close } = await connectInMemory({
      ...h.deps,
      runs: createRunDoor({
        store: h.store,
        checkModel: (agent) => {
          if (agent.name === 'chat')
            throw new AgentCoreError(
              'MODEL_API_KEY_MISSING',
              'Set OPENAI_API_KEY to run agents on openai.',
            );
        },
        dispatch: h.workers,
        endings: h.workers,
      }),
    });
    try {
      const missing = await call(checked, 'call_agent', { agent_name: 'chat', task: 'x' });
      expect(missing.isError).toBe(true);
      expect(textOf(missing)).toBe(
        'Set OPENAI_API_KEY to run agents on openai. (MODEL_API_KEY_MISSING)',
      );
      expect(await h.store.runs.count({})).toBe(before);
    } finally {
      await close();
    }
  });

  it('answers with the queued run (not "try again") when following it fails', async () => {
    const broken = {
      submit: h.deps.runs.submit,
      waitFor: () => Promise.reject(new Error('database is locked')),
      follow: () => Promise.reject(new Error('database is locked')),
      cancel: h.deps.runs.cancel,
    };
    const { client: c, close } = await connectInMemory({ ...h.deps, runs: broken });
    try {
      h.fake.script([{ text: 'fine' }]);
      const answer = await call(c, 'call_agent', { agent_name: 'chat', task: 'follow me' });
      expect(answer.isError).toBeFalsy();
      const runId = (answer.structuredContent as { run_id: number }).run_id;
      expect(runId).toEqual(expect.any(Number));
      expect(textOf(answer)).toContain('inspect_run');
      expect(textOf(answer)).not.toMatch(/try again/i);
      await settle(runId);
    } finally {
      await close();
    }
  });

  it('refuses agent_id and agent_name that disagree', async () => {
    const calc = await h.get('calc');
    const result = await call(client, 'call_agent', {
      agent_id: String(calc.id),
      agent_name: 'chat',
      task: 'x',
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(`agent_id ${calc.id} is agent "calc", not "chat"`);
  });
});
