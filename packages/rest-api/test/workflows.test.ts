// The workflow routes against a real store and a real workflow door: workflows, starting runs
// (by path and by body), run history and detail, cancelling, and approvals decided once.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Approval, Workflow, WorkflowRun } from '@junction/store';
import { ROUTES } from '../src/route-table.js';
import {
  call,
  expectError,
  postJson,
  startServer,
  validatorFor,
  type Answer,
  type OpenApiValidator,
  type TestServer,
} from './harness.js';

const KEY = 'jk_workflows_0123456789abcdef';
const AUTH = { authorization: `Bearer ${KEY}` };

const WORKFLOWS = '/api/v1/workflows';
const WORKFLOW = '/api/v1/workflows/{workflow_id}';
const START = '/api/v1/workflows/{workflow_id}/runs';
const RUNS = '/api/v1/workflow-runs';
const RUN = '/api/v1/workflow-runs/{workflow_run_id}';
const CANCEL = '/api/v1/workflow-runs/{workflow_run_id}/cancel';
const APPROVALS = '/api/v1/workflow-approvals';
const APPROVAL = '/api/v1/workflow-approvals/{approval_id}';
const APPROVE = '/api/v1/workflow-approvals/{approval_id}/approve';
const REJECT = '/api/v1/workflow-approvals/{approval_id}/reject';

/** The definition of the brief: one inject state, input {n: integer} required. */
const definition = (id: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  id,
  start: 'a',
  states: [{ id: 'a', type: 'inject', data: { x: 1 }, end: true }],
  inputSchema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
  ...extra,
});

let s: TestServer;
let doc: OpenApiValidator;
let envStaging: number;
let wf: Workflow;
let wfProd: Workflow;
let plain: Workflow;

beforeAll(async () => {
  s = await startServer({ apiKeys: [KEY], workflows: true });
  doc = await validatorFor(s, AUTH);
  const { store, seed } = s;
  envStaging = (await store.environments.create({ name: 'staging' })).id;
  wf = await store.workflows.upsert(seed.envDefault, {
    workflowId: 'wf',
    name: 'Demo',
    definition: definition('wf', { description: 'Counts to n', version: '1.0' }),
    path: '/ws/environments/default/workflows/wf.workflow.yaml',
  });
  plain = await store.workflows.upsert(seed.envDefault, {
    workflowId: 'plain',
    name: 'No input schema',
    definition: {
      id: 'plain',
      start: 'a',
      states: [{ id: 'a', type: 'inject', data: { ok: true }, end: true }],
    },
    path: '/ws/environments/default/workflows/plain.workflow.yaml',
  });
  await store.workflows.upsert(seed.envDefault, {
    workflowId: 'retired',
    name: 'Retired',
    definition: definition('retired'),
    enabled: false,
  });
  wfProd = await store.workflows.upsert(seed.envProd, {
    workflowId: 'wf',
    name: 'Demo (production)',
    definition: definition('wf', { version: 2 }),
  });
  await store.workflows.upsert(seed.envProd, {
    workflowId: 'shared',
    name: 'Shared',
    definition: definition('shared'),
  });
  // Stored before the definition rules it breaks (an inject state must hold data).
  await store.workflows.upsert(envStaging, {
    workflowId: 'broken',
    name: 'Broken',
    definition: { id: 'broken', start: 'a', states: [{ id: 'a', type: 'inject', end: true }] },
  });
  await store.workflows.upsert(envStaging, {
    workflowId: 'shared',
    name: 'Shared',
    definition: definition('shared'),
  });
});
afterAll(async () => {
  await s.close();
});

