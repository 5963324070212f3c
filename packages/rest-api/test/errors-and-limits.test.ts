import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Logger, LogFields } from '@junction/telemetry';
import {
  call,
  expectError,
  postJson,
  startServer,
  validatorFor,
  type OpenApiValidator,
  type TestServer,
} from './harness.js';

/** A logger that keeps its records, to see what the server logged about a fault. */
function capturingLogger(
  records: Array<{ level: string; msg: string; fields?: LogFields }>,
): Logger {
  const log =
    (level: string) =>
    (msg: string, fields?: LogFields): void => {
      records.push({ level, msg, ...(fields ? { fields } : {}) });
    };
  const logger: Logger = {
    error: log('error'),
    warn: log('warn'),
    info: log('info'),
    debug: log('debug'),
    child: () => logger,
  };
  return logger;
}

describe('routes and methods', () => {
  let s: TestServer;
  let doc: OpenApiValidator;
  beforeAll(async () => {
    s = await startServer();
    doc = await validatorFor(s);
  });
  afterAll(async () => {
    await s.close();
  });

  it.each(['/api/v1/agent', '/api/v2/agents', '/', '/API/V1/AGENTS', '/api/v1/runs/1/events'])(
    'answers JSON 404 ROUTE_NOT_FOUND for %s, never an HTML page',
    async (path) => {
      const answer = await call(`${s.url}${path}`);
      const error = expectError(answer, 404, 'ROUTE_NOT_FOUND');
      expect(error.message).toBe(
        `No route GET ${path}. GET /api/v1/openapi.json describes the API.`,
      );
      expect(answer.text).not.toMatch(/<html|<!DOCTYPE/i);
    },
  );

  it.each([
    ['DELETE', '/api/v1/agents', 'GET, HEAD', 'get /api/v1/agents'],
    ['POST', '/api/v1/agents/1', 'GET, HEAD', 'get /api/v1/agents/{agent_id}'],
    ['GET', '/api/v1/agents/1/queue', 'POST', 'post /api/v1/agents/{agent_id}/queue'],
    ['PUT', '/api/v1/runs/1', 'GET, HEAD', 'get /api/v1/runs/{run_id}'],
    ['POST', '/health', 'GET, HEAD', 'get /health'],
    ['PATCH', '/metrics', 'GET, HEAD', 'get /metrics'],
  ])('answers %s %s with 405 and Allow: %s', async (method, path, allow, documented) => {
    const before = await s.runCount();
    const answer = await call(`${s.url}${path}`, { method });
    const error = expectError(answer, 405, 'METHOD_NOT_ALLOWED');
    expect(answer.headers.get('allow')).toBe(allow);
    expect(error.message).toBe(`${method} is not allowed on ${path}; use ${allow}.`);
    const [docMethod = '', docPath = ''] = documented.split(' ');
    doc.expectDocumented(docMethod, docPath, answer);
    expect(await s.runCount()).toBe(before);
  });

  it('answers OPTIONS with 204 and Allow', async () => {
    const answer = await call(`${s.url}/api/v1/agents/1/queue`, { method: 'OPTIONS' });
    expect(answer.status).toBe(204);
    expect(answer.headers.get('allow')).toBe('POST');
  });

  it('answers HEAD like GET without a body', async () => {
    const answer = await call(`${s.url}/health`, { method: 'HEAD' });
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('');
  });

  it('answers 400 JSON for malformed percent-encoding in a path', async () => {
    const answer = await call(`${s.url}/api/v1/runs/%E0%A4%A`);
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect((answer.body as { error: { code: string } }).error.code).toBe('INVALID_PARAMETER');
  });
});

