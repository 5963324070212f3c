// Traces kept by Junction itself, end to end (issue 19): `serve` keeps its own spans and serves
// the receiver and viewer; a one-off `agent run` exports to the running serve's receiver; log
// lines name the run's trace; `junction traces` runs the receiver and viewer alone; a port
// someone else holds is a warning for serve and an error for `junction traces`.
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { runCliAsync, syncedWorkspace, baseEnv } from './run-cli.js';
import { freePort, startServe, until, type ServeProcess } from './serve-process.js';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const KEY = 'sk-traces-cli-key-1234567890';
const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bin/run.js');

let fake: FakeOpenAI;
let env: NodeJS.ProcessEnv;
let serve: ServeProcess;
let api: string;

interface TraceSummary {
  trace_id: string;
  root_name: string;
  span_count: number;
  error_count: number;
  run_ids: number[];
}
interface SpanView {
  name: string;
  kind: string;
  status: string;
  span_id: string;
  parent_span_id: string | null;
  attributes: Record<string, unknown>;
  run_id: number | null;
}

async function json<T>(url: string): Promise<{ status: number; body: T }> {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as T };
}

/** The stored trace of run `runId`, once its spans have been written. */
async function traceOfRun(runId: number): Promise<SpanView[]> {
  const found = await until(`the trace of run ${runId}`, async () => {
    const list = await json<{ traces: TraceSummary[] }>(`${api}/api/v1/traces?run_id=${runId}`);
    const trace = list.body.traces[0];
    return trace && trace.span_count >= 3 ? trace : undefined;
  });
  return (await json<{ spans: SpanView[] }>(`${api}/api/v1/traces/${found.trace_id}`)).body.spans;
}

beforeAll(async () => {
  fake = await startFakeOpenAI({});
  env = await syncedWorkspace({ modelUrl: fake.url, env: { OPENAI_API_KEY: KEY } });
  serve = await startServe(env);
  await serve.ready;
  api = `http://127.0.0.1:${serve.ports.api}`;
}, 90_000);

afterAll(async () => {
  if (serve) {
    serve.child.kill('SIGTERM');
    await serve.exit;
  }
  await fake?.close();
});

describe('serve keeps traces', () => {
  it('says where traces go in the start-up line and /health', async () => {
    const receiver = `http://127.0.0.1:${serve.ports.receiver}/v1/traces`;
    const viewer = `http://127.0.0.1:${serve.ports.viewer}`;
    expect(serve.stdout()).toContain(`dashboard http://127.0.0.1:${serve.ports.api}/ui/`);
    expect(serve.stdout()).toContain(
      `traces   spans → local store · viewer ${viewer} · receiver ${receiver}`,
    );
    const health = await json<{ traces: unknown }>(`${api}/health`);
    expect(health.body.traces).toEqual({ export: 'local store', receiver, viewer });
    // The receiver path takes POST only.
    const get = await fetch(receiver);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it("stores a run's spans with the conventions, and its log line names the trace", async () => {
    fake.script([
      { toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }] },
      { text: 'The sum is 5.' },
    ]);
    const res = await fetch(`${api}/api/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agent_name: 'assistant', task: 'Add 2 and 3' }),
    });
    const runId = ((await res.json()) as { run_id: number }).run_id;
    const spans = await traceOfRun(runId);
    const root = spans.find((s) => s.name === 'agent.execute')!;
    expect(root).toMatchObject({ kind: 'internal', parent_span_id: null, run_id: runId });
    expect(root.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent' });
    const tool = spans.find((s) => s.name === 'tool.call')!;
    expect(tool).toMatchObject({ kind: 'client', parent_span_id: root.span_id, run_id: runId });
    expect(tool.attributes).toMatchObject({ 'gen_ai.tool.name': 'add' });
    for (const span of spans) expect(span.run_id).toBe(runId);

    const run = await json<{ trace_id: string }>(`${api}/api/v1/runs/${runId}`);
    const log = readFileSync(
      path.join(String(env.XDG_CONFIG_HOME), 'junction', 'logs', 'junction.log'),
      'utf8',
    );
    const line = log
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'run completed' && l.run_id === runId);
    expect(line?.trace_id).toBe(run.body.trace_id);
  });

  it('records a failed run as ERROR', async () => {
    fake.script([{ error: { status: 400, message: 'model gpt-test does not exist' } }]);
    const res = await fetch(`${api}/api/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agent_name: 'assistant', task: 'fail please' }),
    });
    const runId = ((await res.json()) as { run_id: number }).run_id;
    const found = await until('the failed trace', async () => {
      const list = await json<{ traces: TraceSummary[] }>(
        `${api}/api/v1/traces?run_id=${runId}&status=error`,
      );
      return list.body.traces[0];
    });
    expect(found.root_name).toBe('agent.execute');
    const spans = (await json<{ spans: SpanView[] }>(`${api}/api/v1/traces/${found.trace_id}`)).body
      .spans;
    expect(spans.find((s) => s.name === 'agent.execute')?.status).toBe('error');
  });

  it("exports a one-off agent run's spans to the running serve's receiver", async () => {
    fake.script([{ text: 'hello from a second terminal' }]);
    const run = await runCliAsync(['agent', 'run', 'assistant', 'say hello', '--json'], env);
    expect(run.status).toBe(0);
    const runId = (JSON.parse(run.stdout) as { run_id: number }).run_id;
    const found = await until('the one-off run trace', async () => {
      const list = await json<{ traces: TraceSummary[] }>(`${api}/api/v1/traces?run_id=${runId}`);
      return list.body.traces[0];
    });
    expect(found.root_name).toBe('agent.execute');
  });
});

