import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { openFixture, post, startWebhookApp, type Fixture, type Listening } from './helpers.js';

let fx: Fixture;
let app: Listening | undefined;

beforeEach(async () => {
  fx = await openFixture();
  app = undefined;
});
afterEach(async () => {
  await app?.close();
  await fx.close();
});

describe('GET /runs/:run_id', () => {
  it('returns a queued run, then the same run once it has finished', async () => {
    app = await startWebhookApp(fx);
    const accepted = (await (
      await post(`${app.url}/execute`, { agent_name: 'assistant', task: 'Say hi' })
    ).json()) as { run_id: number };

    const queued = await fetch(`${app.url}/runs/${accepted.run_id}`);
    expect(queued.status).toBe(200);
    const { run } = (await queued.json()) as { run: Record<string, unknown> };
    expect(run).toEqual({
      run_id: accepted.run_id,
      id: accepted.run_id,
      agent_id: fx.assistant.id,
      agent_name: 'assistant',
      status: 'queued',
      task: 'Say hi',
      steps_taken: 0,
      final_response: null,
      error: null,
      input_tokens: 0,
      output_tokens: 0,
      model: null,
      queued_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      started_at: null,
      completed_at: null,
      duration_ms: null,
      source: 'webhook',
    });

    await fx.store.runs.claim(accepted.run_id, 'w1', 60_000);
    await fx.store.runs.markCompleted(accepted.run_id, {
      finalResponse: 'Hi!',
      stepsTaken: 2,
      inputTokens: 120,
      outputTokens: 8,
      model: 'gpt-test',
    });
    const done = (await (await fetch(`${app.url}/runs/${accepted.run_id}`)).json()) as {
      run: Record<string, unknown>;
    };
    expect(done.run).toMatchObject({
      status: 'completed',
      steps_taken: 2,
      final_response: 'Hi!',
      input_tokens: 120,
      output_tokens: 8,
      model: 'gpt-test',
      started_at: expect.any(String),
      completed_at: expect.any(String),
      duration_ms: expect.any(Number),
    });
  });

  it('answers 404 RUN_NOT_FOUND for an unknown id and 400 for one that is not a number', async () => {
    app = await startWebhookApp(fx);
    const missing = await fetch(`${app.url}/runs/4242`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: {
        code: 'RUN_NOT_FOUND',
        message:
          'No run has id 4242. Use the run_id POST /execute returned, or list runs with `junction runs list`.',
        details: { run_id: 4242 },
      },
    });
    for (const bad of ['abc', '12abc', '-1', '1.5', '99999999999999999999']) {
      const res = await fetch(`${app.url}/runs/${bad}`);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('INVALID_REQUEST');
      expect(body.error.message).toMatch(/^run_id must be a whole number/);
    }
    // A malformed %-escape is the client's mistake too: 400 JSON, never a 500.
    const malformed = await fetch(`${app.url}/runs/%E0%A4%A`);
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { code: string } }).error.code).toBe(
      'INVALID_REQUEST',
    );
  });

  it('answers 405 with Allow for other methods', async () => {
    app = await startWebhookApp(fx);
    const res = await fetch(`${app.url}/runs/1`, { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
  });

  it('is there even when /execute is disabled', async () => {
    app = await startWebhookApp(fx, { enabled: false });
    expect((await fetch(`${app.url}/runs/1`)).status).toBe(404);
    const run = await fx.store.runs.create({ agentName: 'assistant', task: 't', source: 'cli' });
    expect((await fetch(`${app.url}/runs/${run.id}`)).status).toBe(200);
  });

  it('needs the API key when one is configured', async () => {
    app = await startWebhookApp(fx, { apiKey: 'whk_status_key_123' });
    const run = await fx.store.runs.create({ agentName: 'assistant', task: 't', source: 'cli' });
    const without = await fetch(`${app.url}/runs/${run.id}`);
    expect(without.status).toBe(401);
    expect(((await without.json()) as { error: { code: string } }).error.code).toBe(
      'BEARER_TOKEN_REQUIRED',
    );
    const wrong = await fetch(`${app.url}/runs/${run.id}`, {
      headers: { authorization: 'Bearer nope' },
    });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe(
      'INVALID_API_KEY',
    );
    const right = await fetch(`${app.url}/runs/${run.id}`, {
      headers: { authorization: 'Bearer whk_status_key_123' },
    });
    expect(right.status).toBe(200);
  });
});