const get = (path: string): Promise<Answer> => call(`${s.url}${path}`, { headers: AUTH });
const post = (path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> =>
  postJson(`${s.url}${path}`, body, { ...AUTH, ...headers });
const postEmpty = (path: string): Promise<Answer> =>
  call(`${s.url}${path}`, { method: 'POST', headers: AUTH });

type RunAnswer = { workflow_run: Record<string, unknown> & { id: number; status: string } };
type ApprovalAnswer = { approval: Record<string, unknown> & { approval_id: string } };

/** A pending run of `wf` started through the door, as another surface would. */
async function pendingRun(n = 1): Promise<WorkflowRun> {
  const door = s.workflows;
  if (!door) throw new Error('the harness has no workflow door');
  return (await door.start({ workflow_id: 'wf', input: { n }, source: 'cli' })).run;
}

let approvalSeq = 0;
/** A pending approval of a fresh run, as a human_approval step records one. */
async function pendingApproval(
  options: { approvers?: string[]; expiresAt?: Date } = {},
): Promise<Approval> {
  const run = await pendingRun();
  approvalSeq += 1;
  return s.store.approvals.create({
    approvalId: `appr-${run.id}-review${approvalSeq}`,
    workflowRunId: run.id,
    stepName: 'review',
    message: 'Ship it?',
    ...(options.approvers ? { approvers: options.approvers } : {}),
    ...(options.expiresAt ? { expiresAt: options.expiresAt } : { timeoutSeconds: 3600 }),
  });
}

describe('GET /api/v1/workflows', () => {
  it('lists every environment’s workflows with their fields, in a documented page', async () => {
    const answer = await get(WORKFLOWS);
    expect(answer.status).toBe(200);
    doc.expectDocumented('get', WORKFLOWS, answer);
    const body = answer.body as { workflows: Array<Record<string, unknown>>; has_more: boolean };
    expect(body).toMatchObject({ limit: 50, offset: 0, has_more: false });
    expect(body.workflows.map((w) => `${String(w.environment)}/${String(w.workflow_id)}`)).toEqual([
      'default/plain',
      'default/retired',
      'default/wf',
      'production/shared',
      'production/wf',
      'staging/broken',
      'staging/shared',
    ]);
    expect(body.workflows[2]).toEqual({
      id: wf.id,
      workflow_id: 'wf',
      name: 'Demo',
      environment: 'default',
      enabled: true,
      description: 'Counts to n',
      version: '1.0',
      path: '/ws/environments/default/workflows/wf.workflow.yaml',
      states: 1,
      created_at: wf.createdAt.toISOString(),
      updated_at: wf.updatedAt.toISOString(),
    });
    expect(body.workflows[4]).toMatchObject({ version: '2', description: '', path: null });
    expect(body.workflows[1]).toMatchObject({ workflow_id: 'retired', enabled: false });
  });

  it('filters by environment and pages with has_more', async () => {
    const prod = await get(`${WORKFLOWS}?environment=production`);
    expect((prod.body as { workflows: Array<{ id: number }> }).workflows.map((w) => w.id)).toEqual([
      expect.any(Number),
      wfProd.id,
    ]);
    const byId = await get(`${WORKFLOWS}?environment_id=${envStaging}`);
    expect((byId.body as { workflows: unknown[] }).workflows).toHaveLength(2);
    const first = await get(`${WORKFLOWS}?limit=2&offset=3`);
    doc.expectDocumented('get', WORKFLOWS, first);
    expect(first.body).toMatchObject({ limit: 2, offset: 3, has_more: true });
    const last = await get(`${WORKFLOWS}?limit=2&offset=5`);
    expect(last.body).toMatchObject({ has_more: false, workflows: [{}, {}] });
  });

  it('refuses an unknown environment (404) and a bad or unknown parameter (400)', async () => {
    const unknown = await get(`${WORKFLOWS}?environment=nowhere`);
    expect(expectError(unknown, 404, 'ENVIRONMENT_NOT_FOUND').details).toMatchObject({
      field: 'environment',
    });
    doc.expectDocumented('get', WORKFLOWS, unknown);
    const limit = await get(`${WORKFLOWS}?limit=0`);
    expect(expectError(limit, 400, 'INVALID_PARAMETER')).toEqual({
      code: 'INVALID_PARAMETER',
      message: 'Query parameter "limit" must be at least 1; got "0".',
      details: { field: 'limit', location: 'query', value: '0' },
    });
    const typo = await get(`${WORKFLOWS}?enviroment=default`);
    expect(expectError(typo, 400, 'INVALID_PARAMETER').details).toMatchObject({
      field: 'enviroment',
    });
    doc.expectDocumented('get', WORKFLOWS, typo);
  });
});

describe('GET /api/v1/workflows/{workflow_id}', () => {
  it('answers the workflow with its definition, by workflow id or row id', async () => {
    const answer = await get(`${WORKFLOWS}/wf`);
    expect(answer.status).toBe(200);
    doc.expectDocumented('get', WORKFLOW, answer);
    const { workflow } = answer.body as { workflow: Record<string, unknown> };
    expect(workflow).toMatchObject({ id: wf.id, environment: 'default', states: 1 });
    expect(workflow.definition).toEqual(wf.definition);
    const byRow = await get(`${WORKFLOWS}/${wfProd.id}`);
    expect(byRow.body).toMatchObject({ workflow: { id: wfProd.id, environment: 'production' } });
  });

  it('takes ?environment= for a workflow several environments have', async () => {
    const prod = await get(`${WORKFLOWS}/wf?environment=production`);
    expect(prod.body).toMatchObject({ workflow: { id: wfProd.id } });
    const ambiguous = await get(`${WORKFLOWS}/shared`);
    expect(expectError(ambiguous, 409, 'WORKFLOW_AMBIGUOUS').message).toBe(
      'Workflow "shared" exists in several environments; name one (environment).',
    );
    doc.expectDocumented('get', WORKFLOW, ambiguous);
    const staging = await get(`${WORKFLOWS}/shared?environment=staging`);
    expect(staging.body).toMatchObject({ workflow: { environment: 'staging' } });
  });

  it('answers 404 WORKFLOW_NOT_FOUND for an unknown id or environment, 400 for a bad query', async () => {
    const unknown = await get(`${WORKFLOWS}/nope`);
    expect(expectError(unknown, 404, 'WORKFLOW_NOT_FOUND').details).toEqual({
      workflow_id: 'nope',
    });
    doc.expectDocumented('get', WORKFLOW, unknown);
    expectError(await get(`${WORKFLOWS}/wf?environment=nowhere`), 404, 'WORKFLOW_NOT_FOUND');
    const query = await get(`${WORKFLOWS}/wf?verbose=true`);
    expect(expectError(query, 400, 'INVALID_PARAMETER').details).toMatchObject({
      field: 'verbose',
    });
    const control = await get(`${WORKFLOWS}/a%0Ab`);
    expect(expectError(control, 400, 'INVALID_PARAMETER').details).toMatchObject({
      field: 'workflow_id',
      location: 'path',
    });
  });
});

describe('POST /api/v1/workflows/{workflow_id}/runs', () => {
  it('starts a pending run: 202, Location, the run as stored', async () => {
    const before = await s.store.workflowRuns.list({ limit: 1000 });
    const answer = await post(`${WORKFLOWS}/wf/runs`, { input: { n: 3 } });
    expect(answer.status).toBe(202);
    doc.expectDocumented('post', START, answer);
    const run = (answer.body as RunAnswer).workflow_run;
    expect(answer.headers.get('location')).toBe(`/api/v1/workflow-runs/${run.id}`);
    const stored = await s.store.workflowRuns.get(run.id);
    expect(stored).toMatchObject({ workflowId: wf.id, source: 'api', input: { n: 3 } });
    expect(run).toEqual({
      id: run.id,
      workflow_id: 'wf',
      workflow_name: 'Demo',
      status: 'pending',
      input: { n: 3 },
      output: null,
      error: null,
      current_step: null,
      source: 'api',
      created_at: stored?.createdAt.toISOString(),
      started_at: null,
      completed_at: null,
    });
    expect(await s.store.workflowRuns.list({ limit: 1000 })).toHaveLength(before.length + 1);
  });

  it('refuses input the inputSchema refuses with 400 naming the field, and starts nothing', async () => {
    const before = (await s.store.workflowRuns.list({ limit: 1000 })).length;
    const wrongType = await post(`${WORKFLOWS}/wf/runs`, { input: { n: 'three' } });
    const error = expectError(wrongType, 400, 'WORKFLOW_INPUT_INVALID');
    expect(error.message).toBe(
      "The workflow input is not valid: input.n must be integer (see the workflow's inputSchema).",
    );
    expect(error.details).toEqual({ field: 'n', reason: 'must be integer' });
    doc.expectDocumented('post', START, wrongType);
    const missing = await post(`${WORKFLOWS}/wf/runs`, { input: {} });
    expect(expectError(missing, 400, 'WORKFLOW_INPUT_INVALID').details).toEqual({
      field: 'n',
      reason: 'is required',
    });
    // No body at all is no input: the schema still asks for n.
    expectError(await postEmpty(`${WORKFLOWS}/wf/runs`), 400, 'WORKFLOW_INPUT_INVALID');
    expect(await s.store.workflowRuns.list({ limit: 1000 })).toHaveLength(before);
  });

  it('accepts a POST without a body for a workflow that needs no input', async () => {
    const answer = await postEmpty(`${WORKFLOWS}/plain/runs`);
    expect(answer.status).toBe(202);
    expect((answer.body as RunAnswer).workflow_run).toMatchObject({
      workflow_id: 'plain',
      input: {},
    });
    const emptyJson = await post(`${WORKFLOWS}/${plain.id}/runs`, {});
    expect(emptyJson.status).toBe(202);
  });

  it('answers 404 for an unknown workflow, 409 for a disabled or ambiguous one', async () => {
    const unknown = await post(`${WORKFLOWS}/nope/runs`, { input: { n: 1 } });
    expectError(unknown, 404, 'WORKFLOW_NOT_FOUND');
    doc.expectDocumented('post', START, unknown);
    const disabled = await post(`${WORKFLOWS}/retired/runs`, { input: { n: 1 } });
    expect(expectError(disabled, 409, 'WORKFLOW_DISABLED').details).toEqual({
      workflow_id: 'retired',
    });
    doc.expectDocumented('post', START, disabled);
    expectError(
      await post(`${WORKFLOWS}/shared/runs`, { input: { n: 1 } }),
      409,
      'WORKFLOW_AMBIGUOUS',
    );
    const named = await post(`${WORKFLOWS}/shared/runs`, {
      input: { n: 1 },
      environment: 'staging',
    });
    expect(named.status).toBe(202);
  });

  it('answers 400 WORKFLOW_INVALID for a stored definition that cannot run', async () => {
    const answer = await post(`${WORKFLOWS}/broken/runs`, {});
    const error = expectError(answer, 400, 'WORKFLOW_INVALID');
    expect(error.details).toMatchObject({
      problems: [{ state: 'a', field: 'data', message: 'must hold the data to inject' }],
    });
    doc.expectDocumented('post', START, answer);
  });

  it('replays an idempotency key: 200 with the first run, nothing new', async () => {
    const first = await post(`${WORKFLOWS}/wf/runs`, {
      input: { n: 5 },
      idempotency_key: 'order-42',
    });
    expect(first.status).toBe(202);
    const again = await post(`${WORKFLOWS}/wf/runs`, {
      input: { n: 6 },
      idempotency_key: 'order-42',
    });
    expect(again.status).toBe(200);
    doc.expectDocumented('post', START, again);
    const id = (first.body as RunAnswer).workflow_run.id;
    expect((again.body as RunAnswer).workflow_run).toMatchObject({ id, input: { n: 5 } });
    expect(again.headers.get('location')).toBe(`/api/v1/workflow-runs/${id}`);
    expect(await s.store.workflowRuns.list({ workflowKey: 'wf', limit: 1000 })).toEqual(
      expect.arrayContaining([expect.objectContaining({ id })]),
    );
  });

  it.each([
    [
      'an unknown field',
      { input: { n: 1 }, inputs: {} },
      'inputs',
      'Unknown field "inputs" in the body; it takes input, environment, idempotency_key.',
    ],
    ['a blank environment', { environment: ' ' }, 'environment', 'environment must not be empty.'],
    [
      'an idempotency key with a space',
      { idempotency_key: 'a b' },
      'idempotency_key',
      'idempotency_key must be 1 to 255 visible ASCII characters without spaces (a UUID works well).',
    ],
    [
      'an array for a body',
      [1, 2],
      '(body)',
      'The body must be a JSON object such as {"input": {"ticket": "T-1"}, "idempotency_key": "…"}.',
    ],
  ])('refuses %s with 400 INVALID_BODY naming it', async (_what, body, field, message) => {
    const answer = await post(`${WORKFLOWS}/wf/runs`, body);
    expect(expectError(answer, 400, 'INVALID_BODY')).toEqual({
      code: 'INVALID_BODY',
      message,
      details: { field },
    });
    doc.expectDocumented('post', START, answer);
  });

  it('refuses input nested deeper than 64 levels (400) and a body over 1 MiB (413)', async () => {
    const before = (await s.store.workflowRuns.list({ limit: 1000 })).length;
    const nested = (n: number): string => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
    const ok = await post(`${WORKFLOWS}/plain/runs`, `{"input": ${nested(63)}}`);
    expect(ok.status).toBe(202);
    for (const depth of [65, 5000]) {
      const deep = await post(`${WORKFLOWS}/plain/runs`, `{"input": ${nested(depth)}}`);
      expect(expectError(deep, 400, 'WORKFLOW_INPUT_INVALID')).toMatchObject({
        code: 'WORKFLOW_INPUT_INVALID',
        message:
          'The workflow input is not valid: input is nested more than 64 levels deep (objects and arrays inside one another); flatten it to at most 64 levels.',
      });
      doc.expectDocumented('post', START, deep);
    }
    const array = await post(
      RUNS,
      `{"workflow_id": "plain", "input": ${'['.repeat(20_000)}${']'.repeat(20_000)}}`,
    );
    expectError(array, 400, 'WORKFLOW_INPUT_INVALID');
    const huge = await post(RUNS, {
      workflow_id: 'plain',
      input: { text: 'x'.repeat(1024 * 1024) },
    });
    expect(expectError(huge, 413, 'PAYLOAD_TOO_LARGE').details).toEqual({ limit_bytes: 1048576 });
    doc.expectDocumented('post', RUNS, huge);
    expect(await s.store.workflowRuns.list({ limit: 1000 })).toHaveLength(before + 1);
  });

  it('refuses a body that is not JSON (415) or not valid JSON (400), and a query (400)', async () => {
    const text = await call(`${s.url}${WORKFLOWS}/wf/runs`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'text/plain' },
      body: 'n=1',
    });
    expectError(text, 415, 'UNSUPPORTED_MEDIA_TYPE');
    doc.expectDocumented('post', START, text);
    const broken = await post(`${WORKFLOWS}/wf/runs`, '{"input": ');
    expectError(broken, 400, 'INVALID_JSON');
    const query = await post(`${WORKFLOWS}/wf/runs?wait=true`, { input: { n: 1 } });
    expect(expectError(query, 400, 'INVALID_PARAMETER').details).toMatchObject({ field: 'wait' });
  });

  it('shows secret-looking input keys redacted; the run keeps them', async () => {
    const answer = await post(`${WORKFLOWS}/plain/runs`, {
      input: { repo: 'junction', api_token: 'tok-live-123' },
    });
    const run = (answer.body as RunAnswer).workflow_run;
    expect(run.input).toEqual({ repo: 'junction', api_token: '[REDACTED]' });
    expect((await s.store.workflowRuns.get(run.id))?.input).toEqual({
      repo: 'junction',
      api_token: 'tok-live-123',
    });
  });
});

