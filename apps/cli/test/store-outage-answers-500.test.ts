// Issue 31: with its libSQL server (sqld) stopped, `junction serve` answered REST and `POST
// /execute` with 500 INTERNAL_ERROR instead of the documented 503 with Retry-After, and with the
// server frozen (SIGSTOP) it hung them for minutes. Now both are 503 + Retry-After — a frozen
// server's within database_timeout_ms — and everything works again once the server is back.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { findSqld, SQLD_MISSING, startSqld, type Sqld } from '@junction/tooling/fixtures/sqld.mjs';
import { syncedWorkspace } from './run-cli.js';
import { startServe, until, type ServeProcess } from './serve-process.js';

const MODEL_KEY = 'sk-store-outage-key-1234567890';
const WEBHOOK_KEY = 'webhook-key-store-outage';
const available = findSqld() !== undefined;
if (!available) process.stderr.write(`\n*** SKIPPING store-outage tests: ${SQLD_MISSING} ***\n\n`);
const suite = available ? describe : describe.skip;

interface Answer {
  status: number;
  retryAfter: string | null;
  code: unknown;
}

async function answer(url: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(url, init);
  const text = await res.text();
  const body = (text.startsWith('{') ? JSON.parse(text) : {}) as { error?: { code?: unknown } };
  return { status: res.status, retryAfter: res.headers.get('retry-after'), code: body.error?.code };
}

suite('junction serve on a libSQL server that goes away', () => {
  let sqld: Sqld;
  let fake: FakeOpenAI;
  let serve: ServeProcess;
  let frozen = false;
  let runs: () => Promise<Answer>;
  let execute: () => Promise<Answer>;

  beforeAll(async () => {
    sqld = await startSqld();
    fake = await startFakeOpenAI({});
    const env = await syncedWorkspace({
      modelUrl: fake.url,
      env: {
        OPENAI_API_KEY: MODEL_KEY,
        JUNCTION_DATABASE_URL: sqld.url,
        JUNCTION_DATABASE_TIMEOUT_MS: '1500',
        JUNCTION_WEBHOOK_ENABLED: 'true',
        JUNCTION_WEBHOOK_API_KEY: WEBHOOK_KEY,
      },
    });
    serve = await startServe(env);
    await serve.ready;
    runs = () => answer(`http://127.0.0.1:${serve.ports.api}/api/v1/runs`);
    execute = () =>
      answer(`http://127.0.0.1:${serve.ports.webhook}/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${WEBHOOK_KEY}` },
        body: JSON.stringify({ agent_name: 'assistant', task: 'say hi' }),
      });
  }, 120_000);

  afterAll(async () => {
    // The test's own sqld, by its pid: never left frozen.
    if (frozen && sqld.pid !== undefined) process.kill(sqld.pid, 'SIGCONT');
    if (serve) {
      serve.child.kill('SIGTERM');
      await serve.exit;
    }
    await fake?.close();
    await sqld?.stop();
  });

  it('answers 503 with Retry-After while sqld is stopped, and 200 once it is back', async () => {
    expect((await runs()).status).toBe(200);
    await sqld.kill('SIGKILL');
    expect(await runs()).toEqual({ status: 503, retryAfter: '1', code: 'DATABASE_UNAVAILABLE' });
    expect(await execute()).toEqual({ status: 503, retryAfter: '1', code: 'SERVICE_BUSY' });
    await sqld.start();
    await until('REST to answer again', async () =>
      (await runs()).status === 200 ? true : undefined,
    );
    expect(serve.child.exitCode).toBeNull();
  });

  it('answers 503 with Retry-After within the deadline while sqld is frozen, and works after SIGCONT', async () => {
    const pid = sqld.pid;
    if (pid === undefined) throw new Error('sqld has no pid');
    process.kill(pid, 'SIGSTOP');
    frozen = true;
    try {
      // Awaited answers: each comes when database_timeout_ms (1.5 s) has passed, not when the
      // frozen server's connection gives up minutes later. The bound is 20 times the deadline:
      // a loaded machine is slower, never that much.
      const asked = Date.now();
      const [rest, webhook] = await Promise.all([runs(), execute()]);
      expect(Date.now() - asked).toBeLessThan(30_000);
      expect(rest).toEqual({ status: 503, retryAfter: '1', code: 'DATABASE_UNAVAILABLE' });
      expect(webhook).toEqual({ status: 503, retryAfter: '1', code: 'SERVICE_BUSY' });
    } finally {
      process.kill(pid, 'SIGCONT');
      frozen = false;
    }
    await until('REST to answer again', async () =>
      (await runs()).status === 200 ? true : undefined,
    );
    const accepted = await execute();
    expect(accepted.status).toBe(202);
    expect(serve.child.exitCode).toBeNull();
  });
});
