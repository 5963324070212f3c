import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createPricing } from '@junction/agent-core/models';
import {
  call,
  expectError,
  SECRET_VARIABLE,
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
});
afterAll(async () => {
  await s.close();
});

const RUNS = '/api/v1/runs';
const RUN = '/api/v1/runs/{run_id}';

async function ids(query: string): Promise<number[]> {
  const answer = await call(`${s.url}${RUNS}${query}`);
  if (answer.status !== 200) throw new Error(`${query}: ${answer.status} ${answer.text}`);
  doc.expectDocumented('get', RUNS, answer);
  return (answer.body as { items: Array<{ run_id: number }> }).items.map((r) => r.run_id);
}

describe('GET /api/v1/runs', () => {
  it('lists runs newest first with the CLI fields, in a documented page', async () => {
    const answer = await call(`${s.url}${RUNS}`);
    expect(answer.status).toBe(200);
    doc.expectDocumented('get', RUNS, answer);
    const { runs } = s.seed;
    const body = answer.body as { items: Array<Record<string, unknown>>; total: number };
    expect(body.total).toBe(5);
    expect(body.items.map((r) => r.run_id)).toEqual([
      runs.queued.id,
      runs.cli.id,
      runs.timeout.id,
      runs.failed.id,
      runs.completed.id,
    ]);
    expect(body.items[4]).toEqual({
      run_id: runs.completed.id,
      agent_id: s.seed.triage.id,
      agent_name: 'triage',
      environment_id: s.seed.envDefault,
      status: 'completed',
      source: 'api',
      parent_run_id: null,
      model: 'ollama/llama3.2',
      steps_taken: 2,
      input_tokens: 120,
      output_tokens: 40,
      // ollama/llama3.2 has no built-in price.
      cost_usd: null,
      duration_ms: 5000,
      task: 'Sort issue #1',
      final_response: 'Labelled as bug',
      error: null,
      trace_id: null,
      queued_at: runs.completed.queuedAt.toISOString(),
      started_at: runs.completed.startedAt?.toISOString(),
      completed_at: runs.completed.completedAt?.toISOString(),
      cancel_requested_at: null,
      attempt: 1,
      origin: null,
    });
  });

  it('filters by status, with failed as an alias of error and comma-separated lists', async () => {
    const { runs } = s.seed;
    expect(await ids('?status=failed')).toEqual([runs.failed.id]);
    expect(await ids('?status=error')).toEqual([runs.failed.id]);
    expect(await ids('?status=failed,timeout')).toEqual([runs.timeout.id, runs.failed.id]);
    expect(await ids('?status=queued')).toEqual([runs.queued.id]);
  });

  it('filters by agent name, agent id, environment and source', async () => {
    const { runs, triage, writer, envProd } = s.seed;
    expect(await ids('?agent=triage')).toEqual([runs.queued.id, runs.failed.id, runs.completed.id]);
    expect(await ids(`?agent_id=${writer.id}`)).toEqual([runs.timeout.id]);
    expect(await ids(`?agent_id=${triage.id}&status=completed`)).toEqual([runs.completed.id]);
    expect(await ids('?agent=nobody')).toEqual([]);
    expect(await ids(`?environment_id=${envProd}`)).toEqual([runs.timeout.id]);
    expect(await ids('?environment=production')).toEqual([runs.timeout.id]);
    expect(await ids('?source=cli')).toEqual([runs.cli.id]);
  });

  it('filters by min_duration as 5s, 2m or a number of milliseconds', async () => {
    const { runs } = s.seed;
    expect(await ids('?min_duration=5s')).toEqual([
      runs.timeout.id,
      runs.failed.id,
      runs.completed.id,
    ]);
    expect(await ids('?min_duration=5001')).toEqual([runs.timeout.id, runs.failed.id]);
    expect(await ids('?min_duration=2m')).toEqual([runs.timeout.id, runs.failed.id]);
    expect(await ids('?min_duration=3m')).toEqual([runs.timeout.id]);
    expect(await ids('?min_duration=800ms')).toHaveLength(4);
  });

  it('filters by since and until, as ISO times or durations ago', async () => {
    const { runs } = s.seed;
    expect(await ids(`?since=${runs.cli.queuedAt.toISOString()}`)).toEqual([
      runs.queued.id,
      runs.cli.id,
    ]);
    expect(await ids(`?until=${encodeURIComponent(runs.failed.queuedAt.toISOString())}`)).toEqual([
      runs.completed.id,
    ]);
    // The queued run was created at the clock's current time; the cli run 60.8 s before.
    expect(await ids('?since=1m')).toEqual([runs.queued.id]);
    expect(await ids('?since=2m')).toEqual([runs.queued.id, runs.cli.id]);
    expect(await ids('?since=2025-06-02')).toEqual([]);
  });

  it('pages with limit and offset; total ignores paging', async () => {
    const answer = await call(`${s.url}${RUNS}?limit=2&offset=1`);
    doc.expectDocumented('get', RUNS, answer);
    expect(answer.body).toMatchObject({ total: 5, limit: 2, offset: 1 });
    expect((answer.body as { items: unknown[] }).items).toHaveLength(2);
  });

  it.each([
    [
      'status=broken',
      'status',
      'must be one or more of queued, running, completed, error, timeout, cancelled, failed, comma-separated',
    ],
    ['status=error,', 'status', 'must be one or more of'],
    [
      'min_duration=5x',
      'min_duration',
      'must be a duration such as 500ms, 5s, 2m, 1h, 7d, or a number of milliseconds',
    ],
    ['min_duration=99999d', 'min_duration', 'must be at most 36500d'],
    ['since=yesterday', 'since', 'must be an ISO 8601 time'],
    ['since=2025-13-45', 'since', 'is not a valid date'],
    ['until=soon', 'until', 'must be an ISO 8601 time'],
    [
      'since=2025',
      'since',
      'must be an ISO 8601 time (2025-01-31T12:00:00Z) or a whole number followed by ms, s, m, h or d (500ms, 5s, 2m, 1h, 7d) meaning that long ago',
    ],
    ['until=36501d', 'until', 'is too long ago (at most 36500d)'],
    ['agent_id=0', 'agent_id', 'must be at least 1'],
    ['source=email', 'source', 'must be one of cli, mcp, api, webhook, cron_scheduler, workflow'],
    ['limit=100000', 'limit', 'must be at most 1000'],
    ['sort=asc', 'sort', 'Unknown query parameter "sort"'],
    ['status=error&status=timeout', 'status', 'must be given once'],
  ])('refuses ?%s with 400 naming %s', async (query, field, words) => {
    const answer = await call(`${s.url}${RUNS}?${query}`);
    const error = expectError(answer, 400, 'INVALID_PARAMETER');
    doc.expectDocumented('get', RUNS, answer);
    expect(error.details).toMatchObject({ field, location: 'query' });
    expect(error.message).toContain(words);
  });

  it('answers 404 ENVIRONMENT_NOT_FOUND for an unknown environment filter', async () => {
    const answer = await call(`${s.url}${RUNS}?environment=staging`);
    expectError(answer, 404, 'ENVIRONMENT_NOT_FOUND');
    doc.expectDocumented('get', RUNS, answer);
  });
});

