import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { AgentCoreError } from '@junction/agent-core';
import type { AgentRef } from '@junction/store';
import {
  memoryLogger,
  openFixture,
  post,
  startWebhookApp,
  type Fixture,
  type Listening,
} from './helpers.js';

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

async function errorOf(
  res: Response,
): Promise<{ code: string; message: string; details?: Record<string, unknown> }> {
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await res.json()) as { error: { code: string; message: string } };
  return body.error;
}

/** Nothing may be queued when the answer is an error. */
async function expectNothingQueued(): Promise<void> {
  expect(await fx.store.runs.count()).toBe(0);
}

describe('POST /execute', () => {
  it('queues a run of the named agent and answers 202 with run_id, agent and status running', async () => {
    app = await startWebhookApp(fx);
    const res = await post(`${app.url}/execute`, {
      agent_name: 'assistant',
      task: 'Summarise the news',
      variables: { city: 'Paris' },
    });
    expect(res.status).toBe(202);
    const body = (await res.json()) as Record<string, unknown>;
    const [run] = await fx.store.runs.list();
    expect(body).toEqual({
      run_id: run!.id,
      agent_id: fx.assistant.id,
      agent_name: 'assistant',
      status: 'running',
      message: `Run ${run!.id} of agent "assistant" started. Follow it with GET /runs/${run!.id}.`,
    });
    expect(res.headers.get('location')).toBe(`/runs/${run!.id}`);
    expect(run).toMatchObject({
      agentId: fx.assistant.id,
      environmentId: fx.assistant.environmentId,
      task: 'Summarise the news',
      variables: { city: 'Paris' },
      source: 'webhook',
      status: 'queued',
    });
    expect(await fx.store.runs.count()).toBe(1);
  });

  it('accepts agent_id as a number or a string of digits, and agent_name with an environment', async () => {
    app = await startWebhookApp(fx);
    const a = await post(`${app.url}/execute`, { agent_id: fx.triage.id, task: 't' });
    const b = await post(`${app.url}/execute`, { agent_id: String(fx.triage.id), task: 't' });
    const c = await post(`${app.url}/execute`, {
      agent_name: 'triage',
      environment: 'prod',
      task: 't',
    });
    for (const res of [a, b, c]) {
      expect(res.status).toBe(202);
      expect(((await res.json()) as { agent_id: number }).agent_id).toBe(fx.triage.id);
    }
    expect(await fx.store.runs.count()).toBe(3);
  });

  it('finds a name in its only environment, and prefers the default environment when several have it', async () => {
    app = await startWebhookApp(fx);
    const only = await post(`${app.url}/execute`, { agent_name: 'triage', task: 't' });
    expect(((await only.json()) as { agent_id: number }).agent_id).toBe(fx.triage.id);
    const twin = await post(`${app.url}/execute`, { agent_name: 'twin', task: 't' });
    expect(((await twin.json()) as { agent_id: number }).agent_id).toBe(fx.twinDefault.id);
  });

  it('answers 400 AGENT_AMBIGUOUS when several non-default environments have the name', async () => {
    app = await startWebhookApp(fx);
    const res = await post(`${app.url}/execute`, { agent_name: 'pair', task: 't' });
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe('AGENT_AMBIGUOUS');
    expect(error.message).toMatch(
      /"prod".*"staging".*Name the environment with the agent, or send agent_id/,
    );
    await expectNothingQueued();
  });

  it('answers 400 INVALID_JSON for a body that is not JSON', async () => {
    app = await startWebhookApp(fx);
    const res = await post(`${app.url}/execute`, '{"agent_name": "assistant", "task": ');
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe('INVALID_JSON');
    expect(error.message).toMatch(
      /^The request body is not valid JSON \(.+\)\. Send a JSON object such as/,
    );
    await expectNothingQueued();
  });

  it.each([
    [
      { agent_name: 'assistant' },
      'task',
      'task is required: the instruction for the agent, as a string',
    ],
    [
      { agent_name: 'assistant', task: 42 },
      'task',
      'task must be a string: the instruction for the agent',
    ],
    [{ agent_name: 'assistant', task: '   ' }, 'task', 'task must not be empty'],
    [{ task: 'x' }, 'agent_name', 'agent_name is required (or agent_id): the agent to run'],
    [
      { agent_name: 7, task: 'x' },
      'agent_name',
      'agent_name must be a string: the name of the agent to run',
    ],
    [{ agent_name: '', task: 'x' }, 'agent_name', 'agent_name must not be empty'],
    [
      { agent_id: 'seven', task: 'x' },
      'agent_id',
      'agent_id must be a positive whole number or a string of digits',
    ],
    [
      { agent_id: 1.5, task: 'x' },
      'agent_id',
      'agent_id must be a positive whole number or a string of digits',
    ],
    [
      { agent_id: -3, task: 'x' },
      'agent_id',
      'agent_id must be a positive whole number or a string of digits',
    ],
    [
      { agent_name: 'assistant', task: 'x', variables: ['a'] },
      'variables',
      'variables must be an object of string values',
    ],
    [
      { agent_name: 'assistant', task: 'x', variables: { n: 1 } },
      'variables.n',
      'each value in variables must be a string',
    ],
    [
      { agent_name: 'assistant', task: 'x', environment: 3 },
      'environment',
      'environment must be a string',
    ],
    [['assistant', 'x'], '', 'The body must be a JSON object'],
    ['"just text"', '', 'The body must be a JSON object'],
  ])('answers 400 INVALID_REQUEST for %j, naming %s', async (body, field, message) => {
    app = await startWebhookApp(fx);
    const res = await post(`${app.url}/execute`, body);
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.message).toContain(message);
    if (field) expect(error.details?.field).toBe(field);
    await expectNothingQueued();
  });

  it('answers 400 when agent_id and agent_name name different agents', async () => {
    app = await startWebhookApp(fx);
    const res = await post(`${app.url}/execute`, {
      agent_id: fx.triage.id,
      agent_name: 'assistant',
      task: 'x',
    });
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error).toMatchObject({ code: 'RUN_REQUEST_INVALID', details: { field: 'agent_name' } });
    expect(error.message).toContain(`agent_id ${fx.triage.id} is agent "triage", not "assistant"`);
    await expectNothingQueued();
  });

  it.each([
    [
      'text/plain',
      'Content-Type "text/plain" is not accepted: send the body as JSON with "Content-Type: application/json".',
    ],
    [
      'application/x-www-form-urlencoded',
      'Content-Type "application/x-www-form-urlencoded" is not accepted',
    ],
  ])('answers 415 for Content-Type %s', async (type, message) => {
    app = await startWebhookApp(fx);
    const res = await post(`${app.url}/execute`, '{"agent_name":"assistant","task":"x"}', {
      'content-type': type,
    });
    expect(res.status).toBe(415);
    const error = await errorOf(res);
    expect(error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(error.message).toContain(message);
    await expectNothingQueued();
  });

  it('answers 415 when Content-Type is missing', async () => {
    app = await startWebhookApp(fx);
    const res = await fetch(`${app.url}/execute`, {
      method: 'POST',
      body: new Blob(['{"agent_name":"assistant","task":"x"}']),
    });
    expect(res.status).toBe(415);
    expect((await errorOf(res)).message).toBe(
      'Content-Type is missing: send the body as JSON with "Content-Type: application/json".',
    );
    await expectNothingQueued();
  });

  it('accepts application/json with a charset parameter', async () => {
    app = await startWebhookApp(fx);
    const res = await post(
      `${app.url}/execute`,
      { agent_name: 'assistant', task: 'x' },
      {
        'content-type': 'application/json; charset=utf-8',
      },
    );
    expect(res.status).toBe(202);
  });

  it('answers 413 for a body over the limit', async () => {
    app = await startWebhookApp(fx, { maxBodyBytes: 1024 });
    const res = await post(`${app.url}/execute`, {
      agent_name: 'assistant',
      task: 'x'.repeat(2000),
    });
    expect(res.status).toBe(413);
    const error = await errorOf(res);
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(error.message).toMatch(/the limit is 1024 bytes \(webhook\.max_body_bytes\)/);
    await expectNothingQueued();
    // A chunked body (no Content-Length) is cut off at the limit too.
    const chunk = new TextEncoder().encode(
      JSON.stringify({ agent_name: 'assistant', task: 'y'.repeat(3000) }),
    );
    const chunked = await fetch(`${app.url}/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(chunk);
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect((await errorOf(chunked)).message).toMatch(
      /^The request body is larger than the limit of 1024 bytes \(webhook\.max_body_bytes\)/,
    );
    await expectNothingQueued();
    // Just under the limit is fine.
    const ok = await post(`${app.url}/execute`, { agent_name: 'assistant', task: 'x'.repeat(900) });
    expect(ok.status).toBe(202);
  });

  it('answers 404 AGENT_NOT_FOUND for an unknown agent name or id, and ENVIRONMENT_NOT_FOUND for an unknown environment', async () => {
    app = await startWebhookApp(fx);
    const byName = await post(`${app.url}/execute`, { agent_name: 'nobody', task: 'x' });
    expect(byName.status).toBe(404);
    expect(await errorOf(byName)).toMatchObject({
      code: 'AGENT_NOT_FOUND',
      message: expect.stringContaining('No agent is named "nobody".'),
    });
    const byId = await post(`${app.url}/execute`, { agent_id: 99999, task: 'x' });
    expect(byId.status).toBe(404);
    expect((await errorOf(byId)).message).toContain('No agent has id 99999.');
    const inEnv = await post(`${app.url}/execute`, {
      agent_name: 'assistant',
      environment: 'prod',
      task: 'x',
    });
    expect(inEnv.status).toBe(404);
    expect((await errorOf(inEnv)).message).toContain(
      'Environment "prod" has no agent named "assistant".',
    );
    const noEnv = await post(`${app.url}/execute`, {
      agent_name: 'assistant',
      environment: 'qa',
      task: 'x',
    });
    expect(noEnv.status).toBe(404);
    expect(await errorOf(noEnv)).toMatchObject({ code: 'ENVIRONMENT_NOT_FOUND' });
    await expectNothingQueued();
  });

  it('answers 405 with Allow: POST for other methods', async () => {
    app = await startWebhookApp(fx);
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const res = await fetch(`${app.url}/execute`, { method });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(await errorOf(res)).toMatchObject({
        code: 'METHOD_NOT_ALLOWED',
        message: `${method} is not allowed on /execute; use POST.`,
      });
    }
    await expectNothingQueued();
  });

  it('does not exist when webhook.enabled is false: 404 exactly like an unknown route', async () => {
    app = await startWebhookApp(fx, { enabled: false });
    const res = await post(`${app.url}/execute`, { agent_name: 'assistant', task: 'x' });
    expect(res.status).toBe(404);
    const error = await errorOf(res);
    const unknown = await errorOf(await post(`${app.url}/nowhere`, {}));
    expect(error.code).toBe('ROUTE_NOT_FOUND');
    expect(unknown.code).toBe('ROUTE_NOT_FOUND');
    expect(error.message).toBe(unknown.message.replace('/nowhere', '/execute'));
    expect((await fetch(`${app.url}/execute`)).status).toBe(404);
    await expectNothingQueued();
  });

  describe('with an API key', () => {
    const KEY = 'whk_0123456789abcdef';

    it('answers 401 "bearer token required" without a bearer token', async () => {
      app = await startWebhookApp(fx, { apiKey: KEY });
      const attempts: Record<string, string>[] = [
        {},
        { authorization: `Basic ${btoa('u:p')}` },
        { authorization: 'Bearer ' },
      ];
      for (const headers of attempts) {
        const res = await post(
          `${app.url}/execute`,
          { agent_name: 'assistant', task: 'x' },
          headers,
        );
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe('Bearer realm="junction-webhook"');
        const error = await errorOf(res);
        expect(error.code).toBe('BEARER_TOKEN_REQUIRED');
        expect(error.message).toMatch(/^bearer token required: send the webhook API key/);
      }
      await expectNothingQueued();
    });

    it('answers 401 "invalid API key" for a wrong key, of any length, without echoing it', async () => {
      app = await startWebhookApp(fx, { apiKey: KEY });
      for (const wrong of ['nope', `${KEY}x`, KEY.slice(0, -1), KEY.toUpperCase()]) {
        const res = await post(
          `${app.url}/execute`,
          { agent_name: 'assistant', task: 'x' },
          {
            authorization: `Bearer ${wrong}`,
          },
        );
        expect(res.status).toBe(401);
        const text = await res.text();
        expect(text).not.toContain(wrong);
        expect(text).not.toContain(KEY);
        expect(JSON.parse(text)).toMatchObject({ error: { code: 'INVALID_API_KEY' } });
        expect(JSON.parse(text).error.message).toMatch(/^invalid API key: /);
      }
      await expectNothingQueued();
    });

    it('checks the key before reading the body', async () => {
      app = await startWebhookApp(fx, { apiKey: KEY, maxBodyBytes: 100 });
      const res = await post(`${app.url}/execute`, 'not json and far too long'.repeat(20));
      expect(res.status).toBe(401);
      await expectNothingQueued();
    });

    it('refuses in order — key, then type, then size — and serves /health without a key', async () => {
      app = await startWebhookApp(fx, {
        apiKey: KEY,
        maxBodyBytes: 100,
        health: (_req, res) => {
          res.json({ status: 'healthy' });
        },
      });
      const auth = { authorization: `Bearer ${KEY}` };
      const plain = { 'content-type': 'text/plain' };
      const big = JSON.stringify({ agent_name: 'assistant', task: 'x'.repeat(200) });
      // No key and the wrong type: the key is what is refused.
      expect((await post(`${app.url}/execute`, big, plain)).status).toBe(401);
      // The key and the wrong type: 415, before the size is looked at.
      expect((await post(`${app.url}/execute`, big, { ...auth, ...plain })).status).toBe(415);
      // The key and JSON, too large: 413.
      expect((await post(`${app.url}/execute`, big, auth)).status).toBe(413);
      await expectNothingQueued();
      const health = await fetch(`${app.url}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'healthy' });
      // Everything else still needs the key.
      expect((await fetch(`${app.url}/runs/1`)).status).toBe(401);
    });

    it('accepts the right key (scheme in any case)', async () => {
      app = await startWebhookApp(fx, { apiKey: KEY });
      const res = await post(
        `${app.url}/execute`,
        { agent_name: 'assistant', task: 'x' },
        {
          authorization: `bearer ${KEY}`,
        },
      );
      expect(res.status).toBe(202);
      expect(await fx.store.runs.count()).toBe(1);
    });
  });

  it("refuses with the check's code, never a 500, when the agent cannot run as configured", async () => {
    const checked: AgentRef[] = [];
    app = await startWebhookApp(fx, {
      checkModel: (agent) => {
        checked.push(agent as AgentRef);
        throw new AgentCoreError(
          'MODEL_API_KEY_MISSING',
          'Model openai/gpt-test needs OPENAI_API_KEY; set it in the environment of the server.',
        );
      },
    });
    const res = await post(`${app.url}/execute`, { agent_name: 'assistant', task: 'x' });
    expect(res.status).toBe(503);
    expect(await errorOf(res)).toEqual({
      code: 'MODEL_API_KEY_MISSING',
      message:
        'Model openai/gpt-test needs OPENAI_API_KEY; set it in the environment of the server.',
    });
    expect(checked.map((a) => a.name)).toEqual(['assistant']);
    await expectNothingQueued();
  });

  it('answers a real fault with a JSON 500 that leaks nothing, and logs it redacted', async () => {
    const { logger, lines } = memoryLogger();
    // The queue failing for no reason the caller can fix.
    app = await startWebhookApp(fx, {
      logger,
      runs: {
        submit: async () => {
          throw new Error('disk on fire at postgres://admin:s3cret@db/x');
        },
      },
    });
    const res = await post(`${app.url}/execute`, { agent_name: 'assistant', task: 'x' });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain('disk on fire');
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'INTERNAL_ERROR' } });
    const logged = lines().find((l) => l.msg === 'webhook request failed');
    expect(logged).toMatchObject({ level: 'error', status: 500, path: '/execute' });
    expect(String(logged?.error)).toContain('disk on fire');
    expect(String(logged?.error)).not.toContain('s3cret');
    await expectNothingQueued();
  });
});