describe('POST /api/v1/workflow-runs (the reference clients’ start)', () => {
  it('starts the workflow named by workflow_id: 202 and Location', async () => {
    const answer = await post(RUNS, { workflow_id: 'wf', input: { n: 2 } });
    expect(answer.status).toBe(202);
    doc.expectDocumented('post', RUNS, answer);
    const run = (answer.body as RunAnswer).workflow_run;
    expect(run).toMatchObject({ workflow_id: 'wf', status: 'pending', input: { n: 2 } });
    expect(answer.headers.get('location')).toBe(`/api/v1/workflow-runs/${run.id}`);
    const prod = await post(RUNS, {
      workflow_id: 'wf',
      environment: 'production',
      input: { n: 2 },
    });
    expect((prod.body as RunAnswer).workflow_run.workflow_name).toBe('Demo (production)');
  });

  it('shares the idempotency keys of the path route (same source, api)', async () => {
    const first = await post(`${WORKFLOWS}/wf/runs`, { input: { n: 1 }, idempotency_key: 'k-9' });
    const second = await post(RUNS, { workflow_id: 'wf', input: { n: 1 }, idempotency_key: 'k-9' });
    expect(second.status).toBe(200);
    expect((second.body as RunAnswer).workflow_run.id).toBe(
      (first.body as RunAnswer).workflow_run.id,
    );
  });

  it.each([
    [
      'no workflow_id',
      { input: { n: 1 } },
      'workflow_id',
      'workflow_id is required: the workflow\'s id in its file, such as "incident-triage".',
    ],
    [
      'a numeric workflow_id',
      { workflow_id: 7 },
      'workflow_id',
      "workflow_id must be a string: the workflow's id in its file.",
    ],
    ['an empty workflow_id', { workflow_id: '' }, 'workflow_id', 'workflow_id must not be empty.'],
    [
      'an unknown field',
      { workflow_id: 'wf', workflowId: 'wf' },
      'workflowId',
      'Unknown field "workflowId" in the body; it takes workflow_id, input, environment, idempotency_key.',
    ],
  ])('refuses %s with 400 INVALID_BODY', async (_what, body, field, message) => {
    const answer = await post(RUNS, body);
    expect(expectError(answer, 400, 'INVALID_BODY')).toEqual({
      code: 'INVALID_BODY',
      message,
      details: { field },
    });
    doc.expectDocumented('post', RUNS, answer);
  });

  it('needs a JSON body (415 without one), and answers the door’s 400/404', async () => {
    const empty = await postEmpty(RUNS);
    expectError(empty, 415, 'UNSUPPORTED_MEDIA_TYPE');
    doc.expectDocumented('post', RUNS, empty);
    const input = await post(RUNS, { workflow_id: 'wf', input: { n: 1.5 } });
    expect(expectError(input, 400, 'WORKFLOW_INPUT_INVALID').details).toMatchObject({ field: 'n' });
    expectError(await post(RUNS, { workflow_id: 'ghost' }), 404, 'WORKFLOW_NOT_FOUND');
  });
});