describe('GET /api/v1/runs/:run_id', () => {
  it('answers the run with its variables redacted and its event count, without events', async () => {
    const { completed } = s.seed.runs;
    const answer = await call(`${s.url}${RUNS}/${completed.id}`);
    expect(answer.status).toBe(200);
    doc.expectDocumented('get', RUN, answer);
    expect(answer.body).toMatchObject({
      run_id: completed.id,
      status: 'completed',
      steps_taken: 2,
      final_response: 'Labelled as bug',
      duration_ms: 5000,
      variables: { REPO: 'junction', GITHUB_TOKEN: '[REDACTED]' },
      event_count: 3,
    });
    expect(answer.body).not.toHaveProperty('events');
    expect(answer.text).not.toContain(SECRET_VARIABLE);
  });

  it('gives cost_usd at the price config.yaml sets, documented; null for a model without one', async () => {
    // config.yaml: pricing: {llama3.2: {input_per_million: 2, output_per_million: 8}}
    const priced = await startServer({
      pricing: createPricing({ 'llama3.2': { input_per_million: 2, output_per_million: 8 } }),
    });
    try {
      const { completed, cli } = priced.seed.runs;
      const answer = await call(`${priced.url}${RUNS}/${completed.id}`);
      expect(answer.status).toBe(200);
      doc.expectDocumented('get', RUN, answer);
      // 120 input tokens × $2 + 40 output tokens × $8 per million.
      expect(answer.body).toMatchObject({
        run_id: completed.id,
        model: 'ollama/llama3.2',
        input_tokens: 120,
        output_tokens: 40,
        cost_usd: 0.00056,
      });
      // The same price in the list; a run that never recorded a model has no cost.
      const list = await call(`${priced.url}${RUNS}`);
      doc.expectDocumented('get', RUNS, list);
      const items = (list.body as { items: Array<Record<string, unknown>> }).items;
      expect(items.find((r) => r.run_id === completed.id)?.cost_usd).toBe(0.00056);
      expect(items.find((r) => r.run_id === cli.id)).toMatchObject({ model: null, cost_usd: null });
    } finally {
      await priced.close();
    }
  });

  it.each(['true', '1'])(
    'includes the events with ?verbose=%s, secret-looking keys redacted',
    async (flag) => {
      const { completed } = s.seed.runs;
      const answer = await call(`${s.url}${RUNS}/${completed.id}?verbose=${flag}`);
      doc.expectDocumented('get', RUN, answer);
      const body = answer.body as { events: Array<Record<string, unknown>> };
      expect(body.events.map((e) => [e.seq, e.type, e.duration_ms])).toEqual([
        [1, 'model_turn', 1200],
        [2, 'tool_call', 30],
        [3, 'model_turn', 900],
      ]);
      expect(body.events[0]?.payload).toEqual({
        step: 1,
        model: 'ollama/llama3.2',
        api_key: '[REDACTED]',
      });
      expect(body.events[1]?.payload).toMatchObject({ tool: 'read_file', success: true });
      expect(answer.text).not.toContain('sk-leak');
    },
  );

  it('answers verbose=false like no flag, and a failed run with its error', async () => {
    const answer = await call(`${s.url}${RUNS}/${s.seed.runs.failed.id}?verbose=false`);
    doc.expectDocumented('get', RUN, answer);
    expect(answer.body).toMatchObject({
      status: 'error',
      error: 'model refused',
      event_count: 0,
      duration_ms: 120_000,
    });
    expect(answer.body).not.toHaveProperty('events');
    const queued = await call(`${s.url}${RUNS}/${s.seed.runs.queued.id}?verbose=true`);
    doc.expectDocumented('get', RUN, queued);
    expect(queued.body).toMatchObject({
      status: 'queued',
      started_at: null,
      duration_ms: null,
      events: [],
    });
  });

  it('answers 404 RUN_NOT_FOUND for an unknown id', async () => {
    const answer = await call(`${s.url}${RUNS}/123456`);
    expect(expectError(answer, 404, 'RUN_NOT_FOUND').message).toBe(
      'No run has id 123456. GET /api/v1/runs lists the runs.',
    );
    doc.expectDocumented('get', RUN, answer);
  });

  it.each([
    ['/abc', 'run_id'],
    ['/0', 'run_id'],
    [`/1?verbose=yes`, 'verbose'],
    [`/1?events=true`, 'events'],
  ])('answers 400 for %s naming %s', async (suffix, field) => {
    const answer = await call(`${s.url}${RUNS}${suffix}`);
    expect(expectError(answer, 400, 'INVALID_PARAMETER').details).toMatchObject({ field });
    doc.expectDocumented('get', RUN, answer);
  });
});

