import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  call,
  expectError,
  postJson,
  startServer,
  validatorFor,
  type OpenApiValidator,
  type TestServer,
} from './harness.js';

let s: TestServer;
let doc: OpenApiValidator;

beforeAll(async () => {
  s = await startServer();
  doc = await validatorFor(s);
  // What sync stores for triage's prompt-file schedule: agentView answers the schedule in force.
  await s.store.schedules.set(
    { kind: 'agent', id: s.seed.triage.id, name: 'triage', environmentId: s.seed.envDefault },
    { cron: '0 * * * *', enabled: true, origin: 'file', nextRunAt: null },
  );
});
afterAll(async () => {
  await s.close();
});

const AGENTS = '/api/v1/agents';
const AGENT = '/api/v1/agents/{agent_id}';
const QUEUE = '/api/v1/agents/{agent_id}/queue';

describe('GET /api/v1/agents', () => {
  it('lists every agent as agentView shapes it, in a documented page', async () => {
    const answer = await call(`${s.url}${AGENTS}`);
    expect(answer.status).toBe(200);
    doc.expectDocumented('get', AGENTS, answer);
    const body = answer.body as {
      items: Array<Record<string, unknown>>;
      total: number;
      limit: number;
      offset: number;
    };
    expect(body).toMatchObject({ total: 3, limit: 50, offset: 0 });
    expect(body.items.map((a) => `${a.environment}/${a.name}`)).toEqual([
      'default/helper',
      'default/triage',
      'production/writer',
    ]);
    const triage = body.items[1];
    expect(triage).toMatchObject({
      id: s.seed.triage.id,
      environment_id: s.seed.envDefault,
      model: 'ollama/llama3.2',
      max_steps: 10,
      sub_agents: ['helper'],
      schedule: { cron: '0 * * * *', enabled: true },
      coding_enabled: false,
      tools: [
        { name: 'read_file', server: 'filesystem', description: 'Read a file' },
        { name: 'write_file', server: 'filesystem', description: 'Write a file' },
      ],
    });
  });

  it('filters by environment name or id and pages with limit/offset', async () => {
    const byName = await call(`${s.url}${AGENTS}?environment=production`);
    doc.expectDocumented('get', AGENTS, byName);
    expect(
      (byName.body as { items: Array<{ name: string }>; total: number }).items.map((a) => a.name),
    ).toEqual(['writer']);
    const byId = await call(
      `${s.url}${AGENTS}?environment_id=${s.seed.envDefault}&limit=1&offset=1`,
    );
    doc.expectDocumented('get', AGENTS, byId);
    expect(byId.body).toMatchObject({ total: 2, limit: 1, offset: 1, items: [{ name: 'triage' }] });
    const both = await call(
      `${s.url}${AGENTS}?environment=default&environment_id=${s.seed.envDefault}`,
    );
    expect((both.body as { total: number }).total).toBe(2);
  });

  it.each([
    ['limit=0', 'limit', 'must be at least 1'],
    ['limit=1001', 'limit', 'must be at most 1000'],
    ['limit=abc', 'limit', 'must be a whole number'],
    ['limit=1.5', 'limit', 'must be a whole number'],
    ['offset=-1', 'offset', 'must be at least 0'],
    ['environment_id=x', 'environment_id', 'must be a whole number'],
    ['environment=', 'environment', 'must name an environment'],
    ['limit=1&limit=2', 'limit', 'must be given once'],
    ['colour=blue', 'colour', 'Unknown query parameter "colour"'],
  ])('refuses ?%s with 400 naming %s', async (query, field, words) => {
    const answer = await call(`${s.url}${AGENTS}?${query}`);
    const error = expectError(answer, 400, 'INVALID_PARAMETER');
    doc.expectDocumented('get', AGENTS, answer);
    expect(error.details).toMatchObject({ field, location: 'query' });
    expect(error.message).toContain(words);
  });

  it('answers 404 ENVIRONMENT_NOT_FOUND for an unknown environment, 400 for two different ones', async () => {
    const byName = await call(`${s.url}${AGENTS}?environment=staging`);
    expect(expectError(byName, 404, 'ENVIRONMENT_NOT_FOUND').message).toBe(
      'No environment is called "staging". GET /api/v1/environments lists them.',
    );
    doc.expectDocumented('get', AGENTS, byName);
    const byId = await call(`${s.url}${AGENTS}?environment_id=999`);
    expect(expectError(byId, 404, 'ENVIRONMENT_NOT_FOUND').details).toMatchObject({
      field: 'environment_id',
    });
    const clash = await call(
      `${s.url}${AGENTS}?environment=default&environment_id=${s.seed.envProd}`,
    );
    expect(expectError(clash, 400, 'INVALID_PARAMETER').details).toMatchObject({
      field: 'environment_id',
    });
  });
});

