// The fake OpenAI-compatible provider (tooling/fixtures/fake-openai.mjs): its wire format, its
// script and modes, and driving it as a separate process the way the benchmark does.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { startFakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import type { FakeOpenAI, FakeRequest } from '@junction/tooling/fixtures/fake-openai.mjs';
import { resolveModel } from '../src/models/model-factory.js';

const fakePath = createRequire(import.meta.url).resolve(
  '@junction/tooling/fixtures/fake-openai.mjs',
);
const AUTH = { authorization: 'Bearer sk-fake-test-key', 'content-type': 'application/json' };

function chat(url: string, body: Record<string, unknown>, headers: Record<string, string> = AUTH) {
  return fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ model: 'fake-model', ...body }),
  });
}

const userTurn = [{ role: 'user', content: 'hello there' }];

interface Completion {
  choices: {
    message: {
      content: string | null;
      tool_calls?: { id: string; function: { name: string; arguments: string } }[];
    };
    finish_reason: string;
  }[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

/** The JSON payloads of an SSE body, and whether it ended with [DONE]. */
function sseEvents(text: string): { events: Record<string, unknown>[]; done: boolean } {
  const data = text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length));
  const done = data.at(-1) === '[DONE]';
  const events = data
    .filter((d) => d !== '[DONE]')
    .map((d) => JSON.parse(d) as Record<string, unknown>);
  return { events, done };
}

