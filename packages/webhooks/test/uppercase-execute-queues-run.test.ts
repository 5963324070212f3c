// `POST /EXECUTE` queued a run: the webhook routes matched paths without regard to case. They are
// matched exactly now, on the app the webhook server serves and on the router for mounting.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import express from 'express';
import { createRunDoor } from '@junction/agent-core/runs';
import { createWebhookRouter } from '../src/index.js';
import {
  listen,
  memoryLogger,
  openFixture,
  post,
  startWebhookApp,
  type Fixture,
  type Listening,
} from './helpers.js';

let fx: Fixture;
let app: Listening | undefined;

beforeEach(async () => {
  fx = await openFixture();
  app = undefined;
});
afterEach(async () => {
  await app?.close();
  await fx.close();
});

/** The router of createWebhookRouter, mounted under /hooks of an app of its own. */
async function mountedRouter(): Promise<Listening> {
  const outer = express();
  outer.use(
    '/hooks',
    createWebhookRouter({
      store: fx.store,
      runs: createRunDoor({ store: fx.store, checkModel: (): void => undefined }),
      logger: memoryLogger().logger,
      enabled: true,
    }),
  );
  return listen(outer);
}

async function expectNotFound(res: Response, path: string): Promise<void> {
  expect(res.status).toBe(404);
  const body = (await res.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe('ROUTE_NOT_FOUND');
  expect(body.error.message).toContain(path);
}

describe('webhook paths are case-sensitive', () => {
  it.each(['/EXECUTE', '/Execute', '/eXecute'])(
    'POST %s is 404 ROUTE_NOT_FOUND and queues nothing',
    async (path) => {
      app = await startWebhookApp(fx);
      const res = await post(`${app.url}${path}`, { agent_name: 'assistant', task: 'x' });
      await expectNotFound(res, path);
      expect(await fx.store.runs.count()).toBe(0);
    },
  );

  it('GET /RUNS/<id> is 404, GET /runs/<id> answers the run', async () => {
    app = await startWebhookApp(fx);
    const queued = await post(`${app.url}/execute`, { agent_name: 'assistant', task: 'x' });
    expect(queued.status).toBe(202);
    const { run_id: id } = (await queued.json()) as { run_id: number };
    await expectNotFound(await fetch(`${app.url}/RUNS/${id}`), `/RUNS/${id}`);
    expect((await fetch(`${app.url}/runs/${id}`)).status).toBe(200);
  });

  it('the mounted router matches exactly too', async () => {
    app = await mountedRouter();
    const upper = await post(`${app.url}/hooks/EXECUTE`, { agent_name: 'assistant', task: 'x' });
    expect(upper.status).toBe(404);
    expect(await fx.store.runs.count()).toBe(0);
    const lower = await post(`${app.url}/hooks/execute`, { agent_name: 'assistant', task: 'x' });
    expect(lower.status).toBe(202);
    expect(await fx.store.runs.count()).toBe(1);
  });
});