describe('GET /api/v1/workflow-runs', () => {
  it('lists runs newest first, filtered by workflow_id and status, paged with has_more', async () => {
    const started: number[] = [];
    for (const n of [1, 2, 3]) {
      const answer = await post(RUNS, {
        workflow_id: 'shared',
        environment: 'production',
        input: { n },
      });
      started.push((answer.body as RunAnswer).workflow_run.id);
    }
    await s.workflows?.cancel(started[0] as number);
    const all = await get(`${RUNS}?workflow_id=shared&environment=production`);
    expect(all.status).toBe(200);
    doc.expectDocumented('get', RUNS, all);
    const ids = (body: unknown): number[] =>
      (body as { workflow_runs: Array<{ id: number }> }).workflow_runs.map((r) => r.id);
    expect(ids(all.body)).toEqual([...started].reverse());
    const pending = await get(`${RUNS}?workflow_id=shared&environment=production&status=pending`);
    expect(ids(pending.body)).toEqual([started[2], started[1]]);
    const either = await get(`${RUNS}?workflow_id=shared&status=cancelled,completed`);
    expect(ids(either.body)).toEqual([started[0]]);
    const page = await get(`${RUNS}?workflow_id=shared&environment=production&limit=2`);
    expect(page.body).toMatchObject({ limit: 2, offset: 0, has_more: true });
    expect(ids(page.body)).toEqual([started[2], started[1]]);
    const rest = await get(`${RUNS}?workflow_id=shared&environment=production&limit=2&offset=2`);
    expect(rest.body).toMatchObject({ has_more: false });
    expect(ids(rest.body)).toEqual([started[0]]);
    const nothing = await get(`${RUNS}?workflow_id=ghost`);
    expect(nothing.body).toEqual({ workflow_runs: [], limit: 50, offset: 0, has_more: false });
  });

  it('refuses a status that is not one, naming the parameter', async () => {
    const answer = await get(`${RUNS}?status=pending,done`);
    expect(expectError(answer, 400, 'INVALID_PARAMETER')).toEqual({
      code: 'INVALID_PARAMETER',
      message:
        'Query parameter "status" must be one or more of pending, running, waiting_approval, completed, failed, cancelled, timed_out, comma-separated; got "pending,done".',
      details: { field: 'status', location: 'query', value: 'pending,done' },
    });
    doc.expectDocumented('get', RUNS, answer);
    expectError(await get(`${RUNS}?environment=nowhere`), 404, 'ENVIRONMENT_NOT_FOUND');
  });
});

