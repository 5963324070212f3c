// POST /api/v1/runs/{run_id}/cancel (issue 16): through the run door, every answer documented.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  call,
  expectError,
  startServer,
  validatorFor,
  type OpenApiValidator,
  type TestServer,
} from './harness.js';

let s: TestServer;
let doc: OpenApiValidator;

beforeAll(async () => {
  s = await startServer();
  doc = await validatorFor(s);
});
afterAll(async () => {
  await s.close();
});

const CANCEL = '/api/v1/runs/{run_id}/cancel';
const cancel = (id: number | string, query = '') =>
  call(`${s.url}/api/v1/runs/${id}/cancel${query}`, { method: 'POST' });

describe('POST /api/v1/runs/{run_id}/cancel', () => {
  it('ends a queued run cancelled: 200 with the run', async () => {
    const id = s.seed.runs.queued.id;
    const answer = await cancel(id);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      run_id: id,
      status: 'cancelled',
      error: 'Run cancelled.',
      cancel_requested_at: expect.any(String),
    });
    doc.expectDocumented('post', CANCEL, answer);
    expect((await s.store.runs.get(id))?.status).toBe('cancelled');
  });

  it('answers 202 while the run is still stopping in a worker elsewhere', async () => {
    const run = await s.store.runs.create({ agentName: 'triage', task: 'held', source: 'api' });
    await s.store.runs.claim(run.id, 'another-host:1:abc', 60_000);
    const answer = await cancel(run.id);
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({
      run_id: run.id,
      status: 'running',
      cancel_requested_at: expect.any(String),
    });
    doc.expectDocumented('post', CANCEL, answer);
  }, 15_000);

  it('answers 409 RUN_ENDED for a run that ended, naming its status', async () => {
    const answer = await cancel(s.seed.runs.completed.id);
    const error = expectError(answer, 409, 'RUN_ENDED');
    expect(error.message).toContain('already ended completed');
    expect(error.details).toMatchObject({ status: 'completed' });
    doc.expectDocumented('post', CANCEL, answer);
  });

  it('answers 404 RUN_NOT_FOUND for an unknown run', async () => {
    const answer = await cancel(777777);
    expectError(answer, 404, 'RUN_NOT_FOUND');
    doc.expectDocumented('post', CANCEL, answer);
  });

  it.each([
    ['abc', '', 'run_id'],
    ['0', '', 'run_id'],
    ['1', '?force=true', 'force'],
  ])('answers 400 for run %s%s naming %s', async (id, query, field) => {
    const before = await s.store.runs.get(1);
    const answer = await cancel(id, query);
    expect(expectError(answer, 400, 'INVALID_PARAMETER').details).toMatchObject({ field });
    doc.expectDocumented('post', CANCEL, answer);
    expect((await s.store.runs.get(1))?.status).toBe(before?.status);
  });
});
