// The schedule routes against a real store, a real workflow door and a real Scheduler: set
// (new and replaced), list, get, remove, fire now (a run with source cron_scheduler), and every
// refusal with its exact status and code — with nothing written when the answer is one.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Workflow } from '@junction/store';
import {
  call,
  expectError,
  postJson,
  SECRET_VARIABLE,
  startServer,
  validatorFor,
  type Answer,
  type OpenApiValidator,
  type TestServer,
} from './harness.js';

const KEY = 'jk_schedules_0123456789abcdef';
const AUTH = { authorization: `Bearer ${KEY}` };

const SCHEDULES = '/api/v1/schedules';
const SCHEDULE = '/api/v1/schedules/{schedule_id}';
const RUN = '/api/v1/schedules/{schedule_id}/run';

let s: TestServer;
let doc: OpenApiValidator;
let wf: Workflow;

beforeAll(async () => {
  s = await startServer({ apiKeys: [KEY], workflows: true, scheduler: 'started' });
  doc = await validatorFor(s, AUTH);
  wf = await s.store.workflows.upsert(s.seed.envDefault, {
    workflowId: 'nightly',
    name: 'Nightly',
    definition: {
      id: 'nightly',
      start: 'a',
      states: [{ id: 'a', type: 'inject', data: { x: 1 }, end: true }],
      inputSchema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
    },
  });
  // "helper" is an agent of the default environment too: a name without a kind is ambiguous.
  await s.store.workflows.upsert(s.seed.envDefault, {
    workflowId: 'helper',
    name: 'Helper workflow',
    definition: {
      id: 'helper',
      start: 'a',
      states: [{ id: 'a', type: 'inject', data: {}, end: true }],
    },
  });
});
afterAll(async () => {
  await s.close();
});