describe('GET /api/v1/workflow-runs/{workflow_run_id}', () => {
  it('answers the run with its step attempts and approvals', async () => {
    const run = await pendingRun(4);
    await s.store.workflowSteps.start(run.id, {
      stepName: 'a',
      path: 'a#1',
      type: 'inject',
      status: 'completed',
      output: { x: 1, password: 'hunter2' },
    });
    await s.store.approvals.create({
      approvalId: `appr-${run.id}-b`,
      workflowRunId: run.id,
      stepName: 'b',
      message: 'Go on?',
      approvers: ['alice'],
    });
    const answer = await get(`${RUNS}/${run.id}`);
    expect(answer.status).toBe(200);
    doc.expectDocumented('get', RUN, answer);
    const body = answer.body as {
      workflow_run: Record<string, unknown>;
      steps: Array<Record<string, unknown>>;
      approvals: Array<Record<string, unknown>>;
    };
    expect(body.workflow_run).toMatchObject({ id: run.id, source: 'cli', input: { n: 4 } });
    expect(body.steps).toEqual([
      {
        id: expect.any(Number),
        name: 'a',
        path: 'a#1',
        attempt: 1,
        type: 'inject',
        status: 'completed',
        output: { x: 1, password: '[REDACTED]' },
        error: null,
        run_id: null,
        approval_id: null,
        started_at: expect.any(String),
        completed_at: expect.any(String),
      },
    ]);
    expect(body.approvals).toEqual([
      expect.objectContaining({
        approval_id: `appr-${run.id}-b`,
        status: 'pending',
        approvers: ['alice'],
        view_url: expect.stringMatching(
          new RegExp(`^http://127\\.0\\.0\\.1:8587/workflow-approvals/appr-${run.id}-b\\?token=`),
        ),
      }),
    ]);
  });

  it('answers 404 WORKFLOW_RUN_NOT_FOUND and 400 for a malformed id', async () => {
    const unknown = await get(`${RUNS}/999999`);
    expect(expectError(unknown, 404, 'WORKFLOW_RUN_NOT_FOUND').details).toEqual({
      workflow_run_id: 999999,
    });
    doc.expectDocumented('get', RUN, unknown);
    const bad = await get(`${RUNS}/abc`);
    expect(expectError(bad, 400, 'INVALID_PARAMETER').details).toMatchObject({
      field: 'workflow_run_id',
      location: 'path',
    });
  });
});