describe('fake-openai in process', () => {
  let fake: FakeOpenAI;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => {
    fake.reset();
  });

  it('listens on 127.0.0.1 and serves /v1/models', async () => {
    expect(fake.url).toBe(`http://127.0.0.1:${fake.port}/v1`);
    const res = await fetch(`${fake.url}/models`, { headers: AUTH });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { object: string; data: { id: string }[] };
    expect(body.object).toBe('list');
    expect(body.data.map((m) => m.id)).toContain('gpt-4o-mini');
  });

  it('echoes the last user message with default usage when nothing is scripted', async () => {
    const res = await chat(fake.url, {
      messages: [{ role: 'user', content: [{ type: 'text', text: 'parts work too' }] }],
    });
    const body = (await res.json()) as Completion;
    expect(body.choices[0]?.message.content).toBe('echo: parts work too');
    expect(body.choices[0]?.finish_reason).toBe('stop');
    expect(body.usage).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
  });

  it('answers scripted steps in order: text, tool calls, json, then the mode again', async () => {
    fake.script([
      { text: 'first', usage: { prompt_tokens: 1, completion_tokens: 2 } },
      { toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }] },
      { json: { answer: 42 } },
    ]);
    const answers: Completion[] = [];
    for (let i = 0; i < 4; i += 1) {
      answers.push((await (await chat(fake.url, { messages: userTurn })).json()) as Completion);
    }
    expect(answers[0]?.choices[0]?.message.content).toBe('first');
    expect(answers[0]?.usage.total_tokens).toBe(3);
    const call = answers[1]?.choices[0]?.message.tool_calls?.[0];
    expect(answers[1]?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(answers[1]?.choices[0]?.message.content).toBeNull();
    expect(call?.function).toEqual({ name: 'lookup', arguments: '{"q":"x"}' });
    expect(call?.id).toMatch(/^call_/);
    expect(JSON.parse(answers[2]?.choices[0]?.message.content ?? '')).toEqual({ answer: 42 });
    expect(answers[3]?.choices[0]?.message.content).toBe('echo: hello there');
    expect(fake.requests).toHaveLength(4);
    expect(fake.pending()).toBe(0);
  });

  it('answers an error step with an OpenAI-style body and the retry header', async () => {
    fake.script([
      { error: { status: 429, message: 'Slow down.', type: 'requests' }, retryAfterMs: 5 },
    ]);
    const res = await chat(fake.url, { messages: userTurn });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after-ms')).toBe('5');
    expect(await res.json()).toEqual({
      error: { message: 'Slow down.', type: 'requests', param: null, code: null },
    });
  });

  it('rejects requests without a bearer key and never echoes a wrong one', async () => {
    const missing = await chat(
      fake.url,
      { messages: userTurn },
      { 'content-type': 'application/json' },
    );
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe(
      'missing_api_key',
    );

    const strict = await startFakeOpenAI({ apiKey: 'right-key' });
    try {
      const wrong = await chat(
        strict.url,
        { messages: userTurn },
        { authorization: 'Bearer wrong-key-123' },
      );
      expect(wrong.status).toBe(401);
      expect(await wrong.text()).not.toContain('wrong-key-123');
      const right = await chat(
        strict.url,
        { messages: userTurn },
        { authorization: 'Bearer right-key' },
      );
      expect(right.status).toBe(200);
    } finally {
      await strict.close();
    }
    // Rejected requests are recorded too, header included, so a test can see what was sent.
    expect(fake.requests[0]?.authorization).toBeUndefined();
  });

  it('answers 400 to a body that is not a chat request', async () => {
    const bad = await fetch(`${fake.url}/chat/completions`, {
      method: 'POST',
      headers: AUTH,
      body: '{oops',
    });
    expect(bad.status).toBe(400);
    const empty = await chat(fake.url, { messages: [] });
    expect(empty.status).toBe(400);
  });

  it('streams text, tool-call deltas and a final usage chunk, then [DONE]', async () => {
    fake.script([
      { text: 'streamed text here', usage: { prompt_tokens: 4, completion_tokens: 6 } },
      { toolCalls: [{ id: 'call_s', name: 'add', arguments: { a: 1, b: 2 } }] },
    ]);
    const textRes = await chat(fake.url, {
      messages: userTurn,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(textRes.headers.get('content-type')).toBe('text/event-stream');
    const text = sseEvents(await textRes.text());
    expect(text.done).toBe(true);
    const deltas = text.events.map(
      (e) => (e.choices as { delta?: { content?: string } }[])[0]?.delta?.content ?? '',
    );
    expect(deltas.join('')).toBe('streamed text here');
    expect(text.events.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 4, completion_tokens: 6, total_tokens: 10 },
    });

    const toolRes = await chat(fake.url, { messages: userTurn, stream: true });
    const tools = sseEvents(await toolRes.text());
    expect(tools.done).toBe(true);
    // Without include_usage there is no usage chunk.
    expect(tools.events.some((e) => 'usage' in e)).toBe(false);
    type ToolDelta = {
      index: number;
      id?: string;
      function: { name?: string; arguments?: string };
    };
    const toolDeltas = tools.events.flatMap(
      (e) => (e.choices as { delta?: { tool_calls?: ToolDelta[] } }[])[0]?.delta?.tool_calls ?? [],
    );
    expect(toolDeltas[0]).toMatchObject({ index: 0, id: 'call_s', function: { name: 'add' } });
    expect(toolDeltas.map((d) => d.function.arguments ?? '').join('')).toBe('{"a":1,"b":2}');
    const finish = tools.events.at(-1)?.choices as { finish_reason: string }[];
    expect(finish[0]?.finish_reason).toBe('tool_calls');
  });

  it('asks answer() for each unscripted request, with its body and its index in requests', async () => {
    const seen: Array<[string, number]> = [];
    const answering = await startFakeOpenAI({
      steps: [{ text: 'scripted first' }],
      answer: (body, index) => {
        const last = body.messages?.at(-1)?.content;
        seen.push([String(last), index]);
        return last === 'leave it' ? undefined : { text: `answer ${index} to ${String(last)}` };
      },
    });
    try {
      const ask = async (content: string): Promise<string | null | undefined> => {
        const res = await chat(answering.url, { messages: [{ role: 'user', content }] });
        return ((await res.json()) as Completion).choices[0]?.message.content;
      };
      expect(await ask('one')).toBe('scripted first');
      expect(await ask('two')).toBe('answer 1 to two');
      // Undefined: the mode's answer.
      expect(await ask('leave it')).toBe('echo: leave it');
      expect(seen).toEqual([
        ['two', 1],
        ['leave it', 2],
      ]);
      await expect(startFakeOpenAI({ answer: 'text' as never })).rejects.toThrow(
        /answer must be a function/,
      );
    } finally {
      await answering.close();
    }
  });

  it('waits delayMs before answering', async () => {
    fake.script([{ delayMs: 150, text: 'late' }]);
    const started = Date.now();
    const body = (await (await chat(fake.url, { messages: userTurn })).json()) as Completion;
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(body.choices[0]?.message.content).toBe('late');
  });

  it('hangs until the client gives up, and close() still returns', async () => {
    const hanging = await startFakeOpenAI({ steps: [{ hang: true }, { hang: true }] });
    await expect(
      fetch(`${hanging.url}/chat/completions`, {
        method: 'POST',
        headers: AUTH,
        body: JSON.stringify({ messages: userTurn }),
        signal: AbortSignal.timeout(100),
      }),
    ).rejects.toThrow();
    expect(hanging.requests).toHaveLength(1);
    // A second hanging request is left open; close() must not wait for it.
    const open = fetch(`${hanging.url}/chat/completions`, {
      method: 'POST',
      headers: AUTH,
      body: JSON.stringify({ messages: userTurn }),
      signal: AbortSignal.timeout(60_000),
    }).catch((err: unknown) => err);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closing = Date.now();
    await hanging.close();
    // Far sooner than the open request's own 60 s time-out.
    expect(Date.now() - closing).toBeLessThan(30_000);
    // The dropped connection fails the fetch (a TypeError from another realm than jest's).
    expect(String(await open)).toMatch(/fetch failed|terminated|other side closed/);
  });

  it('drives a 5-turn agent with one tool call per turn in tool-loop mode', async () => {
    const loop = await startFakeOpenAI({
      mode: 'tool-loop',
      tool: 'ping',
      toolArgs: { n: 1 },
      turns: 5,
    });
    try {
      const { model } = resolveModel(
        'openai/gpt-4o-mini',
        { ai_base_url: loop.url },
        {
          OPENAI_API_KEY: 'sk-loop-key',
        },
      );
      let pings = 0;
      const result = await generateText({
        model,
        prompt: 'go',
        tools: {
          ping: tool({
            inputSchema: z.object({ n: z.number() }),
            execute: async ({ n }) => {
              pings += n;
              return 'pong';
            },
          }),
        },
        stopWhen: stepCountIs(10),
      });
      expect(result.steps).toHaveLength(5);
      expect(pings).toBe(4);
      expect(result.text).toBe('done after 5 turns');
      expect(loop.requests).toHaveLength(5);
      expect(result.totalUsage.inputTokens).toBe(50);
    } finally {
      await loop.close();
    }
  });
});