const get = (path: string): Promise<Answer> => call(`${s.url}${path}`, { headers: AUTH });
const post = (path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> =>
  postJson(`${s.url}${path}`, body, { ...AUTH, ...headers });
const del = (path: string): Promise<Answer> =>
  call(`${s.url}${path}`, { method: 'DELETE', headers: AUTH });
const runNow = (id: number | string, server = s, headers = AUTH): Promise<Answer> =>
  call(`${server.url}${SCHEDULES}/${id}/run`, { method: 'POST', headers });

type View = Record<string, unknown> & { id: number };

/** A schedule of production/writer: an OpenAI model while no OpenAI key is set. */
const WRITER = { kind: 'agent', name: 'writer', environment: 'production', cron: '0 1 * * *' };

/** Every schedule row as stored, to show a refusal wrote nothing. */
async function stored(): Promise<string> {
  return JSON.stringify(await s.store.schedules.list());
}

/** Sets a schedule through the API and answers its view (201 or 200). */
async function set(body: Record<string, unknown>): Promise<View> {
  const answer = await post(SCHEDULES, body);
  if (answer.status !== 201 && answer.status !== 200) {
    throw new Error(`set failed: ${answer.status} ${answer.text}`);
  }
  return answer.body as View;
}

describe('POST /api/v1/schedules', () => {
  it('sets the schedule of an agent by name: 201, Location, the view as stored', async () => {
    const changed = jest.spyOn(s.scheduler as NonNullable<typeof s.scheduler>, 'changed');
    const answer = await post(SCHEDULES, {
      name: 'triage',
      cron: '0 9 * * 1-5',
      timezone: 'Europe/Paris',
      task: 'Sort the new issues',
      variables: { REPO: 'junction', GITHUB_TOKEN: SECRET_VARIABLE },
    });
    expect(answer.status).toBe(201);
    doc.expectDocumented('post', SCHEDULES, answer);
    const view = answer.body as View;
    expect(answer.headers.get('location')).toBe(`/api/v1/schedules/${view.id}`);
    expect(view).toEqual({
      id: view.id,
      kind: 'agent',
      target: 'triage',
      agent_id: s.seed.triage.id,
      workflow_id: null,
      environment_id: s.seed.envDefault,
      cron: '0 9 * * 1-5',
      timezone: 'Europe/Paris',
      enabled: true,
      task: 'Sort the new issues',
      variables: { REPO: 'junction', GITHUB_TOKEN: '[REDACTED]' },
      input: null,
      origin: 'operator',
      catch_up: 'once',
      overlap: 'skip',
      // The harness clock is Sunday 2025-06-01 12:11 UTC: Monday 09:00 in Paris is 07:00 UTC.
      next_run_at: '2025-06-02T07:00:00.000Z',
      last_run_at: null,
      last_outcome: null,
      last_error: null,
      last_run_id: null,
    });
    // The store keeps the real value; only the answer hides it.
    const row = await s.store.schedules.get(view.id);
    expect(row?.variables).toEqual({ REPO: 'junction', GITHUB_TOKEN: SECRET_VARIABLE });
    expect(changed).toHaveBeenCalledTimes(1);
    changed.mockRestore();
  });

  it('replaces the schedule the agent has: 200, the same id, by agent_id', async () => {
    const before = await s.store.schedules.getFor('agent', s.seed.triage.id);
    const answer = await post(SCHEDULES, {
      agent_id: s.seed.triage.id,
      cron: '*/30 * * * *',
      enabled: false,
      catch_up: 'skip',
      overlap: 'queue',
    });
    expect(answer.status).toBe(200);
    doc.expectDocumented('post', SCHEDULES, answer);
    expect(answer.body).toMatchObject({
      id: before?.id,
      cron: '*/30 * * * *',
      timezone: null,
      enabled: false,
      task: null,
      variables: {},
      catch_up: 'skip',
      overlap: 'queue',
      next_run_at: null,
    });
    expect(answer.headers.get('location')).toBe(`/api/v1/schedules/${before?.id}`);
  });

  it('sets the schedule of a workflow with its input, and of a name both are with kind', async () => {
    const answer = await post(SCHEDULES, {
      kind: 'workflow',
      name: 'nightly',
      environment: 'default',
      cron: '0 2 * * *',
      timezone: 'UTC',
      input: { n: 3 },
    });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      kind: 'workflow',
      target: 'nightly',
      agent_id: null,
      workflow_id: wf.id,
      input: { n: 3 },
      variables: {},
      next_run_at: '2025-06-02T02:00:00.000Z',
    });
    const agent = await post(SCHEDULES, {
      kind: 'agent',
      name: 'helper',
      cron: '0 12 * * *',
      timezone: 'UTC',
    });
    expect(agent.status).toBe(201);
    expect(agent.body).toMatchObject({ kind: 'agent', agent_id: s.seed.helper.id });
  });

  it('refuses a bad cron or time zone with 400 SCHEDULE_INVALID naming the field; nothing is written', async () => {
    const before = await stored();
    const cron = await post(SCHEDULES, {
      name: 'writer',
      environment: 'production',
      cron: '61 * * * *',
    });
    const error = expectError(cron, 400, 'SCHEDULE_INVALID');
    expect(error.message).toMatch(/^cron: "61 \* \* \* \*" is not a cron expression: /);
    expect(error.details).toMatchObject({ field: 'cron' });
    doc.expectDocumented('post', SCHEDULES, cron);
    const fields = await post(SCHEDULES, { name: 'triage', cron: '* * *' });
    expect(expectError(fields, 400, 'SCHEDULE_INVALID')).toEqual({
      code: 'SCHEDULE_INVALID',
      message:
        'cron: "* * *" has 3 fields; write 5 (minute hour day month weekday) or 6 (seconds first)',
      details: {
        field: 'cron',
        problems: [
          {
            field: 'cron',
            message:
              '"* * *" has 3 fields; write 5 (minute hour day month weekday) or 6 (seconds first)',
          },
        ],
      },
    });
    const blank = await post(SCHEDULES, { name: 'triage', cron: '  ' });
    expect(expectError(blank, 400, 'SCHEDULE_INVALID').details).toMatchObject({ field: 'cron' });
    const zone = await post(SCHEDULES, {
      name: 'triage',
      cron: '0 9 * * *',
      timezone: 'Mars/Olympus',
    });
    expect(expectError(zone, 400, 'SCHEDULE_INVALID')).toMatchObject({
      message:
        'timezone: "Mars/Olympus" is not a time zone; use an IANA name such as "Europe/Paris" or "UTC"',
      details: { field: 'timezone' },
    });
    const input = await post(SCHEDULES, { name: 'triage', cron: '0 9 * * *', input: { n: 1 } });
    expect(expectError(input, 400, 'SCHEDULE_INVALID').details).toMatchObject({ field: 'input' });
    const task = await post(SCHEDULES, {
      kind: 'workflow',
      name: 'nightly',
      cron: '0 9 * * *',
      task: 'no',
    });
    expect(expectError(task, 400, 'SCHEDULE_INVALID').details).toMatchObject({ field: 'task' });
    const none = await post(SCHEDULES, { cron: '0 9 * * *' });
    expect(expectError(none, 400, 'SCHEDULE_INVALID')).toMatchObject({
      message: 'target: name the agent or workflow to schedule',
      details: { field: 'target' },
    });
    expect(await stored()).toBe(before);
  });

  it.each([
    [{ name: 'triage' }, 'cron', 'cron is required: a cron expression such as "0 9 * * 1-5".'],
    [
      { name: 'triage', cron: 9 },
      'cron',
      'cron must be a string: a cron expression such as "0 9 * * 1-5".',
    ],
    [
      { name: 'triage', cron: '0 9 * * *', enabled: 'yes' },
      'enabled',
      'enabled must be true or false.',
    ],
    [
      { name: 7, cron: '0 9 * * *' },
      'name',
      "name must be a string: the agent's name or the workflow's id.",
    ],
    [{ agent_id: '3', cron: '0 9 * * *' }, 'agent_id', undefined],
    [
      { kind: 'task', name: 'triage', cron: '0 9 * * *' },
      'kind',
      'kind must be one of agent, workflow.',
    ],
    [
      { name: 'triage', cron: '0 9 * * *', variables: { A: 1 } },
      'variables.A',
      'each value in variables must be a string.',
    ],
    [
      { name: 'triage', cron: '0 9 * * *', catch_up: 'never' },
      'catch_up',
      'catch_up must be one of once, skip.',
    ],
    [
      { name: 'triage', cron: '0 9 * * *', overlap: 'wait' },
      'overlap',
      'overlap must be one of skip, queue.',
    ],
    [
      { name: 'nightly', cron: '0 9 * * *', input: [1] },
      'input',
      'input must be a JSON object, such as {"ticket": "T-1"}.',
    ],
    [{ name: 'triage', cron: '0 9 * * *', timezone: 5 }, 'timezone', undefined],
    [{ name: 'triage', cron: '0 9 * * *', schedule: 'x' }, 'schedule', undefined],
    [
      { agent_id: 1, name: 'triage', cron: '0 9 * * *' },
      'agent_id',
      'agent_id names one agent: leave out name, or send name (and environment) without agent_id.',
    ],
    [
      { agent_id: 1, kind: 'workflow', cron: '0 9 * * *' },
      'agent_id',
      'agent_id names an agent: a workflow schedule takes name (the workflow id) and kind "workflow".',
    ],
  ])(
    'refuses %j with 400 INVALID_BODY naming %s; nothing is written',
    async (body, field, message) => {
      const before = await stored();
      const answer = await post(SCHEDULES, body);
      const error = expectError(answer, 400, 'INVALID_BODY');
      expect(error.details).toEqual({ field });
      if (message !== undefined) expect(error.message).toBe(message);
      doc.expectDocumented('post', SCHEDULES, answer);
      expect(await stored()).toBe(before);
    },
  );

  it('refuses what is not a JSON object: 400 INVALID_JSON, INVALID_BODY, 415', async () => {
    const before = await stored();
    expectError(await post(SCHEDULES, '{"name":'), 400, 'INVALID_JSON');
    expect(expectError(await post(SCHEDULES, [1]), 400, 'INVALID_BODY').details).toEqual({
      field: '(body)',
    });
    const text = await call(`${s.url}${SCHEDULES}`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'text/plain' },
      body: 'name=triage',
    });
    expectError(text, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(await stored()).toBe(before);
  });

  it('answers 404 for an unknown agent, id or environment and 409 for an ambiguous name; nothing is written', async () => {
    const before = await stored();
    const name = await post(SCHEDULES, { name: 'nobody', cron: '0 9 * * *' });
    expect(expectError(name, 404, 'SCHEDULE_TARGET_NOT_FOUND')).toEqual({
      code: 'SCHEDULE_TARGET_NOT_FOUND',
      message:
        'No agent or workflow is named "nobody" in environment "default". List agents with `junction agent list` and workflows with `junction workflow list`.',
      details: { name: 'nobody', environment: 'default' },
    });
    doc.expectDocumented('post', SCHEDULES, name);
    const elsewhere = await post(SCHEDULES, { kind: 'agent', name: 'writer', cron: '0 9 * * *' });
    expect(expectError(elsewhere, 404, 'SCHEDULE_TARGET_NOT_FOUND').message).toMatch(
      /^No agent is named "writer" in environment "default"/,
    );
    const id = await post(SCHEDULES, { agent_id: 9999, cron: '0 9 * * *' });
    expect(expectError(id, 404, 'SCHEDULE_TARGET_NOT_FOUND').details).toEqual({ agent_id: 9999 });
    const env = await post(SCHEDULES, {
      name: 'triage',
      environment: 'nowhere',
      cron: '0 9 * * *',
    });
    expect(expectError(env, 404, 'SCHEDULE_TARGET_NOT_FOUND').details).toEqual({
      environment: 'nowhere',
    });
    const both = await post(SCHEDULES, { name: 'helper', cron: '0 9 * * *' });
    expect(expectError(both, 409, 'SCHEDULE_TARGET_AMBIGUOUS').message).toBe(
      '"helper" is both an agent and a workflow in environment "default"; say which with kind "agent" or "workflow".',
    );
    doc.expectDocumented('post', SCHEDULES, both);
    expect(await stored()).toBe(before);
  });
});

