// Issue 31: one OTLP span whose name or service name held a lone surrogate ("n\ud800"), sent
// to `junction serve`'s receiver, was stored as bytes that are not UTF-8; the next read of
// traces made the libSQL driver panic and the whole process abort (exit 134), killing runs in
// flight — again after every restart. Now the span is stored with U+FFFD and serve keeps running.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { syncedWorkspace } from './run-cli.js';
import { startServe, until, type ServeProcess } from './serve-process.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

let fake: FakeOpenAI;
let env: NodeJS.ProcessEnv;
let serve: ServeProcess;
let api: string;

async function json(url: string): Promise<{ status: number; body: unknown }> {
  let res: Response;
  try {
    res = await fetch(url);
  } catch (err) {
    const { exitCode, signalCode } = serve.child;
    throw new Error(
      `serve did not answer ${url} (exit ${exitCode}, signal ${signalCode}): ${serve.stderr().slice(-800)}`,
      { cause: err },
    );
  }
  return { status: res.status, body: (await res.json()) as unknown };
}

/** One OTLP/JSON export of a span named "n\ud800" in service "s\udc00". */
function exportWithLoneSurrogates(): unknown {
  const now = Date.now();
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 's\udc00' } }] },
        scopeSpans: [
          {
            scope: { name: 'tool' },
            spans: [
              {
                traceId: TRACE_ID,
                spanId: 'b7ad6b7169203331',
                name: 'n\ud800',
                kind: 2,
                startTimeUnixNano: String(now * 1e6),
                endTimeUnixNano: String((now + 5) * 1e6),
                attributes: [{ key: 'path', value: { stringValue: 'v\ud800' } }],
              },
            ],
          },
        ],
      },
    ],
  };
}

beforeAll(async () => {
  fake = await startFakeOpenAI({});
  env = await syncedWorkspace({
    modelUrl: fake.url,
    env: { OPENAI_API_KEY: 'sk-surrogate-1234567890' },
  });
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

describe('a span with a lone surrogate sent to serve', () => {
  it('is kept with U+FFFD, and reading traces leaves serve running', async () => {
    const posted = await fetch(`http://127.0.0.1:${serve.ports.receiver}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(exportWithLoneSurrogates()),
    });
    expect(posted.status).toBe(200);
    const trace = await until('the span to be stored', async () => {
      const got = await json(`${api}/api/v1/traces/${TRACE_ID}`);
      const spans = (got.body as { spans?: { name: string; attributes: unknown }[] }).spans;
      return got.status === 200 && spans !== undefined && spans.length > 0 ? spans : undefined;
    });
    expect(trace).toEqual([
      expect.objectContaining({ name: 'n\ufffd', attributes: { path: 'v\ufffd' } }),
    ]);
    const list = await json(`${api}/api/v1/traces`);
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body)).toContain('n\ufffd');
    const services = await json(`${api}/api/v1/trace-services`);
    expect(services.status).toBe(200);
    expect(JSON.stringify(services.body)).toContain('s\ufffd');
    const viewer = await json(`http://127.0.0.1:${serve.ports.viewer}/api/v1/traces`);
    expect(viewer.status).toBe(200);
    // Still serving: the process did not abort (it answered every read above) and has not exited.
    expect(serve.child.exitCode).toBeNull();
    expect((await json(`${api}/health`)).status).toBe(200);
  }, 60_000);
});