describe('POST /api/v1/workflow-runs/{workflow_run_id}/cancel', () => {
  it('cancels a run that has not ended (200), then answers 409 WORKFLOW_RUN_ENDED', async () => {
    const run = await pendingRun();
    const first = await postEmpty(`${RUNS}/${run.id}/cancel`);
    expect(first.status).toBe(200);
    doc.expectDocumented('post', CANCEL, first);
    expect((first.body as RunAnswer).workflow_run).toMatchObject({
      id: run.id,
      status: 'cancelled',
      completed_at: expect.any(String),
    });
    expect((await s.store.workflowRuns.get(run.id))?.status).toBe('cancelled');
    const again = await postEmpty(`${RUNS}/${run.id}/cancel`);
    expect(expectError(again, 409, 'WORKFLOW_RUN_ENDED')).toEqual({
      code: 'WORKFLOW_RUN_ENDED',
      message: `Workflow run ${run.id} already ended cancelled; only a run that has not ended can be cancelled.`,
      details: { workflow_run_id: run.id, status: 'cancelled' },
    });
    doc.expectDocumented('post', CANCEL, again);
  });

  it('answers 404 for an unknown run and 405 for GET', async () => {
    const unknown = await postEmpty(`${RUNS}/424242/cancel`);
    expectError(unknown, 404, 'WORKFLOW_RUN_NOT_FOUND');
    doc.expectDocumented('post', CANCEL, unknown);
    const method = await get(`${RUNS}/1/cancel`);
    expectError(method, 405, 'METHOD_NOT_ALLOWED');
    expect(method.headers.get('allow')).toBe('POST');
    const both = await call(`${s.url}${RUNS}`, { method: 'PUT', headers: AUTH });
    expect(both.headers.get('allow')).toBe('POST, GET, HEAD');
  });
});