describe('body size limit', () => {
  let s: TestServer;
  let doc: OpenApiValidator;
  beforeAll(async () => {
    s = await startServer({ maxBodyBytes: 1024 });
    doc = await validatorFor(s);
  });
  afterAll(async () => {
    await s.close();
  });

  it('answers 413 PAYLOAD_TOO_LARGE over the limit (Content-Length), queueing nothing', async () => {
    const before = await s.runCount();
    const answer = await postJson(`${s.url}/api/v1/agents/${s.seed.triage.id}/queue`, {
      task: 'x'.repeat(2000),
    });
    const error = expectError(answer, 413, 'PAYLOAD_TOO_LARGE');
    doc.expectDocumented('post', '/api/v1/agents/{agent_id}/queue', answer);
    expect(error).toEqual({
      code: 'PAYLOAD_TOO_LARGE',
      message: 'The request body is larger than the limit of 1024 bytes. Send a shorter task.',
      details: { limit_bytes: 1024 },
    });
    expect(await s.runCount()).toBe(before);
  });

  it('answers 413 for a chunked body that grows past the limit', async () => {
    const before = await s.runCount();
    const chunks = [`{"task": "`, 'y'.repeat(800), 'y'.repeat(800), '"}'];
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    const answer = await call(`${s.url}/api/v1/agents/${s.seed.triage.id}/queue`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expectError(answer, 413, 'PAYLOAD_TOO_LARGE');
    expect(await s.runCount()).toBe(before);
  });

  it('accepts a body just under the limit', async () => {
    const answer = await postJson(`${s.url}/api/v1/agents/${s.seed.triage.id}/queue`, {
      task: 'z'.repeat(1000),
    });
    expect(answer.status).toBe(202);
  });
});

describe('server faults', () => {
  const records: Array<{ level: string; msg: string; fields?: LogFields }> = [];
  let s: TestServer;
  let doc: OpenApiValidator;
  beforeAll(async () => {
    s = await startServer({
      logger: capturingLogger(records),
      checkModel: (agent) => {
        if (agent.name === 'helper')
          throw new Error('model registry exploded: key sk-proj-abcdefghijklmnop1234');
      },
    });
    doc = await validatorFor(s);
  });
  afterEach(() => {
    records.length = 0;
  });
  afterAll(async () => {
    await s.close();
  });

  it('answers an unexpected failure with 500 INTERNAL_ERROR, no internals in the body, the cause logged', async () => {
    const before = await s.runCount();
    const answer = await postJson(`${s.url}/api/v1/agents/${s.seed.helper.id}/queue`, {
      task: 'x',
    });
    const error = expectError(answer, 500, 'INTERNAL_ERROR');
    doc.expectDocumented('post', '/api/v1/agents/{agent_id}/queue', answer);
    expect(error.message).toBe(
      'The server failed to answer this request. The cause is in the server log; retry, and report it if it persists.',
    );
    expect(answer.text).not.toContain('exploded');
    expect(await s.runCount()).toBe(before);
    const logged = records.find((r) => r.level === 'error');
    expect(logged?.msg).toBe('REST request failed');
    expect(String(logged?.fields?.error)).toContain('model registry exploded');
    expect(String(logged?.fields?.error)).not.toContain('sk-proj-abcdefghijklmnop1234');
  });

  it('logs a queued run at info', async () => {
    const answer = await postJson(`${s.url}/api/v1/agents/${s.seed.triage.id}/queue`, {
      task: 'x',
    });
    expect(answer.status).toBe(202);
    expect(records).toContainEqual({
      level: 'info',
      msg: 'run queued',
      fields: {
        run_id: (answer.body as { run_id: number }).run_id,
        agent_id: s.seed.triage.id,
        agent_name: 'triage',
        source: 'api',
      },
    });
  });
});

describe('database down', () => {
  let s: TestServer;
  let doc: OpenApiValidator;
  beforeAll(async () => {
    s = await startServer({ scheduler: 'stopped' });
    doc = await validatorFor(s);
    await s.store.close();
  });
  afterAll(async () => {
    await s.close();
  });

  it('answers /health 503 unhealthy, naming the database failure', async () => {
    const answer = await call(`${s.url}/health`);
    expect(answer.status).toBe(503);
    doc.expectDocumented('get', '/health', answer);
    expect(answer.body).toEqual({
      status: 'unhealthy',
      version: '1.2.3-test',
      uptime: '1h 2m 3s',
      agents: null,
      mcp_servers: null,
      database: 'Cannot ping the database: this store was closed. Open it again with openStore().',
      scheduler: 'stopped',
      management: 'disabled',
      traces: { export: 'nowhere', receiver: null, viewer: null },
      workers: { runs: 0, in_flight: 0, workflows: false },
      queue: { bus: null, connected: false },
    });
  });

  it('answers API routes 503 DATABASE_UNAVAILABLE, queueing nothing', async () => {
    const list = await call(`${s.url}/api/v1/agents`);
    expectError(list, 503, 'DATABASE_UNAVAILABLE');
    doc.expectDocumented('get', '/api/v1/agents', list);
    const queue = await postJson(`${s.url}/api/v1/agents/${s.seed.triage.id}/queue`, { task: 'x' });
    expectError(queue, 503, 'DATABASE_UNAVAILABLE');
    doc.expectDocumented('post', '/api/v1/agents/{agent_id}/queue', queue);
  });

  it('still renders /metrics, leaving out the gauges it cannot read', async () => {
    const answer = await call(`${s.url}/metrics`);
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('# TYPE database_size_bytes gauge');
    expect(answer.text).not.toMatch(/\ndatabase_size_bytes \d/);
    expect(answer.text).toMatch(/\nstation_uptime_seconds \d/);
  });
});

describe('a database that does not answer', () => {
  it('answers /health 503 once the health timeout passes', async () => {
    const s = await startServer({
      healthTimeoutMs: 100,
      // The real store, except that ping never settles (a remote database gone silent).
      routerStore: (store) =>
        new Proxy(store, {
          get: (target, prop) =>
            prop === 'ping'
              ? (): Promise<void> => new Promise<void>(() => undefined)
              : Reflect.get(target, prop),
        }),
    });
    try {
      const started = Date.now();
      const answer = await call(`${s.url}/health`);
      expect(Date.now() - started).toBeLessThan(2000);
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({
        status: 'unhealthy',
        database: 'the database did not answer within 100 ms',
      });
    } finally {
      await s.close();
    }
  });
});

describe('with workers', () => {
  it('runs a queued run: 202 queued, then the run completes and GET shows it', async () => {
    const s = await startServer({ startWorkers: true, scheduler: 'started' });
    try {
      const queued = await postJson(`${s.url}/api/v1/agents/${s.seed.triage.id}/queue`, {
        task: 'Sort issue #9',
      });
      expect(queued.status).toBe(202);
      expect(['queued', 'running']).toContain((queued.body as { status: string }).status);
      const runId = (queued.body as { run_id: number }).run_id;
      let run: Record<string, unknown> = {};
      for (let i = 0; i < 100; i += 1) {
        run = (await call(`${s.url}/api/v1/runs/${runId}`)).body as Record<string, unknown>;
        if (run.status === 'completed') break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(run).toMatchObject({ status: 'completed', final_response: 'done: Sort issue #9' });
      expect((await call(`${s.url}/health`)).body).toMatchObject({ scheduler: 'running' });
    } finally {
      await s.close();
    }
  });

  it('reports scheduler "disabled" when the process runs no workers', async () => {
    const s = await startServer();
    try {
      expect((await call(`${s.url}/health`)).body).toMatchObject({
        status: 'healthy',
        scheduler: 'disabled',
      });
    } finally {
      await s.close();
    }
  });
});