describe('GET /api/v1/agents/:agent_id', () => {
  it('answers the agent', async () => {
    const answer = await call(`${s.url}${AGENTS}/${s.seed.writer.id}`);
    expect(answer.status).toBe(200);
    doc.expectDocumented('get', AGENT, answer);
    expect(answer.body).toMatchObject({
      id: s.seed.writer.id,
      name: 'writer',
      environment: 'production',
      model: 'openai/gpt-4o-mini',
      tools: [],
      sub_agents: [],
      schedule: null,
      prompt_path: null,
    });
  });

  it('answers 404 AGENT_NOT_FOUND for an unknown id', async () => {
    const answer = await call(`${s.url}${AGENTS}/9999`);
    const error = expectError(answer, 404, 'AGENT_NOT_FOUND');
    doc.expectDocumented('get', AGENT, answer);
    expect(error.message).toBe(
      'No agent has id 9999. List agents with `junction agent list`, GET /api/v1/agents or the MCP tool list_agents for valid ids.',
    );
  });

  it.each(['abc', '0', '-1', '1.5', '99999999999999999'])(
    'answers 400 naming agent_id for %s',
    async (id) => {
      const answer = await call(`${s.url}${AGENTS}/${id}`);
      const error = expectError(answer, 400, 'INVALID_PARAMETER');
      doc.expectDocumented('get', AGENT, answer);
      expect(error.details).toMatchObject({ field: 'agent_id', location: 'path', value: id });
    },
  );

  it('refuses query parameters it does not take', async () => {
    const answer = await call(`${s.url}${AGENTS}/${s.seed.triage.id}?verbose=true`);
    expect(expectError(answer, 400, 'INVALID_PARAMETER').message).toBe(
      'Unknown query parameter "verbose": this route takes none.',
    );
  });
});

