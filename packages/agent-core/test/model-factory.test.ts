import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:net';
import { APICallError, generateText, stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';
import { startFakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import type { FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { AgentCoreError } from '../src/errors.js';
import { classifyProviderError, redactSecrets } from '../src/models/model-errors.js';
import { modelSecrets, PROVIDERS, resolveModel } from '../src/models/model-factory.js';
import type { ModelSettings } from '../src/models/model-factory.js';

const KEY = 'sk-test-model-factory-0123456789';

let fake: FakeOpenAI;
let settings: ModelSettings;
const env = { OPENAI_API_KEY: KEY };

beforeAll(async () => {
  fake = await startFakeOpenAI();
  settings = { ai_base_url: fake.url };
});

afterAll(async () => {
  await fake.close();
});

beforeEach(() => {
  fake.reset();
});

/** The AgentCoreError resolveModel throws for these arguments. */
function resolveError(
  modelId: string | undefined,
  s: ModelSettings,
  e: NodeJS.ProcessEnv = {},
): AgentCoreError {
  try {
    resolveModel(modelId, s, e);
  } catch (err) {
    expect(err).toBeInstanceOf(AgentCoreError);
    return err as AgentCoreError;
  }
  throw new Error(`resolveModel(${String(modelId)}) did not throw`);
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return address.port;
}

describe('resolveModel over HTTP against the fake provider', () => {
  it('generates text through the Chat Completions API and reports the usage', async () => {
    const resolved = resolveModel('openai/gpt-4o-mini', settings, env);
    expect(resolved).toMatchObject({
      provider: 'openai',
      modelId: 'gpt-4o-mini',
      id: 'openai/gpt-4o-mini',
    });
    expect(resolved.model.provider).toBe('openai.chat');
    fake.script([
      { text: 'Hello from the fake.', usage: { prompt_tokens: 12, completion_tokens: 7 } },
    ]);

    const result = await generateText({ model: resolved.model, prompt: 'Say hello.' });

    expect(result.text).toBe('Hello from the fake.');
    expect(result.usage.inputTokens).toBe(12);
    expect(result.usage.outputTokens).toBe(7);
    expect(result.usage.totalTokens).toBe(19);
    expect(fake.requests).toHaveLength(1);
    const [request] = fake.requests;
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.authorization).toBe(`Bearer ${KEY}`);
    expect(request?.body.model).toBe('gpt-4o-mini');
    expect(request?.body.messages?.at(-1)).toMatchObject({ role: 'user', content: 'Say hello.' });
  });

  it('runs a tool call round trip and sends the tool result back to the provider', async () => {
    const { model } = resolveModel('openai/gpt-4o-mini', settings, env);
    fake.script([
      { toolCalls: [{ id: 'call_add_1', name: 'add', arguments: { a: 2, b: 3 } }] },
      { text: 'The sum is 5.' },
    ]);
    const calls: unknown[] = [];

    const result = await generateText({
      model,
      prompt: 'What is 2 + 3?',
      tools: {
        add: tool({
          description: 'Adds two numbers',
          inputSchema: z.object({ a: z.number(), b: z.number() }),
          execute: async ({ a, b }) => {
            calls.push({ a, b });
            return { sum: a + b };
          },
        }),
      },
      stopWhen: stepCountIs(3),
    });

    expect(result.text).toBe('The sum is 5.');
    expect(result.steps).toHaveLength(2);
    expect(calls).toEqual([{ a: 2, b: 3 }]);
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[0]?.body.tools?.map((t) => t.function.name)).toEqual(['add']);
    const messages = fake.requests[1]?.body.messages ?? [];
    expect(messages.find((m) => m.role === 'assistant')?.tool_calls?.[0]).toMatchObject({
      id: 'call_add_1',
      function: { name: 'add' },
    });
    const toolMessage = messages.find((m) => m.role === 'tool');
    expect(toolMessage?.tool_call_id).toBe('call_add_1');
    expect(JSON.parse(String(toolMessage?.content))).toEqual({ sum: 5 });
    expect(result.totalUsage.inputTokens).toBe(20);
  });

  it('prefers ai_api_key over OPENAI_API_KEY for the configured provider', async () => {
    const { model } = resolveModel(
      undefined,
      { ai_model: 'gpt-4o-mini', ai_base_url: fake.url, ai_api_key: 'cfg-key-123' },
      env,
    );
    await generateText({ model, prompt: 'hi' });
    expect(fake.requests[0]?.authorization).toBe('Bearer cfg-key-123');
    expect(fake.requests[0]?.body.model).toBe('gpt-4o-mini');
  });

  it('reaches an openai-compatible server with a model name that contains "/"', async () => {
    const resolved = resolveModel(
      'openai-compatible/meta-llama/Llama-3-8B',
      { ai_provider: 'openai-compatible', ai_base_url: fake.url },
      { OPENAI_COMPATIBLE_API_KEY: 'compat-key-123' },
    );
    expect(resolved).toMatchObject({
      provider: 'openai-compatible',
      modelId: 'meta-llama/Llama-3-8B',
      id: 'openai-compatible/meta-llama/Llama-3-8B',
    });
    expect(resolved.model.provider).toBe('openai-compatible.chat');

    const result = await generateText({ model: resolved.model, prompt: 'ping' });

    expect(result.text).toBe('echo: ping');
    expect(result.usage.inputTokens).toBe(10);
    expect(fake.requests[0]?.body.model).toBe('meta-llama/Llama-3-8B');
    expect(fake.requests[0]?.authorization).toBe('Bearer compat-key-123');
  });

  it('reaches ollama without any key', async () => {
    const noAuth = await startFakeOpenAI({ requireAuth: false });
    try {
      const resolved = resolveModel(
        'ollama/llama3.2',
        { ai_provider: 'ollama', ai_base_url: noAuth.url },
        {},
      );
      expect(resolved.model.provider).toBe('ollama.chat');
      expect(resolved.id).toBe('ollama/llama3.2');

      const result = await generateText({ model: resolved.model, prompt: 'hello ollama' });

      expect(result.text).toBe('echo: hello ollama');
      expect(noAuth.requests[0]?.body.model).toBe('llama3.2');
      expect(noAuth.requests[0]?.authorization).toBeUndefined();
    } finally {
      await noAuth.close();
    }
  });

  it('streams text and usage with streamText', async () => {
    const { model } = resolveModel('openai/gpt-4o-mini', settings, env);
    fake.script([
      {
        text: 'A streamed answer in several pieces.',
        usage: { prompt_tokens: 3, completion_tokens: 9 },
      },
    ]);

    const result = streamText({ model, prompt: 'stream please' });
    const deltas: string[] = [];
    for await (const delta of result.textStream) deltas.push(delta);

    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('A streamed answer in several pieces.');
    const usage = await result.usage;
    expect(usage.inputTokens).toBe(3);
    expect(usage.outputTokens).toBe(9);
    expect(fake.requests[0]?.body.stream).toBe(true);
    expect(fake.requests[0]?.body.stream_options).toEqual({ include_usage: true });
  });
});

describe('provider failures', () => {
  it('retries a 500 and returns the answer that follows', async () => {
    const { model } = resolveModel('openai/gpt-4o-mini', settings, env);
    // retry-after-ms replaces the SDK's 2 s backoff, so the retry is exercised without the wait.
    fake.script([
      { error: { status: 500, message: 'The server had an error.' }, retryAfterMs: 20 },
      { text: 'recovered' },
    ]);

    const result = await generateText({ model, prompt: 'hi', maxRetries: 2 });

    expect(result.text).toBe('recovered');
    expect(fake.requests).toHaveLength(2);
  });

  it('does not retry a 400 and reports the provider message and status', async () => {
    const { model } = resolveModel('openai/gpt-4o-mini', settings, env);
    fake.script([
      {
        error: {
          status: 400,
          message: "Invalid value for 'temperature': must be at most 2.",
          code: 'invalid_value',
        },
      },
      { text: 'never sent' },
    ]);

    const err = await rejection(generateText({ model, prompt: 'hi', maxRetries: 2 }));

    expect(fake.requests).toHaveLength(1);
    const info = classifyProviderError(err);
    expect(info).toMatchObject({ kind: 'http', status: 400, retryable: false });
    expect(info.message).toContain("Invalid value for 'temperature': must be at most 2.");
    expect(info.message).toContain('400');
  });

  it('classifies 429 as retryable, also after the SDK gave up retrying', async () => {
    const { model } = resolveModel('openai/gpt-4o-mini', settings, env);
    const tooMany = {
      error: { status: 429, message: 'Rate limit reached for gpt-4o-mini.', type: 'requests' },
      retryAfterMs: 10,
    };
    fake.script([tooMany]);
    const single = classifyProviderError(
      await rejection(generateText({ model, prompt: 'a', maxRetries: 0 })),
    );
    expect(single).toMatchObject({ kind: 'http', status: 429, retryable: true });
    expect(single.message).toContain('Rate limit reached for gpt-4o-mini.');

    fake.script([tooMany, tooMany]);
    const retried = classifyProviderError(
      await rejection(generateText({ model, prompt: 'b', maxRetries: 1 })),
    );
    expect(retried).toMatchObject({ kind: 'http', status: 429, retryable: true, attempts: 2 });
    expect(retried.message).toContain('(after 2 attempts)');
  });

  it('classifies an unreachable provider as a retryable network error', async () => {
    const port = await closedPort();
    const { model } = resolveModel(
      'openai/gpt-4o-mini',
      { ai_base_url: `http://127.0.0.1:${port}/v1` },
      env,
    );

    const info = classifyProviderError(
      await rejection(generateText({ model, prompt: 'hi', maxRetries: 0 })),
    );

    expect(info).toMatchObject({ kind: 'network', retryable: true });
    expect(info.status).toBeUndefined();
    expect(info.message).toContain('ECONNREFUSED');
  });

  it('classifies the APICallError the SDK makes of a failed connection', () => {
    // Outside jest's VM the SDK wraps "fetch failed" into this shape (inside it, the raw
    // TypeError arrives, which the test above covers).
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), {
      code: 'ECONNREFUSED',
    });
    const err = new APICallError({
      message: 'Cannot connect to API: connect ECONNREFUSED 127.0.0.1:9',
      url: 'http://127.0.0.1:9/v1/chat/completions',
      requestBodyValues: {},
      cause,
      isRetryable: true,
    });
    expect(classifyProviderError(err)).toEqual({
      kind: 'network',
      retryable: true,
      message: 'Cannot reach the model provider at 127.0.0.1:9: connect ECONNREFUSED 127.0.0.1:9',
    });
  });

  it('classifies a dropped connection as a retryable network error', async () => {
    const { model } = resolveModel('openai/gpt-4o-mini', settings, env);
    fake.script([{ disconnect: true }]);

    const info = classifyProviderError(
      await rejection(generateText({ model, prompt: 'hi', maxRetries: 0 })),
    );

    expect(info).toMatchObject({ kind: 'network', retryable: true });
  });

  it('tells a timeout from a cancellation', async () => {
    const { model } = resolveModel('openai/gpt-4o-mini', settings, env);
    fake.script([{ hang: true }, { hang: true }]);

    const timedOut = await rejection(
      generateText({ model, prompt: 'a', maxRetries: 0, abortSignal: AbortSignal.timeout(100) }),
    );
    expect(classifyProviderError(timedOut)).toMatchObject({ kind: 'timeout', retryable: true });

    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const cancelled = await rejection(
      generateText({ model, prompt: 'b', maxRetries: 0, abortSignal: controller.signal }),
    );
    expect(classifyProviderError(cancelled)).toMatchObject({ kind: 'aborted', retryable: false });
  });

  it('redacts a key the provider echoes back in its error', async () => {
    const { model } = resolveModel('openai/gpt-4o-mini', settings, env);
    fake.script([
      {
        error: {
          status: 401,
          message: `Incorrect API key provided: ${KEY}. Bearer ${KEY} was rejected.`,
          code: 'invalid_api_key',
        },
      },
    ]);

    const info = classifyProviderError(
      await rejection(generateText({ model, prompt: 'hi', maxRetries: 0 })),
      modelSecrets(settings, env),
    );

    expect(info).toMatchObject({ status: 401, retryable: false });
    expect(info.message).toContain('Incorrect API key provided');
    expect(info.message).not.toContain(KEY);
    expect(info.message).not.toContain('model-factory-0123456789');
  });

  it('redacts key-shaped text even when the key is not known', () => {
    const text = redactSecrets(
      'key sk-ant-api03-abcdefghij, google AIzaSyA1234567890abcdefghijklmnop, api_key=hunter22, Bearer abc.def',
    );
    expect(text).not.toMatch(/sk-ant-api03-abcdefghij|AIzaSy|hunter22|abc\.def/);
  });
});

