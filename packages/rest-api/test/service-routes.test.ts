import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { METRIC_NAMES } from '@junction/telemetry';
import { servedRoutes } from '../src/route-table.js';
import {
  call,
  expectError,
  startServer,
  validatorFor,
  type OpenApiValidator,
  type TestServer,
} from './harness.js';
import { Scheduler } from '@junction/scheduler';
import { createNoopLogger } from '@junction/telemetry';

let s: TestServer;
let doc: OpenApiValidator;
beforeAll(async () => {
  s = await startServer({ scheduler: 'started' });
  doc = await validatorFor(s);
});
afterAll(async () => {
  await s.close();
});

describe('GET /api/v1/environments', () => {
  it('lists environments by name with their counts', async () => {
    const answer = await call(`${s.url}/api/v1/environments`);
    expect(answer.status).toBe(200);
    doc.expectDocumented('get', '/api/v1/environments', answer);
    expect(answer.body).toEqual({
      items: [
        {
          id: s.seed.envDefault,
          name: 'default',
          agents: 2,
          mcp_configs: 0,
          mcp_servers: 2,
          tools: 2,
          last_synced_at: null,
        },
        {
          id: s.seed.envProd,
          name: 'production',
          agents: 1,
          mcp_configs: 0,
          mcp_servers: 1,
          tools: 0,
          last_synced_at: null,
        },
      ],
      total: 2,
      limit: 50,
      offset: 0,
    });
  });

  it('pages, and refuses bad paging naming the parameter', async () => {
    const page = await call(`${s.url}/api/v1/environments?limit=1&offset=1`);
    doc.expectDocumented('get', '/api/v1/environments', page);
    expect(page.body).toMatchObject({ total: 2, items: [{ name: 'production' }] });
    const bad = await call(`${s.url}/api/v1/environments?offset=x`);
    expect(expectError(bad, 400, 'INVALID_PARAMETER').details).toMatchObject({ field: 'offset' });
    doc.expectDocumented('get', '/api/v1/environments', bad);
  });
});

describe('GET /api/v1/openapi.json', () => {
  it('is an OpenAPI 3.1 document naming every route of the router with its parameters', async () => {
    const answer = await call(`${s.url}/api/v1/openapi.json`);
    const body = answer.body as {
      openapi: string;
      info: { version: string };
      paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }> }>>;
      security?: unknown;
    };
    expect(body.openapi).toBe('3.1.0');
    expect(body.info.version).toBe('1.2.3-test');
    // No keys configured: no security requirement is declared.
    expect(body.security).toBeUndefined();
    // This server has no workflow door: workflows.test.ts checks the document with one.
    for (const route of servedRoutes({ workflows: false })) {
      const apiPath = route.path.replace(/:([a-z_]+)/g, '{$1}');
      const op = body.paths[apiPath]?.[route.method];
      expect(op).toBeDefined();
      const names = (op?.parameters ?? []).map((p) => `${p.in}:${p.name}`).sort();
      expect(names).toEqual(
        [
          ...route.pathParams.map((p) => `path:${p.name}`),
          ...Object.keys(route.query).map((q) => `query:${q}`),
        ].sort(),
      );
    }
    expect(Object.keys(body.paths).sort()).toEqual([
      '/api/v1/agents',
      '/api/v1/agents/{agent_id}',
      '/api/v1/agents/{agent_id}/queue',
      '/api/v1/environments',
      '/api/v1/mcp-servers',
      '/api/v1/openapi.json',
      '/api/v1/runs',
      '/api/v1/runs/stream',
      '/api/v1/runs/{run_id}',
      '/api/v1/runs/{run_id}/cancel',
      '/api/v1/schedules',
      '/api/v1/schedules/{schedule_id}',
      '/api/v1/schedules/{schedule_id}/run',
      '/api/v1/trace-services',
      '/api/v1/traces',
      '/api/v1/traces/{trace_id}',
      '/health',
      '/metrics',
    ]);
  });

  it('documents the queue request body and refuses a body the schema refuses', async () => {
    const op = doc.operation('post', '/api/v1/agents/{agent_id}/queue') as {
      requestBody: { content: Record<string, { schema: Record<string, unknown> }> };
    };
    expect(op.requestBody.content['application/json']?.schema).toMatchObject({
      type: 'object',
      required: ['task'],
      additionalProperties: false,
    });
  });

  it('has schemas strict enough to catch a wrong answer (the validation is not vacuous)', async () => {
    const good = await call(`${s.url}/api/v1/runs/${s.seed.runs.completed.id}`);
    doc.expectDocumented('get', '/api/v1/runs/{run_id}', good);
    const withExtra = { ...good, body: { ...(good.body as object), surprise: 1 } };
    expect(() => doc.expectDocumented('get', '/api/v1/runs/{run_id}', withExtra)).toThrow(
      /must NOT have additional properties/,
    );
    const wrongType = { ...good, body: { ...(good.body as object), steps_taken: '2' } };
    expect(() => doc.expectDocumented('get', '/api/v1/runs/{run_id}', wrongType)).toThrow(
      /must be integer/,
    );
    const badDate = { ...good, body: { ...(good.body as object), queued_at: 'yesterday' } };
    expect(() => doc.expectDocumented('get', '/api/v1/runs/{run_id}', badDate)).toThrow(
      /date-time/,
    );
    expect(() =>
      doc.expectDocumented('get', '/api/v1/runs/{run_id}', { ...good, status: 418 }),
    ).toThrow();
  });
});

