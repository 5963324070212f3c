// Regression (issue 13, item 11): POST /execute with `variables: {"__proto__": …}` answered 202
// and stored the run with variables {}.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { openFixture, post, startWebhookApp, type Fixture, type Listening } from './helpers.js';

let fx: Fixture;
let app: Listening;

beforeEach(async () => {
  fx = await openFixture();
  app = await startWebhookApp(fx);
});
afterEach(async () => {
  await app.close();
  await fx.close();
});

describe('POST /execute with a variable named __proto__', () => {
  it('answers 400 naming the key and queues nothing', async () => {
    const res = await post(
      `${app.url}/execute`,
      '{"agent_name": "assistant", "task": "t", "variables": {"__proto__": {"x": "1"}, "ok": "v"}}',
    );
    expect(res.status).toBe(400);
    const body = (await res.json()) as {
      error: { code: string; message: string; details: { field: string } };
    };
    expect(body.error.code).toBe('INVALID_REQUEST');
    expect(body.error.details.field).toBe('variables.__proto__');
    expect(body.error.message).toContain('variables may not have a variable named "__proto__"');
    expect(await fx.store.runs.count()).toBe(0);
  });
});
