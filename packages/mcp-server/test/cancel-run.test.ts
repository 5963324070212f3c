// cancel_run (issue 16): through the run door, audited, with the refusals every surface gives.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, connectInMemory, createHarness, textOf, type Harness } from './harness.js';
import { eventually } from '@junction/tooling/fixtures/eventually.mjs';

let h: Harness;
let client: Client;
let closeClient: () => Promise<void>;

beforeAll(async () => {
  h = await createHarness({ agents: { chat: 'model: openai/gpt-test' } });
  ({ client, close: closeClient } = await connectInMemory(h.deps));
});
afterAll(async () => {
  await closeClient?.();
  await h?.close();
});
beforeEach(() => h.fake.reset());

describe('cancel_run', () => {
  it('stops a run waiting on a model that never answers; it ends cancelled', async () => {
    // The model never answers: the cancel's answer arriving at all shows it did not wait for one.
    h.fake.script([{ hang: true }]);
    const { run } = await h.deps.runs.submit({ agent_name: 'chat', task: 'slow', source: 'api' });
    await eventually('the model to be asked', () => h.fake.requests.length > 0);
    const answer = await call(client, 'cancel_run', { run_id: String(run.id) });
    expect(answer.isError).toBeFalsy();
    expect(answer.structuredContent).toMatchObject({
      run_id: run.id,
      status: 'cancelled',
      error: 'Run cancelled.',
      ended: true,
    });
    expect(textOf(answer)).toContain(`Cancelled run ${run.id}`);
    await h.store.auditLog.flush();
    const rows = await h.store.auditLog.list({ action: 'cancel_run' });
    expect(rows.some((r) => r.source === 'mcp' && r.outcome === 'success')).toBe(true);
  });

  it('refuses a run that has ended (RUN_ENDED) and an unknown one (RUN_NOT_FOUND)', async () => {
    h.fake.script([{ text: 'done' }]);
    const { run } = await h.deps.runs.submit({ agent_name: 'chat', task: 'quick', source: 'api' });
    await h.deps.runs.waitFor(run.id, { timeoutMs: 10_000 });
    const ended = await call(client, 'cancel_run', { run_id: String(run.id) });
    expect(ended.isError).toBe(true);
    expect(textOf(ended)).toContain('RUN_ENDED');
    expect(textOf(ended)).toContain('already ended completed');
    const unknown = await call(client, 'cancel_run', { run_id: '987654' });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain('RUN_NOT_FOUND');
    const bad = await call(client, 'cancel_run', { run_id: 'seven' });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/run_id/);
  });
});