describe('POST /api/v1/agents/:agent_id/queue', () => {
  it('queues a run and answers 202 with it, Location pointing at the run', async () => {
    const before = await s.runCount();
    const answer = await postJson(`${s.url}${AGENTS}/${s.seed.triage.id}/queue`, {
      task: '  Sort issue #42  ',
      variables: { REPO: 'junction', API_TOKEN: 'tok_0123456789' },
    });
    expect(answer.status).toBe(202);
    doc.expectDocumented('post', QUEUE, answer);
    const body = answer.body as Record<string, unknown>;
    expect(body).toMatchObject({
      agent_id: s.seed.triage.id,
      agent_name: 'triage',
      environment_id: s.seed.envDefault,
      status: 'queued',
      source: 'api',
      // Stored and answered exactly as sent (issue 12: one task rule on every surface).
      task: '  Sort issue #42  ',
      steps_taken: 0,
      variables: { REPO: 'junction', API_TOKEN: '[REDACTED]' },
    });
    expect(answer.headers.get('location')).toBe(`/api/v1/runs/${String(body.run_id)}`);
    expect(body.message).toBe(
      `Run ${String(body.run_id)} of agent "triage" queued; GET /api/v1/runs/${String(body.run_id)} for its status.`,
    );
    expect(await s.runCount()).toBe(before + 1);
    const stored = await s.store.runs.get(body.run_id as number);
    expect(stored).toMatchObject({ status: 'queued', source: 'api', task: '  Sort issue #42  ' });
    // The store keeps the real value; only the answer is redacted.
    expect(stored?.variables).toEqual({ REPO: 'junction', API_TOKEN: 'tok_0123456789' });
  });

  it('accepts a body without variables and an application/*+json type', async () => {
    const answer = await postJson(
      `${s.url}${AGENTS}/${s.seed.helper.id}/queue`,
      { task: 'Explain' },
      { 'content-type': 'application/vnd.junction+json; charset=utf-8' },
    );
    expect(answer.status).toBe(202);
    doc.expectDocumented('post', QUEUE, answer);
    expect(answer.body).toMatchObject({ agent_name: 'helper', variables: {} });
  });

  const bad: Array<[string, unknown, string, string]> = [
    ['a missing task', {}, 'task', 'task is required: the instruction for the agent, as a string.'],
    [
      'a task of the wrong type',
      { task: 42 },
      'task',
      'task must be a string: the instruction for the agent.',
    ],
    ['an empty task', { task: '   ' }, 'task', 'task must not be empty.'],
    [
      'variables of the wrong type',
      { task: 'x', variables: ['a'] },
      'variables',
      'variables must be an object of string values, such as {"city": "Paris"}.',
    ],
    [
      'a non-string variable',
      { task: 'x', variables: { N: 1 } },
      'variables.N',
      'each value in variables must be a string.',
    ],
    [
      'an unknown field',
      { task: 'x', agent_name: 'triage' },
      'agent_name',
      'Unknown field "agent_name" in the body; it takes task, variables.',
    ],
    [
      'a JSON array',
      [{ task: 'x' }],
      '(body)',
      'The body must be a JSON object such as {"task": "…", "variables": {"NAME": "value"}}.',
    ],
  ];
  it.each(bad)(
    'answers 400 INVALID_BODY for %s, naming the field, queueing nothing',
    async (_what, payload, field, message) => {
      const before = await s.runCount();
      const answer = await postJson(`${s.url}${AGENTS}/${s.seed.triage.id}/queue`, payload);
      const error = expectError(answer, 400, 'INVALID_BODY');
      doc.expectDocumented('post', QUEUE, answer);
      expect(error.details).toEqual({ field });
      expect(error.message).toBe(message);
      expect(await s.runCount()).toBe(before);
    },
  );

  it('answers 400 INVALID_JSON for a body that is not JSON', async () => {
    const before = await s.runCount();
    const answer = await postJson(`${s.url}${AGENTS}/${s.seed.triage.id}/queue`, '{"task": ');
    expect(expectError(answer, 400, 'INVALID_JSON').message).toBe(
      'The request body is not valid JSON. Send a JSON object such as {"task": "..."}.',
    );
    doc.expectDocumented('post', QUEUE, answer);
    expect(await s.runCount()).toBe(before);
  });

  it.each([
    [
      'text/plain',
      'Content-Type "text/plain" is not accepted; send the body as JSON with "Content-Type: application/json".',
    ],
    [
      'application/x-www-form-urlencoded',
      'Content-Type "application/x-www-form-urlencoded" is not accepted; send the body as JSON with "Content-Type: application/json".',
    ],
  ])('answers 415 for Content-Type %s', async (type, message) => {
    const before = await s.runCount();
    const answer = await call(`${s.url}${AGENTS}/${s.seed.triage.id}/queue`, {
      method: 'POST',
      headers: { 'content-type': type },
      body: 'task=x',
    });
    expect(expectError(answer, 415, 'UNSUPPORTED_MEDIA_TYPE').message).toBe(message);
    doc.expectDocumented('post', QUEUE, answer);
    expect(await s.runCount()).toBe(before);
  });

  it('answers 415 for a body without a Content-Type and for a non-UTF charset', async () => {
    const none = await call(`${s.url}${AGENTS}/${s.seed.triage.id}/queue`, {
      method: 'POST',
      body: new Blob(['{"task":"x"}']),
    });
    expect(expectError(none, 415, 'UNSUPPORTED_MEDIA_TYPE').details).toEqual({
      content_type: null,
    });
    const latin = await postJson(
      `${s.url}${AGENTS}/${s.seed.triage.id}/queue`,
      { task: 'x' },
      {
        'content-type': 'application/json; charset=iso-8859-1',
      },
    );
    expectError(latin, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers 404 AGENT_NOT_FOUND for an unknown agent, queueing nothing', async () => {
    const before = await s.runCount();
    const answer = await postJson(`${s.url}${AGENTS}/4242/queue`, { task: 'x' });
    expectError(answer, 404, 'AGENT_NOT_FOUND');
    doc.expectDocumented('post', QUEUE, answer);
    expect(await s.runCount()).toBe(before);
  });

  it('answers 400 naming agent_id for a malformed id', async () => {
    const answer = await postJson(`${s.url}${AGENTS}/triage/queue`, { task: 'x' });
    expect(expectError(answer, 400, 'INVALID_PARAMETER').details).toMatchObject({
      field: 'agent_id',
    });
    doc.expectDocumented('post', QUEUE, answer);
  });

  it('answers 503 MODEL_API_KEY_MISSING when the agent cannot run, queueing nothing', async () => {
    const before = await s.runCount();
    const answer = await postJson(`${s.url}${AGENTS}/${s.seed.writer.id}/queue`, {
      task: 'Write notes',
    });
    const error = expectError(answer, 503, 'MODEL_API_KEY_MISSING');
    doc.expectDocumented('post', QUEUE, answer);
    expect(error.message).toMatch(/OPENAI_API_KEY/);
    expect(await s.runCount()).toBe(before);
  });
});
