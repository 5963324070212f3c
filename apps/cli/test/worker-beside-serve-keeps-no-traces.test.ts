// `junction worker` beside a `serve` of the same workspace kept no traces (/health said
// `traces.export: "nowhere"`) when it started before serve: it looked for serve's receiver once,
// at start (issue 31). It now looks each time spans are sent (service-kit's
// LocalReceiverExporter over findLocalReceiver, as one-off commands do), so its runs' spans
// reach the receiver whenever one runs.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { runCliAsync, syncedWorkspace } from './run-cli.js';
import { plainHosts, startHost, type HostProcess } from './hosts.js';
import { freePort, startServe, until, type ServeProcess } from './serve-process.js';

let fake: FakeOpenAI;
let env: NodeJS.ProcessEnv;
let worker: HostProcess | undefined;
let serve: ServeProcess | undefined;
let healthPort: number;

beforeAll(async () => {
  fake = await startFakeOpenAI({});
  env = await syncedWorkspace({
    modelUrl: fake.url,
    env: { OPENAI_API_KEY: 'sk-worker-traces-key-12345678' },
  });
}, 120_000);

afterAll(async () => {
  for (const p of [worker?.child, serve?.child]) if (p && p.exitCode === null) p.kill('SIGTERM');
  await Promise.all([worker?.exit, serve?.exit]);
  await fake?.close();
  if (env.XDG_CONFIG_HOME) rmSync(env.XDG_CONFIG_HOME, { recursive: true, force: true });
}, 120_000);

describe('a worker started before serve', () => {
  it("sends its runs' spans to serve's receiver once serve runs", async () => {
    healthPort = await freePort();
    worker = startHost(
      plainHosts(),
      0,
      ['worker', '--concurrency', '1', '--health-port', String(healthPort)],
      env,
      '  queue ',
    );
    await worker.ready;
    const health = (await (await fetch(`http://127.0.0.1:${healthPort}/health`)).json()) as {
      traces: { export: string };
    };
    expect(health.traces.export).not.toBe('nowhere');

    serve = await startServe(env, {}, ['--no-workers']);
    await serve.ready;
    const api = `http://127.0.0.1:${serve.ports.api}`;
    const run = await runCliAsync(
      ['agent', 'run', 'assistant', 'add 2 and 3', '--queue', '--json'],
      env,
    );
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    const runId = (JSON.parse(run.stdout) as { run_id: number }).run_id;
    const trace = await until(`the trace of run ${runId} in serve's store`, async () => {
      const res = await fetch(`${api}/api/v1/traces?run_id=${runId}`);
      const body = (await res.json()) as {
        traces: Array<{ span_count: number; root_name: string }>;
      };
      const found = body.traces[0];
      return found && found.span_count >= 2 ? found : undefined;
    });
    // The run (agent.execute) and its model call (llm.generate), from the worker's process.
    expect(trace.root_name).toBe('agent.execute');
  }, 180_000);
});