describe("a run's origin", () => {
  it('says the workflow run and step, schedule or platform run that started a run; null for none', async () => {
    const { triage } = s.seed;
    const fromStep = await s.store.runs.create({
      agentId: triage.id,
      agentName: triage.name,
      environmentId: triage.environmentId,
      task: 'a step of a workflow',
      source: 'workflow',
      origin: { workflowRunId: 41, workflowStep: 'label#1' },
    });
    const fromPlatform = await s.store.runs.create({
      agentId: triage.id,
      agentName: triage.name,
      environmentId: triage.environmentId,
      task: 'for the platform',
      source: 'management',
      origin: { platformRunId: 'plat-7' },
    });
    const detail = await call(`${s.url}${RUNS}/${fromStep.id}`);
    doc.expectDocumented('get', RUN, detail);
    expect(detail.body).toMatchObject({
      origin: {
        workflow_run_id: 41,
        workflow_step: 'label#1',
        schedule_id: null,
        platform_run_id: null,
      },
    });
    const list = await call(`${s.url}${RUNS}?source=management`);
    doc.expectDocumented('get', RUNS, list);
    const items = (list.body as { items: Array<{ run_id: number; origin: unknown }> }).items;
    expect(items.find((r) => r.run_id === fromPlatform.id)?.origin).toEqual({
      workflow_run_id: null,
      workflow_step: null,
      schedule_id: null,
      platform_run_id: 'plat-7',
    });
    const direct = await call(`${s.url}${RUNS}/${s.seed.runs.completed.id}`);
    expect(direct.body).toMatchObject({ origin: null });
  });
});
