// Roles on one machine, without a bus (the workers poll the store): `serve --no-workers` accepts
// runs and executes none, `junction worker` executes them and serves only /health and /metrics;
// `agent run --queue` leaves its run to them and follows it (Ctrl-C cancels it); `logs --run`
// shows a run's events and follows one to its end.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { runCliAsync, syncedWorkspace, baseEnv } from './run-cli.js';
import { freePort, startServe, until, type ServeProcess } from './serve-process.js';
import { plainHosts, startHost, type HostProcess } from './hosts.js';

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bin/run.js');
const KEY = 'sk-worker-test-key-1234567890';

describe('serve --no-workers and junction worker', () => {
  let fake: FakeOpenAI;
  let env: NodeJS.ProcessEnv;
  let serve: ServeProcess;
  let worker: HostProcess;
  let healthPort: number;
  let api: string;

  beforeAll(async () => {
    fake = await startFakeOpenAI({});
    env = await syncedWorkspace({
      modelUrl: fake.url,
      env: { OPENAI_API_KEY: KEY, JUNCTION_TRACES_ENABLED: 'false' },
    });
    serve = await startServe(env, {}, ['--no-workers']);
    await serve.ready;
    api = `http://127.0.0.1:${serve.ports.api}/api/v1`;
    healthPort = await freePort();
    worker = startHost(
      plainHosts(),
      0,
      ['worker', '--concurrency', '2', '--health-port', String(healthPort)],
      env,
      'health ',
    );
    await worker.ready;
  }, 120_000);

  afterAll(async () => {
    for (const p of [serve?.child, worker?.child]) if (p && p.exitCode === null) p.kill('SIGTERM');
    await Promise.all([serve?.exit, worker?.exit]);
    await fake?.close();
  }, 180_000);

  it('says what each process works on, at start and on /health', async () => {
    expect(serve.stdout()).toMatch(/no workers: runs wait for `junction worker` processes/);
    expect(serve.stdout()).toMatch(/queue\s+workers poll the store/);
    expect(worker.output()).toMatch(/runs\s+2 at a time/);
    const served = (await (await fetch(`http://127.0.0.1:${serve.ports.api}/health`)).json()) as {
      workers: unknown;
      queue: unknown;
    };
    expect(served.workers).toEqual({ runs: 0, in_flight: 0, workflows: false });
    expect(served.queue).toEqual({ bus: null, connected: false });
    const health = await fetch(`http://127.0.0.1:${healthPort}/health`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { workers: unknown }).workers).toMatchObject({
      runs: 2,
      workflows: true,
    });
    expect((await fetch(`http://127.0.0.1:${healthPort}/metrics`)).status).toBe(200);
    // Nothing else: a worker takes no runs over HTTP.
    expect((await fetch(`http://127.0.0.1:${healthPort}/api/v1/runs`)).status).toBe(404);
  });

  it('a run accepted by serve --no-workers is executed by the worker', async () => {
    fake.script([{ text: 'worked elsewhere' }]);
    const res = await fetch(`${api}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agent_name: 'assistant', task: 'work it' }),
    });
    expect(res.status).toBe(202);
    const { run_id: id } = (await res.json()) as { run_id: number };
    const run = await until('the worker to complete it', async () => {
      const body = (await (await fetch(`${api}/runs/${id}`)).json()) as {
        status: string;
        final_response: string;
        worker_id?: string;
      };
      return body.status === 'completed' ? body : undefined;
    });
    expect(run.final_response).toBe('worked elsewhere');
  });

  it('agent run --queue follows the run a worker executes; logs --run shows and follows its events', async () => {
    fake.script([{ toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }] }, { text: 'five' }]);
    const queued = await runCliAsync(['agent', 'run', 'assistant', 'add 2 and 3', '--queue'], env);
    expect({ status: queued.status, out: queued.stdout + queued.stderr }).toMatchObject({
      status: 0,
    });
    const id = Number(/run (\d+): assistant \(default\), queued/.exec(queued.stdout)?.[1]);
    expect(id).toBeGreaterThan(0);
    expect(queued.stdout).toMatch(/model_turn\s+step 1 .*calls add/);
    expect(queued.stdout).toMatch(/tool_call\s+step 1\s+calc\/add\s+ok/);
    expect(queued.stdout).toMatch(/\nfive\n/);
    expect(queued.stdout).toMatch(new RegExp(`run ${id} completed`));
    const shown = await runCliAsync(['logs', '--run', String(id)], env);
    expect(shown.status).toBe(0);
    expect(shown.stdout.split('\n').filter((l) => l !== '')).toEqual([
      expect.stringMatching(/^model_turn\s+step 1 .*calls add$/),
      expect.stringMatching(/^tool_call\s+step 1\s+calc\/add\s+ok$/),
      expect.stringMatching(/^model_turn\s+step 2 .*"five"$/),
    ]);
    const json = await runCliAsync(['logs', '--run', String(id), '--json', '--lines', '1'], env);
    expect(JSON.parse(json.stdout)).toEqual([
      expect.objectContaining({
        run_id: id,
        type: 'model_turn',
        summary: expect.stringMatching(/five/),
      }),
    ]);
    // Followed while it runs elsewhere: the events as they come, then its end.
    fake.script([
      { delayMs: 1_500, toolCalls: [{ name: 'add', arguments: { a: 1, b: 1 } }] },
      { text: 'two' },
    ]);
    const res = await fetch(`${api}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agent_name: 'assistant', task: 'add 1 and 1' }),
    });
    const { run_id: next } = (await res.json()) as { run_id: number };
    const followed = await runCliAsync(['logs', '--run', String(next), '-f'], env);
    expect(followed.status).toBe(0);
    expect(followed.stdout).toMatch(/tool_call\s+step 1\s+calc\/add\s+ok/);
    expect(followed.stdout.trimEnd().split('\n').at(-1)).toBe(`run ${next} completed`);
  }, 180_000);

  it('logs --run refuses a run that does not exist, and --run beside --level', async () => {
    const none = await runCliAsync(['logs', '--run', '999999'], env);
    expect(none.status).toBe(4);
    expect(none.stderr).toMatch(/No run has id 999999/);
    const both = await runCliAsync(['logs', '--run', '1', '--level', 'warn'], env);
    expect(both.status).toBe(2);
    expect(both.stderr).toMatch(/--level.*cannot also be provided|cannot also be provided.*--run/);
  });

  it('Ctrl-C on agent run --queue cancels the run on the worker', async () => {
    fake.script([{ delayMs: 30_000, text: 'never' }]);
    const child = spawn(process.execPath, [bin, 'agent', 'run', 'assistant', 'wait', '--queue'], {
      env: { ...baseEnv(), ...env },
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const id = await until('the run to be queued', async () => {
      const m = /run (\d+): assistant/.exec(out);
      return m ? Number(m[1]) : undefined;
    });
    await until('the worker to take it', async () => {
      const body = (await (await fetch(`${api}/runs/${id}`)).json()) as { status: string };
      return body.status === 'running' ? true : undefined;
    });
    child.kill('SIGINT');
    expect(await exit).toBe(8);
    expect(out).toMatch(new RegExp(`Run ${id} ended cancelled`));
    const body = (await (await fetch(`${api}/runs/${id}`)).json()) as { status: string };
    expect(body.status).toBe('cancelled');
    fake.reset();
  }, 180_000);
});
