// Regression (issue 13, item 15): a body declared gzip that is not gzip was answered
// INVALID_PARAMETER ("The request is malformed"): it is the body that is wrong.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectError, postJson, startServer, type TestServer } from './harness.js';

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => {
  await s.close();
});

describe('a body whose content encoding does not decode', () => {
  it('is 400 INVALID_BODY and queues nothing', async () => {
    const before = await s.runCount();
    const answer = await postJson(
      `${s.url}/api/v1/agents/${s.seed.triage.id}/queue`,
      'this is not gzip at all',
      { 'content-encoding': 'gzip' },
    );
    const error = expectError(answer, 400, 'INVALID_BODY');
    expect(error.message).toContain('could not be decoded');
    expect(await s.runCount()).toBe(before);
  });
});