describe('GET /health', () => {
  it('answers healthy with version, human uptime, counts, database ok and the scheduler state', async () => {
    const answer = await call(`${s.url}/health`);
    expect(answer.status).toBe(200);
    doc.expectDocumented('get', '/health', answer);
    expect(answer.body).toEqual({
      status: 'healthy',
      version: '1.2.3-test',
      // The harness starts the router 1h 2m 3s after startedAt on its clock.
      uptime: '1h 2m 3s',
      agents: 3,
      mcp_servers: 3,
      database: 'ok',
      scheduler: 'running',
      management: 'disabled',
      traces: { export: 'nowhere', receiver: null, viewer: null },
      workers: { runs: 0, in_flight: 0, workflows: false },
      queue: { bus: null, connected: false },
    });
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });

  it('reports scheduler "standby" while another process holds the lease, "stopped" once stopped, still healthy', async () => {
    const other = await startServer({ scheduler: 'stopped' });
    try {
      // A second process on the same store: it stands by while the first holds the lease.
      const second = new Scheduler({
        store: s.store,
        runs: { submit: () => Promise.reject(new Error('not used')) },
        logger: createNoopLogger(),
        owner: 'second',
      });
      await second.start();
      expect(second.status()).toBe('standby');
      await second.stop();
      await s.scheduler?.stop();
      const answer = await call(`${s.url}/health`);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ status: 'healthy', scheduler: 'stopped' });
      expect((await call(`${other.url}/health`)).body).toMatchObject({ scheduler: 'stopped' });
      await s.scheduler?.start();
      expect((await call(`${s.url}/health`)).body).toMatchObject({ scheduler: 'running' });
    } finally {
      await other.close();
    }
  });
});

describe('GET /metrics', () => {
  it('answers the Prometheus text with all 14 spec metric names, gauges read at scrape time', async () => {
    const answer = await call(`${s.url}/metrics`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const names = Object.values(METRIC_NAMES);
    expect(names).toHaveLength(14);
    for (const name of names) expect(answer.text).toContain(`# TYPE ${name} `);
    // No schedule is due (the seed has none); one server whose last sync connected.
    expect(answer.text).toContain('\nscheduler_runs_pending 0\n');
    expect(answer.text).toContain('\nmcp_servers_active 1\n');
    expect(answer.text).toMatch(/\ndatabase_size_bytes [1-9]\d*\n/);
    expect(answer.text).toMatch(/\nstation_uptime_seconds \d+/);
    expect(doc.operation('get', '/metrics')).toMatchObject({
      responses: {
        200: { content: { 'text/plain; version=0.0.4': { schema: { type: 'string' } } } },
      },
    });

    // A schedule due and not yet fired counts (the scheduler here fires on its own clock).
    await s.store.schedules.set(
      {
        kind: 'agent',
        id: s.seed.triage.id,
        name: 'triage',
        environmentId: s.seed.triage.environmentId,
      },
      { cron: '0 9 * * *', origin: 'operator', nextRunAt: new Date(0) },
    );
    await s.scheduler?.stop();
    const again = await call(`${s.url}/metrics`);
    expect(again.text).toContain('\nscheduler_runs_pending 1\n');
    await s.store.schedules.remove((await s.store.schedules.list())[0]!.id);
    await s.scheduler?.start();
  });
});
