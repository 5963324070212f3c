// Junction on a libSQL server (issue 20): `init`, `sync`, a one-off `agent run` and `serve` all
// use the store at JUNCTION_DATABASE_URL with the token in JUNCTION_DATABASE_AUTH_TOKEN, which
// never appears in what they print or log; a missing token is a clear error naming the variable.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { findSqld, SQLD_MISSING, startSqld, type Sqld } from '@junction/tooling/fixtures/sqld.mjs';
import { openStore } from '@junction/store';
import { runCliAsync, syncedWorkspace } from './run-cli.js';
import { startServe, until, type ServeProcess } from './serve-process.js';

const KEY = 'sk-remote-store-key-1234567890';
const available = findSqld() !== undefined;
if (!available) process.stderr.write(`\n*** SKIPPING remote-store tests: ${SQLD_MISSING} ***\n\n`);
const suite = available ? describe : describe.skip;

suite('junction on a libSQL server (sqld) with an auth token', () => {
  let sqld: Sqld;
  let fake: FakeOpenAI;
  let env: NodeJS.ProcessEnv;
  let token: string;
  let serve: ServeProcess | undefined;

  beforeAll(async () => {
    sqld = await startSqld({ auth: true });
    token = sqld.token();
    fake = await startFakeOpenAI({});
    env = await syncedWorkspace({
      modelUrl: fake.url,
      env: {
        OPENAI_API_KEY: KEY,
        JUNCTION_DATABASE_URL: sqld.url,
        JUNCTION_DATABASE_AUTH_TOKEN: token,
      },
    });
  }, 90_000);

  afterAll(async () => {
    if (serve) {
      serve.child.kill('SIGTERM');
      await serve.exit;
    }
    await fake?.close();
    await sqld?.stop();
  });

  it('runs an agent from the CLI with its run kept on the server', async () => {
    fake.script([{ toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }] }, { text: 'five' }]);
    const run = await runCliAsync(['agent', 'run', 'assistant', 'add 2 and 3', '--json'], env);
    expect(run.status).toBe(0);
    const { run_id: runId } = JSON.parse(run.stdout) as { run_id: number };
    const store = await openStore({ url: sqld.url, authToken: token });
    try {
      expect(await store.runs.get(runId)).toMatchObject({
        status: 'completed',
        finalResponse: 'five',
      });
    } finally {
      await store.close();
    }
    expect(run.stdout + run.stderr).not.toContain(token);
  });

  it('serves on the server: a REST run completes; doctor names the store; the token is never shown', async () => {
    serve = await startServe(env);
    await serve.ready;
    const api = `http://127.0.0.1:${serve.ports.api}/api/v1`;
    fake.script([{ text: 'served from sqld' }]);
    const res = await fetch(`${api}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agent_name: 'assistant', task: 'say it' }),
    });
    expect(res.status).toBe(202);
    const { run_id: id } = (await res.json()) as { run_id: number };
    const done = await until('the run to complete', async () => {
      const body = (await (await fetch(`${api}/runs/${id}`)).json()) as {
        status: string;
        final_response: string | null;
      };
      return body.status === 'completed' ? body : undefined;
    });
    expect(done.final_response).toBe('served from sqld');
    const doctor = await runCliAsync(['doctor'], env);
    expect(doctor.stdout).toContain(`${new URL(sqld.url).host}`);
    const log = readFileSync(
      path.join(env.XDG_CONFIG_HOME!, 'junction', 'logs', 'junction.log'),
      'utf8',
    );
    for (const text of [serve.stdout(), serve.stderr(), doctor.stdout, doctor.stderr, log]) {
      expect(text).not.toContain(token);
    }
  });

  it('says which variable to set when the token is missing, and exits non-zero', async () => {
    const { JUNCTION_DATABASE_AUTH_TOKEN: _dropped, ...withoutToken } = env;
    const list = await runCliAsync(['runs', 'list'], withoutToken);
    expect(list.status).not.toBe(0);
    expect(list.stderr).toMatch(/HTTP 401/);
    expect(list.stderr).toMatch(/JUNCTION_DATABASE_AUTH_TOKEN/);
  });
});
