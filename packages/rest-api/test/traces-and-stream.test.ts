// The routes the dashboard and the trace viewer read (issue 19): traces from the store, the MCP
// servers with their tools, and the run list as Server-Sent Events.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SpanRecord } from '@junction/store';
import {
  call,
  expectError,
  startServer,
  validatorFor,
  type OpenApiValidator,
  type TestServer,
} from './harness.js';
import { RUN_STREAM_BUS_POLL_MS } from '../src/routes/run-stream.js';
import { eventually } from '@junction/tooling/fixtures/eventually.mjs';

async function until(check: () => boolean): Promise<void> {
  await eventually(check.toString(), check, { everyMs: 20 });
}

let s: TestServer;
let doc: OpenApiValidator;

const TRACE = 'ab'.repeat(16);
const OTHER = 'cd'.repeat(16);
const START_US = Date.parse('2025-06-01T11:59:00.000Z') * 1000;

function span(fields: Partial<SpanRecord> & Pick<SpanRecord, 'spanId' | 'name'>): SpanRecord {
  return {
    traceId: TRACE,
    parentSpanId: null,
    kind: 1,
    serviceName: 'junction',
    scopeName: 'junction',
    startUs: START_US,
    durationUs: 1000,
    statusCode: 0,
    statusMessage: null,
    attributes: {},
    events: [],
    resource: { 'service.name': 'junction' },
    runId: null,
    ...fields,
  };
}

beforeAll(async () => {
  s = await startServer();
  doc = await validatorFor(s);
  const runId = s.seed.runs.failed.id;
  await s.store.spans.insert([
    span({
      spanId: '1'.repeat(16),
      name: 'agent.execute',
      durationUs: 5000,
      statusCode: 2,
      statusMessage: 'model gpt-test does not exist',
      attributes: { run_id: runId, 'gen_ai.operation.name': 'invoke_agent' },
      events: [
        {
          name: 'exception',
          timeUs: START_US + 4000,
          attributes: { 'exception.message': 'model gpt-test does not exist' },
        },
      ],
      runId,
    }),
    span({
      spanId: '2'.repeat(16),
      parentSpanId: '1'.repeat(16),
      name: 'llm.generate',
      kind: 3,
      startUs: START_US + 100,
      durationUs: 3000,
      attributes: { run_id: runId, 'gen_ai.usage.input_tokens': 11 },
      runId,
    }),
    span({
      traceId: OTHER,
      spanId: '3'.repeat(16),
      name: 'list_files',
      serviceName: 'filesystem-server',
      startUs: START_US + 10_000_000,
    }),
  ]);
});
afterAll(async () => {
  await s.close();
});

describe('GET /api/v1/traces', () => {
  it('finds traces by service, operation, run id and status, newest first', async () => {
    const all = await call(`${s.url}/api/v1/traces`);
    expect(all.status).toBe(200);
    doc.expectDocumented('get', '/api/v1/traces', all);
    const traces = (all.body as { traces: Array<Record<string, unknown>> }).traces;
    expect(traces.map((t) => t.trace_id)).toEqual([OTHER, TRACE]);
    expect(traces[1]).toMatchObject({
      root_name: 'agent.execute',
      root_service: 'junction',
      span_count: 2,
      error_count: 1,
      duration_ms: 5,
      run_ids: [s.seed.runs.failed.id],
      start_time: '2025-06-01T11:59:00.000Z',
    });
    const byRun = await call(`${s.url}/api/v1/traces?run_id=${s.seed.runs.failed.id}`);
    expect((byRun.body as { traces: unknown[] }).traces).toHaveLength(1);
    const errors = await call(`${s.url}/api/v1/traces?status=error`);
    expect(
      (errors.body as { traces: Array<{ trace_id: string }> }).traces.map((t) => t.trace_id),
    ).toEqual([TRACE]);
    const ok = await call(`${s.url}/api/v1/traces?status=ok&service=filesystem-server`);
    expect(
      (ok.body as { traces: Array<{ trace_id: string }> }).traces.map((t) => t.trace_id),
    ).toEqual([OTHER]);
    const operation = await call(`${s.url}/api/v1/traces?operation=llm.generate`);
    expect((operation.body as { traces: unknown[] }).traces).toHaveLength(1);
    const none = await call(`${s.url}/api/v1/traces?service=nobody`);
    expect(none.body).toEqual({ traces: [] });
  });

  it('refuses a bad search naming the parameter', async () => {
    for (const query of ['status=broken', 'run_id=x', 'limit=500', 'since=yesterday', 'nope=1']) {
      const answer = await call(`${s.url}/api/v1/traces?${query}`);
      expectError(answer, 400, 'INVALID_PARAMETER');
      doc.expectDocumented('get', '/api/v1/traces', answer);
    }
  });
});

describe('GET /api/v1/traces/:trace_id', () => {
  it('answers every span of the trace with kind, status, attributes and events', async () => {
    const answer = await call(`${s.url}/api/v1/traces/${TRACE.toUpperCase()}`);
    expect(answer.status).toBe(200);
    doc.expectDocumented('get', '/api/v1/traces/{trace_id}', answer);
    const body = answer.body as { trace_id: string; spans: Array<Record<string, unknown>> };
    expect(body.trace_id).toBe(TRACE);
    expect(body.spans.map((x) => [x.name, x.kind, x.status, x.parent_span_id])).toEqual([
      ['agent.execute', 'internal', 'error', null],
      ['llm.generate', 'client', 'unset', '1'.repeat(16)],
    ]);
    expect(body.spans[0]).toMatchObject({
      status_message: 'model gpt-test does not exist',
      run_id: s.seed.runs.failed.id,
      duration_ms: 5,
      events: [{ name: 'exception', time: '2025-06-01T11:59:00.004Z' }],
    });
  });

  it('answers 404 TRACE_NOT_FOUND for an unknown trace and 400 for a malformed id', async () => {
    const missing = await call(`${s.url}/api/v1/traces/${'ef'.repeat(16)}`);
    expect(expectError(missing, 404, 'TRACE_NOT_FOUND').message).toContain('retention');
    doc.expectDocumented('get', '/api/v1/traces/{trace_id}', missing);
    const bad = await call(`${s.url}/api/v1/traces/not-a-trace`);
    expectError(bad, 400, 'INVALID_PARAMETER');
  });
});