describe('resolveModel errors and resolution rules', () => {
  it('names OPENAI_API_KEY and ai_api_key when the key is missing, and no key value', () => {
    const err = resolveError(
      'openai/gpt-4o-mini',
      {},
      { ANTHROPIC_API_KEY: 'sk-ant-secret-value-123' },
    );
    expect(err.code).toBe('MODEL_API_KEY_MISSING');
    expect(err.message).toContain('OPENAI_API_KEY');
    expect(err.message).toContain('ai_api_key');
    const everything = JSON.stringify({ message: err.message, details: err.details });
    expect(everything).not.toMatch(/sk-|secret/);
    expect(err.details).toMatchObject({ provider: 'openai', env: ['OPENAI_API_KEY'] });
  });

  it('treats an empty key variable as missing', () => {
    expect(resolveError('openai/gpt-4o-mini', {}, { OPENAI_API_KEY: '  ' }).code).toBe(
      'MODEL_API_KEY_MISSING',
    );
  });

  it('names the known providers for an unknown one', () => {
    const fromConfig = resolveError('gpt-4o', { ai_provider: 'azure' }, env);
    expect(fromConfig.code).toBe('MODEL_PROVIDER_UNKNOWN');
    expect(fromConfig.message).toContain('azure');
    for (const name of PROVIDERS) expect(fromConfig.message).toContain(name);

    const misspelt = resolveError('opnai/gpt-4o', {}, env);
    expect(misspelt.code).toBe('MODEL_PROVIDER_UNKNOWN');
    expect(misspelt.message).toContain('"opnai"');
  });

  it('says where to set the model when there is none', () => {
    for (const missing of [undefined, '', '   ']) {
      const err = resolveError(missing, {}, env);
      expect(err.code).toBe('MODEL_NOT_CONFIGURED');
      expect(err.message).toContain('model:');
      expect(err.message).toContain('ai_model');
      expect(err.message).toContain('config.yaml');
    }
  });

  it('falls back to ai_model, and gives a bare model the ai_provider (default openai)', () => {
    expect(resolveModel(undefined, { ai_model: 'gpt-4o' }, env).id).toBe('openai/gpt-4o');
    expect(resolveModel('gpt-4.1', { ai_model: 'gpt-4o' }, env).id).toBe('openai/gpt-4.1');
    const bare = resolveModel(
      'claude-sonnet-4-5',
      { ai_provider: 'anthropic' },
      { ANTHROPIC_API_KEY: 'a-key' },
    );
    expect(bare).toMatchObject({
      provider: 'anthropic',
      modelId: 'claude-sonnet-4-5',
      id: 'anthropic/claude-sonnet-4-5',
    });
    expect(resolveModel(undefined, { ai_model: 'ollama/qwen3:8b' }, {}).id).toBe('ollama/qwen3:8b');
  });

  it('keeps "/" in model names and only takes a known first segment as the provider', () => {
    const compat = { ai_provider: 'openai-compatible', ai_base_url: 'http://127.0.0.1:8000/v1' };
    expect(resolveModel('meta-llama/Llama-3-8B', compat, {})).toMatchObject({
      provider: 'openai-compatible',
      modelId: 'meta-llama/Llama-3-8B',
    });
    expect(resolveModel('openai-compatible/org/model/v2', compat, {}).modelId).toBe('org/model/v2');
    expect(resolveModel('ollama/hf.co/org/model', {}, {}).modelId).toBe('hf.co/org/model');
  });

  it('needs a base URL for openai-compatible', () => {
    const err = resolveError('openai-compatible/my-model', {}, {});
    expect(err.code).toBe('MODEL_BASE_URL_MISSING');
    expect(err.message).toContain('ai_base_url');
    const viaEnv = resolveModel(
      'openai-compatible/my-model',
      {},
      {
        OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:8000/v1',
      },
    );
    expect(viaEnv.modelId).toBe('my-model');
  });

  it('resolves anthropic and google models with their provider ids', () => {
    const claude = resolveModel('anthropic/claude-sonnet-4-5', {}, { ANTHROPIC_API_KEY: 'a-key' });
    expect(claude.model.provider).toBe('anthropic.messages');
    expect(claude.model.modelId).toBe('claude-sonnet-4-5');

    const gemini = resolveModel('google/gemini-2.5-flash', {}, { GEMINI_API_KEY: 'g-key' });
    expect(gemini.model.provider).toBe('google.generative-ai');
    expect(gemini.model.modelId).toBe('gemini-2.5-flash');
    expect(
      resolveModel('google/gemini-2.5-flash', {}, { GOOGLE_GENERATIVE_AI_API_KEY: 'g-key' }).id,
    ).toBe('google/gemini-2.5-flash');

    const missing = resolveError('google/gemini-2.5-flash', {}, {});
    expect(missing.message).toContain('GEMINI_API_KEY');
    expect(missing.message).toContain('GOOGLE_GENERATIVE_AI_API_KEY');
  });

  it('never hands the configured key of one provider to another', () => {
    const openaiConfig = { ai_provider: 'openai', ai_api_key: 'cfg-openai-key' };
    const err = resolveError('anthropic/claude-sonnet-4-5', openaiConfig, {});
    expect(err.code).toBe('MODEL_API_KEY_MISSING');
    expect(err.message).toContain('ANTHROPIC_API_KEY');
    expect(
      resolveModel('anthropic/claude-sonnet-4-5', { ...openaiConfig, ai_provider: 'anthropic' }, {})
        .provider,
    ).toBe('anthropic');
  });
});