describe('workflow approvals', () => {
  it('lists approvals newest first with signed links, filtered by status and run', async () => {
    const older = await pendingApproval();
    const newer = await pendingApproval({ approvers: ['alice'] });
    const answer = await get(`${APPROVALS}?status=pending`);
    expect(answer.status).toBe(200);
    doc.expectDocumented('get', APPROVALS, answer);
    const body = answer.body as { approvals: Array<Record<string, unknown>> };
    const ids = body.approvals.map((a) => a.approval_id);
    expect(ids.indexOf(newer.approvalId)).toBeLessThan(ids.indexOf(older.approvalId));
    const links = await s.workflows?.links(newer.approvalId);
    expect(body.approvals.find((a) => a.approval_id === newer.approvalId)).toEqual({
      approval_id: newer.approvalId,
      workflow_run_id: newer.workflowRunId,
      step_name: 'review',
      message: 'Ship it?',
      approvers: ['alice'],
      status: 'pending',
      timeout_seconds: 3600,
      decided_by: null,
      comment: null,
      created_at: newer.createdAt.toISOString(),
      decided_at: null,
      expires_at: newer.expiresAt?.toISOString(),
      ...links,
    });
    const ofRun = await get(`${APPROVALS}?workflow_run_id=${older.workflowRunId}`);
    expect(ofRun.body).toMatchObject({
      approvals: [{ approval_id: older.approvalId }],
      has_more: false,
    });
    const page = await get(`${APPROVALS}?limit=1`);
    expect(page.body).toMatchObject({ limit: 1, has_more: true, approvals: [{}] });
    const bad = await get(`${APPROVALS}?status=waiting`);
    expect(expectError(bad, 400, 'INVALID_PARAMETER').message).toBe(
      'Query parameter "status" must be one of pending, approved, rejected, timed_out, cancelled; got "waiting".',
    );
    doc.expectDocumented('get', APPROVALS, bad);
  });

  it('answers one approval, or 404 APPROVAL_NOT_FOUND', async () => {
    const approval = await pendingApproval();
    const answer = await get(`${APPROVALS}/${approval.approvalId}`);
    expect(answer.status).toBe(200);
    doc.expectDocumented('get', APPROVAL, answer);
    expect((answer.body as ApprovalAnswer).approval.approval_id).toBe(approval.approvalId);
    const unknown = await get(`${APPROVALS}/appr-0-none`);
    expect(expectError(unknown, 404, 'APPROVAL_NOT_FOUND').details).toEqual({
      approval_id: 'appr-0-none',
    });
    doc.expectDocumented('get', APPROVAL, unknown);
  });

  it('approves once with a comment, makes the run due, and audits it with source rest', async () => {
    const approval = await pendingApproval();
    const answer = await post(`${APPROVALS}/${approval.approvalId}/approve`, {
      comment: 'Looks good',
      approver: 'bob',
    });
    expect(answer.status).toBe(200);
    doc.expectDocumented('post', APPROVE, answer);
    expect((answer.body as ApprovalAnswer).approval).toMatchObject({
      approval_id: approval.approvalId,
      status: 'approved',
      decided_by: 'bob',
      comment: 'Looks good',
      decided_at: expect.any(String),
    });
    expect(await s.store.approvals.get(approval.approvalId)).toMatchObject({ status: 'approved' });
    await s.store.auditLog.flush();
    const audit = await s.store.auditLog.list({ source: 'rest', action: 'approve_workflow_step' });
    expect(audit).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ actor: 'bob', outcome: 'success', source: 'rest' }),
      ]),
    );

    const again = await post(`${APPROVALS}/${approval.approvalId}/reject`, { reason: 'late' });
    const error = expectError(again, 409, 'APPROVAL_DECIDED');
    expect(error.message).toBe(
      `Approval "${approval.approvalId}" was already approved by bob; it can be decided only once.`,
    );
    expect(error.details).toMatchObject({ approval: { status: 'approved', decided_by: 'bob' } });
    doc.expectDocumented('post', REJECT, again);
    const twice = await post(`${APPROVALS}/${approval.approvalId}/approve`, {});
    expectError(twice, 409, 'APPROVAL_DECIDED');
  });

  it('rejects with a reason, kept as the comment', async () => {
    const approval = await pendingApproval();
    const answer = await post(`${APPROVALS}/${approval.approvalId}/reject`, {
      reason: 'Not today',
    });
    expect(answer.status).toBe(200);
    doc.expectDocumented('post', REJECT, answer);
    expect((answer.body as ApprovalAnswer).approval).toMatchObject({
      status: 'rejected',
      comment: 'Not today',
      decided_by: null,
    });
  });

  it('decides with no body at all (curl -X POST)', async () => {
    const approval = await pendingApproval();
    const answer = await postEmpty(`${APPROVALS}/${approval.approvalId}/approve`);
    expect(answer.status).toBe(200);
    expect((answer.body as ApprovalAnswer).approval).toMatchObject({
      status: 'approved',
      comment: null,
    });
  });

  it('answers 410 APPROVAL_EXPIRED past its time, and marks it timed_out', async () => {
    const approval = await pendingApproval({ expiresAt: new Date(s.clock.ms - 1000) });
    const answer = await post(`${APPROVALS}/${approval.approvalId}/approve`, {});
    const error = expectError(answer, 410, 'APPROVAL_EXPIRED');
    expect(error.message).toBe(
      `Approval "${approval.approvalId}" timed out at ${approval.expiresAt?.toISOString()}; it can no longer be decided.`,
    );
    doc.expectDocumented('post', APPROVE, answer);
    expect(await s.store.approvals.get(approval.approvalId)).toMatchObject({
      status: 'timed_out',
    });
  });

  it('answers 403 APPROVER_NOT_ALLOWED unless a listed approver decides', async () => {
    const approval = await pendingApproval({ approvers: ['alice', 'team:platform'] });
    const nobody = await post(`${APPROVALS}/${approval.approvalId}/approve`, {});
    expect(expectError(nobody, 403, 'APPROVER_NOT_ALLOWED')).toEqual({
      code: 'APPROVER_NOT_ALLOWED',
      message: `Approval "${approval.approvalId}" may be decided only by alice, team:platform; say who you are (approver).`,
      details: { approval_id: approval.approvalId, approvers: ['alice', 'team:platform'] },
    });
    doc.expectDocumented('post', APPROVE, nobody);
    expectError(
      await post(`${APPROVALS}/${approval.approvalId}/reject`, { approver: 'mallory' }),
      403,
      'APPROVER_NOT_ALLOWED',
    );
    expect(await s.store.approvals.get(approval.approvalId)).toMatchObject({ status: 'pending' });
    const alice = await post(`${APPROVALS}/${approval.approvalId}/approve`, { approver: 'Alice' });
    expect((alice.body as ApprovalAnswer).approval).toMatchObject({
      status: 'approved',
      decided_by: 'Alice',
    });
  });

  it('answers 404 APPROVAL_NOT_FOUND for an unknown approval', async () => {
    const answer = await post(`${APPROVALS}/appr-9-ghost/approve`, { comment: 'x' });
    expectError(answer, 404, 'APPROVAL_NOT_FOUND');
    doc.expectDocumented('post', APPROVE, answer);
    expectError(await postEmpty(`${APPROVALS}/appr-9-ghost/reject`), 404, 'APPROVAL_NOT_FOUND');
  });

  it.each([
    ['approve', { comment: 5 }, 'comment', 'comment must be a string.'],
    [
      'approve',
      { comment: 'x'.repeat(4001) },
      'comment',
      'comment must be at most 4000 characters.',
    ],
    [
      'approve',
      { reason: 'no' },
      'reason',
      'Unknown field "reason" in the body; it takes comment, approver.',
    ],
    [
      'reject',
      { comment: 'no' },
      'comment',
      'Unknown field "comment" in the body; it takes reason, approver.',
    ],
    ['reject', { approver: '  ' }, 'approver', 'approver must not be empty.'],
    [
      'reject',
      { approver: 'a\u0000b' },
      'approver',
      'approver must not contain control characters.',
    ],
    [
      'approve',
      { approver: ['alice'] },
      'approver',
      'approver must be a string: who decides, e.g. "alice".',
    ],
  ])(
    '%s refuses %j with 400 INVALID_BODY and decides nothing',
    async (verb, body, field, message) => {
      const approval = await pendingApproval();
      const answer = await post(`${APPROVALS}/${approval.approvalId}/${verb}`, body);
      expect(expectError(answer, 400, 'INVALID_BODY')).toEqual({
        code: 'INVALID_BODY',
        message,
        details: { field },
      });
      doc.expectDocumented('post', verb === 'approve' ? APPROVE : REJECT, answer);
      expect(await s.store.approvals.get(approval.approvalId)).toMatchObject({ status: 'pending' });
    },
  );

  it('refuses a body that is not JSON (415) or broken JSON (400)', async () => {
    const approval = await pendingApproval();
    const form = await call(`${s.url}${APPROVALS}/${approval.approvalId}/approve`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'comment=ok',
    });
    expectError(form, 415, 'UNSUPPORTED_MEDIA_TYPE');
    doc.expectDocumented('post', APPROVE, form);
    const broken = await post(`${APPROVALS}/${approval.approvalId}/approve`, '{"comment":');
    expectError(broken, 400, 'INVALID_JSON');
    expect(await s.store.approvals.get(approval.approvalId)).toMatchObject({ status: 'pending' });
  });
});