describe('GET /api/v1/schedules', () => {
  it('lists every schedule, soonest first and disabled last, in a documented page', async () => {
    const answer = await get(SCHEDULES);
    expect(answer.status).toBe(200);
    doc.expectDocumented('get', SCHEDULES, answer);
    const body = answer.body as { items: View[]; total: number };
    expect(body).toMatchObject({ total: 3, limit: 50, offset: 0 });
    expect(body.items.map((v) => `${String(v.kind)}:${String(v.target)}`)).toEqual([
      'workflow:nightly',
      'agent:helper',
      'agent:triage',
    ]);
  });

  it('filters by kind, environment and enabled, and pages', async () => {
    const kind = await get(`${SCHEDULES}?kind=workflow`);
    expect(kind.body).toMatchObject({ total: 1, items: [{ target: 'nightly' }] });
    const disabled = await get(`${SCHEDULES}?enabled=false`);
    expect(disabled.body).toMatchObject({ total: 1, items: [{ target: 'triage' }] });
    const enabled = await get(`${SCHEDULES}?enabled=true&environment=default`);
    expect((enabled.body as { total: number }).total).toBe(2);
    const prod = await get(`${SCHEDULES}?environment_id=${s.seed.envProd}`);
    expect(prod.body).toMatchObject({ total: 0, items: [] });
    const page = await get(`${SCHEDULES}?limit=1&offset=1`);
    doc.expectDocumented('get', SCHEDULES, page);
    expect(page.body).toMatchObject({
      total: 3,
      limit: 1,
      offset: 1,
      items: [{ target: 'helper' }],
    });
  });

  it('refuses a bad filter with 400 naming it and an unknown environment with 404', async () => {
    const kind = await get(`${SCHEDULES}?kind=job`);
    expect(expectError(kind, 400, 'INVALID_PARAMETER')).toEqual({
      code: 'INVALID_PARAMETER',
      message: 'Query parameter "kind" must be one of agent, workflow; got "job".',
      details: { field: 'kind', location: 'query', value: 'job' },
    });
    doc.expectDocumented('get', SCHEDULES, kind);
    const enabled = await get(`${SCHEDULES}?enabled=yes`);
    expect(expectError(enabled, 400, 'INVALID_PARAMETER').message).toBe(
      'Query parameter "enabled" must be true or false; got "yes".',
    );
    const typo = await get(`${SCHEDULES}?enable=true`);
    expect(expectError(typo, 400, 'INVALID_PARAMETER').details).toMatchObject({ field: 'enable' });
    const env = await get(`${SCHEDULES}?environment=nowhere`);
    expect(expectError(env, 404, 'ENVIRONMENT_NOT_FOUND').details).toMatchObject({
      field: 'environment',
    });
    doc.expectDocumented('get', SCHEDULES, env);
  });
});

