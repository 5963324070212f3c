// POST /api/v1/schedules with a workflow input nested thousands of levels deep answered 500
// ("Maximum call stack size exceeded"), and 100 levels was stored though every fire then
// failed, while the workflow run route refused over 64 levels with 400. Both routes now ask the
// one limit: 400 naming it, nothing stored; 64 levels is accepted by both.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { expectError, postJson, startServer, type Answer, type TestServer } from './harness.js';

const KEY = 'jk_deep_input_0123456789abcdef';
const AUTH = { authorization: `Bearer ${KEY}` };

let s: TestServer;

beforeAll(async () => {
  s = await startServer({ apiKeys: [KEY], workflows: true, scheduler: 'started' });
  await s.store.workflows.upsert(s.seed.envDefault, {
    workflowId: 'deep',
    name: 'Deep',
    definition: {
      id: 'deep',
      start: 'a',
      states: [{ id: 'a', type: 'inject', data: {}, end: true }],
    },
  });
});
afterAll(async () => {
  await s.close();
});

/** JSON text of an object `levels` deep: {"a":{"a":…{}}} (written as text: no recursion). */
const nested = (levels: number): string =>
  `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;

const post = (path: string, body: string): Promise<Answer> =>
  postJson(`${s.url}${path}`, body, AUTH);

const REASON =
  'is nested more than 64 levels deep (objects and arrays inside one another); flatten it to at most 64 levels';

it.each([65, 100, 20_000])(
  'refuses a schedule input %i levels deep with 400 SCHEDULE_INVALID naming the limit',
  async (levels) => {
    const answer = await post(
      '/api/v1/schedules',
      `{"name":"deep","cron":"0 9 * * *","input":${nested(levels)}}`,
    );
    expect(expectError(answer, 400, 'SCHEDULE_INVALID')).toEqual({
      code: 'SCHEDULE_INVALID',
      message: `input: ${REASON}`,
      details: { field: 'input', problems: [{ field: 'input', message: REASON }] },
    });
    expect(await s.store.schedules.list()).toEqual([]);
  },
);

it('the workflow run route refuses the same input with the same words', async () => {
  const answer = await post('/api/v1/workflows/deep/runs', `{"input":${nested(100)}}`);
  expect(expectError(answer, 400, 'WORKFLOW_INPUT_INVALID').message).toBe(
    `The workflow input is not valid: input ${REASON}.`,
  );
});

it('accepts 64 levels on both routes', async () => {
  const schedule = await post(
    '/api/v1/schedules',
    `{"name":"deep","cron":"0 9 * * *","input":${nested(64)}}`,
  );
  expect(schedule.status).toBe(201);
  const run = await post('/api/v1/workflows/deep/runs', `{"input":${nested(64)}}`);
  expect(run.status).toBe(202);
});