describe('authentication of the workflow routes', () => {
  it('answers 401 without a valid key, and decides nothing', async () => {
    const approval = await pendingApproval();
    const missing = await call(`${s.url}${WORKFLOWS}`);
    expectError(missing, 401, 'API_KEY_MISSING');
    doc.expectDocumented('get', WORKFLOWS, missing);
    expectError(
      await call(`${s.url}${RUNS}`, { headers: { authorization: 'Bearer wrong' } }),
      401,
      'API_KEY_INVALID',
    );
    const decide = await postJson(`${s.url}${APPROVALS}/${approval.approvalId}/approve`, {});
    expectError(decide, 401, 'API_KEY_MISSING');
    doc.expectDocumented('post', APPROVE, decide);
    const start = await postJson(
      `${s.url}${RUNS}`,
      { workflow_id: 'plain' },
      { 'x-api-key': 'no' },
    );
    expectError(start, 401, 'API_KEY_INVALID');
    expect(await s.store.approvals.get(approval.approvalId)).toMatchObject({ status: 'pending' });
    const ok = await call(`${s.url}${APPROVALS}/${approval.approvalId}`, {
      headers: { 'x-api-key': KEY },
    });
    expect(ok.status).toBe(200);
  });
});

describe('the OpenAPI document with workflows', () => {
  it('documents every route of the route table with its parameters', () => {
    const paths = doc.doc.paths as Record<
      string,
      Record<string, { parameters?: Array<{ name: string; in: string }> }>
    >;
    for (const route of ROUTES) {
      const op = paths[route.path.replace(/:([a-z_]+)/g, '{$1}')]?.[route.method];
      expect(op).toBeDefined();
      expect((op?.parameters ?? []).map((p) => `${p.in}:${p.name}`).sort()).toEqual(
        [
          ...route.pathParams.map((p) => `path:${p.name}`),
          ...Object.keys(route.query).map((q) => `query:${q}`),
        ].sort(),
      );
    }
    expect(Object.keys(paths)).toHaveLength(new Set(ROUTES.map((r) => r.path)).size);
  });

  it('lists the workflow routes with their parameters and bodies', () => {
    const paths = Object.keys(doc.doc.paths as object).sort();
    for (const path of [
      WORKFLOWS,
      WORKFLOW,
      START,
      RUNS,
      RUN,
      CANCEL,
      APPROVALS,
      APPROVAL,
      APPROVE,
      REJECT,
    ]) {
      expect(paths).toContain(path);
    }
    const start = doc.operation('post', START) as {
      parameters: Array<{ name: string; schema: Record<string, unknown> }>;
      requestBody: { required: boolean };
      responses: Record<string, { headers?: Record<string, unknown> }>;
    };
    expect(start.parameters).toEqual([
      expect.objectContaining({
        name: 'workflow_id',
        schema: expect.objectContaining({ type: 'string' }),
      }),
    ]);
    expect(start.requestBody.required).toBe(false);
    expect(Object.keys(start.responses)).toEqual(
      expect.arrayContaining(['200', '202', '400', '401', '404', '409', '413', '415']),
    );
    expect(start.responses['202']?.headers).toHaveProperty('Location');
    const submit = doc.operation('post', RUNS) as { requestBody: { required: boolean } };
    expect(submit.requestBody.required).toBe(true);
    const run = doc.operation('get', RUN) as { parameters: Array<{ schema: unknown }> };
    expect(run.parameters[0]?.schema).toEqual({ type: 'integer', minimum: 1 });
    expect(Object.keys(doc.operation('post', APPROVE).responses as object)).toEqual(
      expect.arrayContaining(['200', '400', '403', '404', '409', '410']),
    );
    expect(doc.operation('post', CANCEL).requestBody).toBeUndefined();
  });
});

describe('a router without a workflow door', () => {
  it('neither mounts nor documents the workflow routes', async () => {
    const bare = await startServer();
    try {
      const answer = await call(`${bare.url}${WORKFLOWS}`);
      expectError(answer, 404, 'ROUTE_NOT_FOUND');
      expectError(
        await postJson(`${bare.url}${RUNS}`, { workflow_id: 'wf' }),
        404,
        'ROUTE_NOT_FOUND',
      );
      const document = (await call(`${bare.url}/api/v1/openapi.json`)).body as {
        paths: Record<string, unknown>;
        components: { schemas: Record<string, unknown> };
        tags: Array<{ name: string }>;
      };
      expect(Object.keys(document.paths).filter((p) => p.includes('workflow'))).toEqual([]);
      expect(Object.keys(document.components.schemas)).not.toContain('WorkflowRun');
      expect(document.tags.map((t) => t.name)).not.toContain('workflows');
    } finally {
      await bare.close();
    }
  });
});