describe('GET and DELETE /api/v1/schedules/{schedule_id}', () => {
  it('answers one schedule, and 404 / 400 for an unknown or malformed id', async () => {
    const row = await s.store.schedules.getFor('workflow', wf.id);
    const answer = await get(`${SCHEDULES}/${row?.id}`);
    expect(answer.status).toBe(200);
    doc.expectDocumented('get', SCHEDULE, answer);
    expect(answer.body).toMatchObject({ id: row?.id, kind: 'workflow', target: 'nightly' });
    const unknown = await get(`${SCHEDULES}/9999`);
    expect(expectError(unknown, 404, 'SCHEDULE_NOT_FOUND')).toEqual({
      code: 'SCHEDULE_NOT_FOUND',
      message: 'No schedule has id 9999. GET /api/v1/schedules lists them.',
      details: { schedule_id: 9999 },
    });
    doc.expectDocumented('get', SCHEDULE, unknown);
    const bad = await get(`${SCHEDULES}/abc`);
    expect(expectError(bad, 400, 'INVALID_PARAMETER').details).toMatchObject({
      field: 'schedule_id',
      location: 'path',
    });
    const query = await get(`${SCHEDULES}/${row?.id}?verbose=true`);
    expectError(query, 400, 'INVALID_PARAMETER');
  });

  it('removes a schedule, answering it as it was; then it is gone (404)', async () => {
    const view = await set(WRITER);
    const changed = jest.spyOn(s.scheduler as NonNullable<typeof s.scheduler>, 'changed');
    const answer = await del(`${SCHEDULES}/${view.id}`);
    expect(answer.status).toBe(200);
    doc.expectDocumented('delete', SCHEDULE, answer);
    expect(answer.body).toEqual(view);
    expect(changed).toHaveBeenCalledTimes(1);
    changed.mockRestore();
    expect(await s.store.schedules.get(view.id)).toBeUndefined();
    expectError(await get(`${SCHEDULES}/${view.id}`), 404, 'SCHEDULE_NOT_FOUND');
    const again = await del(`${SCHEDULES}/${view.id}`);
    expectError(again, 404, 'SCHEDULE_NOT_FOUND');
    doc.expectDocumented('delete', SCHEDULE, again);
    expectError(await del(`${SCHEDULES}/0`), 400, 'INVALID_PARAMETER');
  });

  it('answers 405 with Allow for a method the paths do not have', async () => {
    const put = await call(`${s.url}${SCHEDULES}/1`, { method: 'PUT', headers: AUTH });
    expectError(put, 405, 'METHOD_NOT_ALLOWED');
    expect(put.headers.get('allow')).toBe('GET, HEAD, DELETE');
    const list = await call(`${s.url}${SCHEDULES}`, { method: 'DELETE', headers: AUTH });
    expect(list.headers.get('allow')).toBe('GET, HEAD, POST');
    const run = await get(`${SCHEDULES}/1/run`);
    expectError(run, 405, 'METHOD_NOT_ALLOWED');
  });
});