describe('GET /api/v1/trace-services', () => {
  it('lists services with their span names', async () => {
    const answer = await call(`${s.url}/api/v1/trace-services`);
    doc.expectDocumented('get', '/api/v1/trace-services', answer);
    expect(answer.body).toEqual({
      services: [
        { name: 'filesystem-server', operations: ['list_files'] },
        { name: 'junction', operations: ['agent.execute', 'llm.generate'] },
      ],
    });
  });
});

describe('GET /api/v1/mcp-servers', () => {
  it('lists servers with status, error and tools, by environment', async () => {
    const answer = await call(`${s.url}/api/v1/mcp-servers`);
    expect(answer.status).toBe(200);
    doc.expectDocumented('get', '/api/v1/mcp-servers', answer);
    const servers = (answer.body as { mcp_servers: Array<Record<string, unknown>> }).mcp_servers;
    expect(servers.map((x) => [x.environment, x.name, x.status])).toEqual([
      ['default', 'filesystem', 'connected'],
      ['default', 'web', 'never synced'],
      ['production', 'filesystem', 'error'],
    ]);
    expect(servers[0]!.tools).toEqual([
      { name: 'read_file', description: 'Read a file' },
      { name: 'write_file', description: 'Write a file' },
    ]);
    expect(servers[2]!.error).toBe('spawn failed');
    const prod = await call(`${s.url}/api/v1/mcp-servers?environment=production`);
    expect((prod.body as { mcp_servers: unknown[] }).mcp_servers).toHaveLength(1);
    expectError(
      await call(`${s.url}/api/v1/mcp-servers?environment=nope`),
      404,
      'ENVIRONMENT_NOT_FOUND',
    );
  });
});

/** Reads SSE messages from a fetch body until `enough` says stop (or 10 s pass). */
async function readEvents(
  url: string,
  enough: (events: Array<{ event: string; data: string }>) => boolean,
): Promise<{ headers: Headers; events: Array<{ event: string; data: string }> }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 10_000);
  const res = await fetch(url, { signal: controller.signal });
  const events: Array<{ event: string; data: string }> = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    while (!enough(events)) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event !== undefined && data !== undefined) events.push({ event, data });
      }
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return { headers: res.headers, events };
}

describe('GET /api/v1/runs/stream', () => {
  it('sends the page at once, then again when a run appears', async () => {
    const before = await s.runCount();
    const reading = readEvents(
      `${s.url}/api/v1/runs/stream?agent=helper`,
      (events) => events.length >= 2,
    );
    // A new run of the agent after the first page went out.
    setTimeout(() => {
      void s.store.runs.create({
        agentId: s.seed.helper.id,
        agentName: 'helper',
        environmentId: s.seed.envDefault,
        task: 'streamed',
        variables: {},
        source: 'api',
      });
    }, 700);
    const { headers, events } = await reading;
    expect(headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(events.map((e) => e.event)).toEqual(['runs', 'runs']);
    const first = JSON.parse(events[0]!.data) as { runs: Array<{ task: string }>; total: number };
    const second = JSON.parse(events[1]!.data) as {
      runs: Array<{ task: string; agent_name: string }>;
      total: number;
    };
    expect(second.total).toBe(first.total + 1);
    expect(second.runs[0]).toMatchObject({ task: 'streamed', agent_name: 'helper' });
    expect(await s.runCount()).toBe(before + 1);
  });

  it('with the run bus up, looks at the store when a change is told, not on its slow poll', async () => {
    const listeners = new Set<() => void>();
    const told = await startServer({
      runChanges: {
        connected: () => true,
        subscribe: (listener) => {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
      },
    });
    try {
      const started = Date.now();
      const reading = readEvents(
        `${told.url}/api/v1/runs/stream?agent=helper`,
        (events) => events.length >= 2,
      );
      await until(() => listeners.size === 1);
      // Written without a word: the stream would see it only at its 5 s look.
      await told.store.runs.create({
        agentId: told.seed.helper.id,
        agentName: 'helper',
        environmentId: told.seed.envDefault,
        task: 'told',
        variables: {},
        source: 'api',
      });
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      for (const listener of listeners) listener();
      const { events } = await reading;
      const second = JSON.parse(events[1]!.data) as { runs: Array<{ task: string }> };
      expect(second.runs[0]).toMatchObject({ task: 'told' });
      expect(Date.now() - started).toBeLessThan(RUN_STREAM_BUS_POLL_MS);
    } finally {
      await told.close();
    }
    // The stream let go of the bus when its client went.
    await until(() => listeners.size === 0);
  });

  it('refuses a bad filter before streaming, as JSON', async () => {
    const answer = await call(`${s.url}/api/v1/runs/stream?status=nope`);
    expectError(answer, 400, 'INVALID_PARAMETER');
    expectError(
      await call(`${s.url}/api/v1/runs/stream?environment=nope`),
      404,
      'ENVIRONMENT_NOT_FOUND',
    );
  });
});