describe('fake-openai as a process', () => {
  it('prints one LISTENING line and is driven over HTTP', async () => {
    const child = spawn(
      process.execPath,
      [fakePath, '--port', '0', '--mode', 'tool-loop', '--tool', 'ping', '--turns', '2'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) =>
      child.once('exit', (code) => resolve(code)),
    );
    try {
      const port = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no LISTENING line; stderr: ${stderr}`)),
          10_000,
        );
        child.stdout.on('data', (chunk: string) => {
          stdout += chunk;
          const match = /^LISTENING (\d+)\n/.exec(stdout);
          if (match?.[1] !== undefined) {
            clearTimeout(timer);
            resolve(Number(match[1]));
          }
        });
      });
      const base = `http://127.0.0.1:${port}`;
      const url = `${base}/v1`;

      // tool-loop, turns 2: one tool call, then text; turns are counted per conversation.
      const first = (await (await chat(url, { messages: userTurn })).json()) as Completion;
      expect(first.choices[0]?.message.tool_calls?.[0]?.function).toEqual({
        name: 'ping',
        arguments: '{}',
      });
      const second = (await (
        await chat(url, {
          messages: [
            ...userTurn,
            { role: 'assistant', content: null, tool_calls: first.choices[0]?.message.tool_calls },
          ],
        })
      ).json()) as Completion;
      expect(second.choices[0]?.message.content).toBe('done after 2 turns');

      const scripted = await fetch(`${base}/__script`, {
        method: 'POST',
        body: JSON.stringify({ steps: [{ text: 'from the script' }] }),
      });
      expect(await scripted.json()).toEqual({ queued: 1 });
      const third = (await (await chat(url, { messages: userTurn })).json()) as Completion;
      expect(third.choices[0]?.message.content).toBe('from the script');

      const requests = (await (await fetch(`${base}/__requests`)).json()) as FakeRequest[];
      expect(requests).toHaveLength(3);
      expect(requests[0]?.authorization).toBe('Bearer sk-fake-test-key');
      expect(requests[2]?.body.messages).toEqual(userTurn);

      expect((await fetch(`${base}/__reset`, { method: 'POST' })).status).toBe(200);
      expect(await (await fetch(`${base}/__requests`)).json()).toEqual([]);
      expect((await fetch(`${base}/__script`, { method: 'POST', body: '{}' })).status).toBe(400);

      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(stdout).toBe(`LISTENING ${port}\n`);
      expect(stdout + stderr).not.toContain('sk-fake-test-key');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  it('refuses unknown flags with a usage message', async () => {
    const child = spawn(process.execPath, [fakePath, '--mode', 'nonsense'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('unknown mode "nonsense"');
    expect(stderr).toContain('usage:');
  });
});
