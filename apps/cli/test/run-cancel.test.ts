// Cancel a run from anywhere (issue 16): `junction serve` executes runs that wait on a slow
// model; REST, MCP over HTTP and the CLI (another process) each cancel one, and it ends
// `cancelled` within 2 s.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { runCliAsync, syncedWorkspace } from './run-cli.js';
import { startServe, type ServeProcess } from './serve-process.js';
import { eventually } from '@junction/tooling/fixtures/eventually.mjs';

const KEY = 'sk-cancel-surface-key-77777';
const docs = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../../docs');

/** The first ```sh block of the section of `page` whose heading starts with `heading`. */
function shBlock(page: string, heading: string): string {
  const text = readFileSync(path.join(docs, page), 'utf8');
  const section = text.split(/\n(?=#{2,3} )/).find((s) => s.startsWith(heading));
  const block = section?.match(/```sh\n([\s\S]*?)```/)?.[1];
  if (!block) throw new Error(`docs/${page}: no example under ${heading}`);
  return block;
}
let fake: FakeOpenAI;
let env: NodeJS.ProcessEnv;
let serve: ServeProcess;
let api: string;

beforeAll(async () => {
  fake = await startFakeOpenAI({});
  env = await syncedWorkspace({ modelUrl: fake.url, env: { OPENAI_API_KEY: KEY } });
  serve = await startServe(env);
  await serve.ready;
  api = `http://127.0.0.1:${serve.ports.api}/api/v1`;
}, 180_000);

afterAll(async () => {
  serve?.child.kill('SIGTERM');
  await serve?.exit;
  await fake.close();
});

interface RunBody {
  run_id: number;
  status: string;
  error: string | null;
}

/** Queues a run over REST and waits until the model has been asked (it will not answer soon). */
async function slowRun(): Promise<number> {
  const before = fake.requests.length;
  fake.script([{ delayMs: 30_000, text: 'far too late' }]);
  const res = await fetch(`${api}/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ agent_name: 'assistant', task: 'take your time' }),
  });
  expect(res.status).toBe(202);
  const { run_id: id } = (await res.json()) as { run_id: number };
  await eventually('the model to be asked', () => fake.requests.length > before);
  expect(fake.requests.length).toBeGreaterThan(before);
  return id;
}

async function runOf(id: number): Promise<RunBody> {
  return (await (await fetch(`${api}/runs/${id}`)).json()) as RunBody;
}

describe('cancelling a run that waits on a slow model', () => {
  it('over REST: 200 with the run cancelled; again: 409 RUN_ENDED; unknown: 404', async () => {
    const id = await slowRun();
    const t0 = Date.now();
    const res = await fetch(`${api}/runs/${id}/cancel`, { method: 'POST' });
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      run_id: id,
      status: 'cancelled',
      error: 'Run cancelled.',
    });
    const again = await fetch(`${api}/runs/${id}/cancel`, { method: 'POST' });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({
      error: { code: 'RUN_ENDED', details: { status: 'cancelled' } },
    });
    const unknown = await fetch(`${api}/runs/999999/cancel`, { method: 'POST' });
    expect(unknown.status).toBe(404);
    const bad = await fetch(`${api}/runs/abc/cancel`, { method: 'POST' });
    expect(bad.status).toBe(400);
  }, 180_000);

  it('over MCP (HTTP): cancel_run answers the run cancelled', async () => {
    const id = await slowRun();
    const client = new Client({ name: 'cancel-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${serve.ports.mcp}/mcp`)),
    );
    try {
      const t0 = Date.now();
      const answer = (await client.callTool({
        name: 'cancel_run',
        arguments: { run_id: String(id) },
      })) as { isError?: boolean; structuredContent?: Record<string, unknown> };
      expect(Date.now() - t0).toBeLessThan(2000);
      expect(answer.isError).toBeFalsy();
      expect(answer.structuredContent).toMatchObject({ run_id: id, status: 'cancelled' });
    } finally {
      await client.close();
    }
    expect((await runOf(id)).status).toBe('cancelled');
  }, 180_000);

  it('from the CLI, another process: the serving process sees it within about a second', async () => {
    const id = await slowRun();
    const t0 = Date.now();
    const result = await runCliAsync(['runs', 'cancel', String(id), '--json'], env);
    const took = Date.now() - t0;
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      run_id: id,
      status: 'cancelled',
      ended: true,
    });
    // The CLI process's own start-up is part of `took`; the stop itself is the worker's poll.
    expect(took).toBeLessThan(5000);
    const human = await runCliAsync(['runs', 'cancel', String(id)], env);
    expect(human.status).toBe(5);
    expect(human.stderr).toContain(`Run ${id} already ended cancelled`);
    const json = await runCliAsync(['runs', 'cancel', 'x', '--json'], env);
    expect(json.status).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: 'INVALID_ARGUMENT' } });
  }, 180_000);

  it("does what docs/cli.md and docs/rest-api.md show (run 7 there is this test's run)", async () => {
    const id = await slowRun();
    const withId = (text: string): string => text.replace(/\b7\b/g, String(id)).trim();
    const block = shBlock('cli.md', '## `junction runs cancel');
    for (const part of block.split(/^\$ /m).slice(1)) {
      const [command, ...output] = part.split('\n');
      const args = withId(command!).split(/\s+/).slice(1);
      const result = await runCliAsync(args, env);
      expect((result.stdout + result.stderr).trim()).toBe(withId(output.join('\n')));
    }
    // The REST page's second answer (the run had ended), word for word.
    const rest = shBlock('rest-api.md', '### `POST /api/v1/runs/{run_id}/cancel`');
    const refusal = rest.split('\n').filter((line) => line.startsWith('{"error"'))[0]!;
    const res = await fetch(`${api}/runs/${id}/cancel`, { method: 'POST' });
    expect(res.status).toBe(409);
    expect(await res.text()).toBe(withId(refusal));
  }, 180_000);
});