describe('POST /api/v1/schedules/{schedule_id}/run', () => {
  it('fires an agent schedule now: 202, a run with source cron_scheduler, its times kept', async () => {
    const view = await set({
      name: 'triage',
      cron: '0 9 * * 1-5',
      variables: { REPO: 'junction' },
    });
    const answer = await runNow(view.id);
    expect(answer.status).toBe(202);
    doc.expectDocumented('post', RUN, answer);
    const body = answer.body as { schedule: View; outcome: string; run_id: number };
    expect(body).toEqual({
      schedule: {
        ...view,
        last_run_at: expect.any(String),
        last_outcome: 'started',
        last_run_id: body.run_id,
      },
      outcome: 'started',
      run_id: expect.any(Number),
    });
    expect(body.schedule.next_run_at).toBe(view.next_run_at);
    expect(answer.headers.get('location')).toBe(`/api/v1/runs/${body.run_id}`);
    const run = await s.store.runs.get(body.run_id);
    expect(run).toMatchObject({
      agentId: s.seed.triage.id,
      source: 'cron_scheduler',
      status: 'queued',
      task: 'Scheduled execution: Sorts incoming issues',
    });
    expect(run?.variables).toMatchObject({ REPO: 'junction', cron_schedule: '0 9 * * 1-5' });
  });

  it('answers the fire skipped while its previous run waits (overlap), starting nothing', async () => {
    const row = await s.store.schedules.getFor('agent', s.seed.triage.id);
    const runs = await s.runCount();
    const answer = await runNow(row?.id ?? 0);
    expect(answer.status).toBe(202);
    doc.expectDocumented('post', RUN, answer);
    expect(answer.body).toMatchObject({
      outcome: 'skipped',
      error: `its previous run ${row?.lastRunId} is still queued`,
    });
    expect(answer.body).not.toHaveProperty('run_id');
    expect(answer.headers.get('location')).toBeNull();
    expect(await s.runCount()).toBe(runs);
  });

  it('fires a workflow schedule: a workflow run with its input, source cron_scheduler', async () => {
    const row = await s.store.schedules.getFor('workflow', wf.id);
    const answer = await runNow(row?.id ?? 0);
    expect(answer.status).toBe(202);
    const body = answer.body as { outcome: string; run_id: number };
    expect(body.outcome).toBe('started');
    expect(answer.headers.get('location')).toBe(`/api/v1/workflow-runs/${body.run_id}`);
    expect(await s.store.workflowRuns.get(body.run_id)).toMatchObject({
      workflowId: wf.id,
      source: 'cron_scheduler',
      status: 'pending',
      input: { n: 3 },
    });
  });

  it('answers a fire that could not start its run as failed, saying why', async () => {
    const view = await set(WRITER);
    const runs = await s.runCount();
    const answer = await runNow(view.id);
    expect(answer.status).toBe(202);
    doc.expectDocumented('post', RUN, answer);
    expect(answer.body).toMatchObject({
      outcome: 'failed',
      error: expect.stringContaining('OPENAI_API_KEY'),
      schedule: { id: view.id, last_outcome: 'failed' },
    });
    expect(await s.runCount()).toBe(runs);
  });

  it('answers 404 for an unknown schedule and 400 for a malformed id', async () => {
    const unknown = await runNow(9999);
    expectError(unknown, 404, 'SCHEDULE_NOT_FOUND');
    doc.expectDocumented('post', RUN, unknown);
    expectError(await runNow('x'), 400, 'INVALID_PARAMETER');
  });

  it('answers 503 SCHEDULER_UNAVAILABLE in a process without a scheduler; no run starts', async () => {
    const bare = await startServer();
    try {
      const row = await bare.store.schedules.set(
        {
          kind: 'agent',
          id: bare.seed.triage.id,
          name: 'triage',
          environmentId: bare.seed.envDefault,
        },
        { cron: '0 9 * * *', origin: 'operator', nextRunAt: null },
      );
      const runs = await bare.runCount();
      const answer = await runNow(row.id, bare, {} as typeof AUTH);
      expect(expectError(answer, 503, 'SCHEDULER_UNAVAILABLE')).toEqual({
        code: 'SCHEDULER_UNAVAILABLE',
        message:
          'This process runs no scheduler (it executes no runs), so it cannot fire a schedule. Send this to `junction serve` or api-server.',
        details: { schedule_id: row.id },
      });
      const bareDoc = await validatorFor(bare);
      bareDoc.expectDocumented('post', RUN, answer);
      expect(await bare.runCount()).toBe(runs);
      expect((await bare.store.schedules.get(row.id))?.lastOutcome).toBeNull();
    } finally {
      await bare.close();
    }
  });
});

describe('the OpenAPI document', () => {
  it('documents the schedule routes with their bodies and refusals', () => {
    const set = doc.operation('post', SCHEDULES) as {
      requestBody: {
        required: boolean;
        content: Record<string, { schema: Record<string, unknown> }>;
      };
      responses: Record<string, { headers?: Record<string, unknown> }>;
    };
    expect(set.requestBody.required).toBe(true);
    expect(set.requestBody.content['application/json']?.schema).toMatchObject({
      type: 'object',
      required: ['cron'],
      additionalProperties: false,
    });
    expect(Object.keys(set.responses)).toEqual(
      expect.arrayContaining(['200', '201', '400', '401', '404', '409', '413', '415']),
    );
    expect(set.responses['201']?.headers).toHaveProperty('Location');
    const run = doc.operation('post', RUN) as {
      responses: Record<string, { description: string }>;
    };
    expect(run.responses['503']?.description).toMatch(/^SCHEDULER_UNAVAILABLE/);
    expect(doc.operation('delete', SCHEDULE).responses).toHaveProperty('404');
    expect(doc.operation('get', SCHEDULES).parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'kind' }),
        expect.objectContaining({ name: 'enabled' }),
        expect.objectContaining({ name: 'environment' }),
      ]),
    );
  });
});
