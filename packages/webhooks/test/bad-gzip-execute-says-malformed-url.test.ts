// A body declared gzip that is not gzip was answered "malformed URL or headers" on /execute
// (REST said the body did not decode). Both surfaces now read body failures by one rule
// (config-templates' bodyReadFailure): 400, the same message, nothing queued or decided.
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { BODY_UNDECODABLE_MESSAGE } from '@junction/config-templates';
import { createWorkflowDoor } from '@junction/workflows';
import { openFixture, startWebhookApp, type Fixture, type Listening } from './helpers.js';

let fx: Fixture;
let app: Listening;

beforeEach(async () => {
  fx = await openFixture();
  const door = createWorkflowDoor({ store: fx.store, publicUrl: 'http://127.0.0.1:8587' });
  app = await startWebhookApp(fx, { workflows: door });
});
afterEach(async () => {
  await app.close();
  await fx.close();
});

const cutGzip = gzipSync(
  JSON.stringify({ agent_name: 'assistant', task: 'x'.repeat(500) }),
).subarray(0, 30);

const bodies: Array<[string, Buffer | string, string]> = [
  ['text that is not gzip', 'this is not gzip at all', 'gzip'],
  ['gzip cut short', cutGzip, 'gzip'],
  ['text that is not deflate', 'this is not deflate either', 'deflate'],
];

async function expectUndecodable(res: Response): Promise<void> {
  expect(res.status).toBe(400);
  const body = (await res.json()) as { error: { code: string; message: string } };
  expect(body.error).toEqual({ code: 'INVALID_REQUEST', message: BODY_UNDECODABLE_MESSAGE });
  expect(body.error.message).not.toContain('malformed URL');
}

describe('a body whose Content-Encoding does not decode', () => {
  it.each(bodies)('POST /execute with %s is 400 and queues nothing', async (_, body, encoding) => {
    const res = await fetch(`${app.url}/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': encoding },
      body,
    });
    await expectUndecodable(res);
    expect(await fx.store.runs.count()).toBe(0);
  });

  it('is the same answer on an approval decision, which decides nothing', async () => {
    const run = await fx.store.workflowRuns.create({
      workflowKey: 'release',
      workflowName: 'Release',
      source: 'cli',
      status: 'waiting_approval',
    });
    await fx.store.approvals.create({
      approvalId: 'appr-1-gate',
      workflowRunId: run.id,
      stepName: 'gate',
      message: 'Ship?',
      timeoutSeconds: 3600,
    });
    const res = await fetch(`${app.url}/workflow-approvals/appr-1-gate/approve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: 'this is not gzip at all',
    });
    await expectUndecodable(res);
    expect((await fx.store.approvals.get('appr-1-gate'))?.status).toBe('pending');
  });

  it('a well-formed gzip body still queues the run', async () => {
    const res = await fetch(`${app.url}/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(JSON.stringify({ agent_name: 'assistant', task: 'compressed' })),
    });
    expect(res.status).toBe(202);
    expect(await fx.store.runs.count()).toBe(1);
  });
});
