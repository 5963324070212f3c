// Cancelling a workflow run left its approval pending, and approving it answered 200 while the
// run stayed cancelled (issue 31). Over REST: the cancel withdraws it (status cancelled) and a
// decision answers 409 APPROVAL_WITHDRAWN, as documented.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  call,
  expectError,
  postJson,
  startServer,
  validatorFor,
  type Answer,
  type OpenApiValidator,
  type TestServer,
} from './harness.js';

const KEY = 'jk_withdrawn_0123456789abcdef';
const AUTH = { authorization: `Bearer ${KEY}` };

let s: TestServer;
let doc: OpenApiValidator;

beforeAll(async () => {
  s = await startServer({ apiKeys: [KEY], workflows: true });
  doc = await validatorFor(s, AUTH);
  await s.store.workflows.upsert(s.seed.envDefault, {
    workflowId: 'gate',
    name: 'Gate',
    definition: {
      id: 'gate',
      start: 'a',
      states: [{ id: 'a', type: 'inject', data: { x: 1 }, end: true }],
    },
  });
});

afterAll(async () => {
  await s.close();
});

const get = (path: string): Promise<Answer> => call(`${s.url}${path}`, { headers: AUTH });
const post = (path: string, body: unknown): Promise<Answer> =>
  postJson(`${s.url}${path}`, body, AUTH);

describe('the approval of a cancelled workflow run over REST', () => {
  it('is withdrawn by the cancel, and deciding it answers 409 APPROVAL_WITHDRAWN', async () => {
    const { run } = await s.workflows!.start({ workflow_id: 'gate', input: {}, source: 'api' });
    const approvalId = `appr-${run.id}-a`;
    await s.store.approvals.create({
      approvalId,
      workflowRunId: run.id,
      stepName: 'a',
      message: 'Ship it?',
    });
    const cancelled = await post(`/api/v1/workflow-runs/${run.id}/cancel`, {});
    expect(cancelled.status).toBe(200);

    const shown = await get(`/api/v1/workflow-approvals/${approvalId}`);
    expect((shown.body as { approval: { status: string } }).approval.status).toBe('cancelled');

    for (const action of ['approve', 'reject']) {
      const answer = await post(`/api/v1/workflow-approvals/${approvalId}/${action}`, {});
      const error = expectError(answer, 409, 'APPROVAL_WITHDRAWN');
      expect(error.message).toContain(`workflow run ${run.id} was cancelled`);
      expect(error.details).toMatchObject({ approval: { status: 'cancelled' } });
      doc.expectDocumented('post', `/api/v1/workflow-approvals/{approval_id}/${action}`, answer);
    }
    const list = await get('/api/v1/workflow-approvals?status=cancelled');
    expect(list.status).toBe(200);
  });
});