describe('docs/traces.md', () => {
  const doc = readFileSync(
    path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs/traces.md'),
    'utf8',
  );

  it('shows the start-up lines serve prints (ports aside)', () => {
    const shown = (text: string): string => text.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>');
    for (const line of doc.split('\n').filter((l) => /^ {2}(dashboard|traces) /.test(l))) {
      expect(shown(serve.stdout())).toContain(shown(line));
    }
  });

  it('answers every REST example of the page', async () => {
    const examples = [...doc.matchAll(/^GET (\/api\/v1\/\S+)$/gm)].map((m) => m[1]!);
    expect(examples.length).toBeGreaterThanOrEqual(3);
    const someTrace = (await json<{ traces: TraceSummary[] }>(`${api}/api/v1/traces`)).body
      .traces[0]!.trace_id;
    for (const example of examples) {
      const url = `${api}${example.replace('<trace_id>', someTrace).replace('run_id=12', 'run_id=1')}`;
      const answer = await fetch(url);
      expect({ example, status: answer.status }).toEqual({ example, status: 200 });
    }
  });
});

describe('junction traces', () => {
  it('runs the receiver and viewer alone: an OTLP/JSON export lands and is found', async () => {
    const receiverPort = await freePort();
    const viewerPort = await freePort();
    const child = spawn(
      process.execPath,
      [bin, 'traces', '--receiver-port', String(receiverPort), '--viewer-port', String(viewerPort)],
      { env: { ...baseEnv(), ...env } },
    );
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      await until('junction traces to start', async () =>
        out.includes('retention') ? true : undefined,
      );
      expect(out).toContain(`receiver  http://127.0.0.1:${receiverPort}/v1/traces → local store`);
      const traceId = '0af7651916cd43dd8448eb211c80319c';
      const body = {
        resourceSpans: [
          {
            resource: {
              attributes: [{ key: 'service.name', value: { stringValue: 'my-tool-server' } }],
            },
            scopeSpans: [
              {
                scope: { name: 'tool' },
                spans: [
                  {
                    traceId,
                    spanId: 'b7ad6b7169203331',
                    name: 'read_file',
                    kind: 2,
                    startTimeUnixNano: String(Date.now() * 1e6),
                    endTimeUnixNano: String((Date.now() + 5) * 1e6),
                    attributes: [{ key: 'path', value: { stringValue: '/tmp/x' } }],
                  },
                ],
              },
            ],
          },
        ],
      };
      const posted = await fetch(`http://127.0.0.1:${receiverPort}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(posted.status).toBe(200);
      const viewer = `http://127.0.0.1:${viewerPort}`;
      const trace = await json<{ spans: SpanView[] }>(`${viewer}/api/v1/traces/${traceId}`);
      expect(trace.body.spans).toEqual([
        expect.objectContaining({
          name: 'read_file',
          kind: 'server',
          attributes: { path: '/tmp/x' },
        }),
      ]);
      // The same store: serve's REST sees it too.
      const there = await json<{ traces: TraceSummary[] }>(
        `${api}/api/v1/traces?service=my-tool-server`,
      );
      expect(there.body.traces.map((t) => t.trace_id)).toEqual([traceId]);
      const page = await fetch(`${viewer}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it('exits 5 naming the flag when its port is taken, and 3 when traces are disabled', async () => {
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', () => r()));
    const taken = (holder.address() as net.AddressInfo).port;
    try {
      const refused = await runCliAsync(
        ['traces', '--receiver-port', String(taken), '--viewer-port', String(await freePort())],
        env,
      );
      expect(refused.status).toBe(5);
      expect(refused.stderr).toContain(`Port ${taken} (OTLP trace receiver) is already in use`);
      expect(refused.stderr).toContain('--receiver-port');
    } finally {
      holder.close();
    }
    const disabled = await runCliAsync(['traces'], { ...env, JUNCTION_TRACES_ENABLED: 'false' });
    expect(disabled.status).toBe(3);
    expect(disabled.stderr).toContain('traces.enabled is false');
  });

  it('lets serve go on without a receiver whose port is taken, saying so', async () => {
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', () => r()));
    const taken = (holder.address() as net.AddressInfo).port;
    const other = await startServe(env, { receiver: taken });
    try {
      await other.ready;
      expect(other.stderr()).toContain('Warning: OTLP trace receiver not started');
      const health = await json<{ status: string; traces: { receiver: string | null } }>(
        `http://127.0.0.1:${other.ports.api}/health`,
      );
      expect(health.body.status).toBe('healthy');
      expect(health.body.traces.receiver).toBeNull();
    } finally {
      other.child.kill('SIGTERM');
      await other.exit;
      holder.close();
    }
  });
});
