// Issue 32, the runner's side of a resumed run: another worker takes a run over (its lease ran
// out) while the model holds its third turn, and executes it again from its journal. The fake
// model gives both calls the same id — as some OpenAI-compatible servers do, turn after turn —
// so each recorded result must be given back to the call of its own turn.
import { afterEach, expect, it } from '@jest/globals';
import type { Run } from '@junction/store';
import { eventually } from '@junction/tooling/fixtures/eventually.mjs';
import { recoveryPolicy } from '../src/runs/lease.js';
import { createHarness, type Harness } from './run-harness.js';

let h: Harness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

it('resumes a run taken over from another worker: journaled turns and results are given back by turn, even with repeated call ids', async () => {
  h = await createHarness({ leaseMs: 1_000 });
  h.agent('writer', 'model: openai/gpt-test\ntools: [echo]\nmax_steps: 5');
  await h.sync();
  h.fake.script([
    { toolCalls: [{ id: 'call_0', name: 'echo', arguments: { text: 'first' } }] },
    { toolCalls: [{ id: 'call_0', name: 'echo', arguments: { text: 'second' } }] },
    { hang: true },
    { text: 'done' },
  ]);
  const run = await h.claimed('writer', 'echo twice');
  const first = h.runner.execute(run, { workerId: 'test-worker' });
  await eventually('the third turn to be asked', async () =>
    h!.fake.requests.length >= 3 ? true : undefined,
  );
  // The lease runs out (as if this worker had died); another worker claims the run.
  const { requeued } = await h.store.runs.recoverExpired(
    recoveryPolicy(),
    new Date(Date.now() + 60_000),
  );
  expect(requeued.map((r) => r.id)).toEqual([run.id]);
  const taken = (await h.store.runs.claim(run.id, 'other-worker', 60_000)) as Run;
  expect(taken.attempt).toBe(2);
  const resumed = await h.runner.execute(taken, { workerId: 'other-worker' });
  expect(resumed).toMatchObject({ status: 'completed', finalResponse: 'done', attempt: 2 });
  await first;

  // Turn three asked again with exactly the messages of its first asking: each call's own result.
  expect(h.fake.requests).toHaveLength(4);
  expect(h.fake.requests[3]!.body.messages).toEqual(h.fake.requests[2]!.body.messages);
  const toolMessages = (h.fake.requests[3]!.body.messages ?? []).filter((m) => m.role === 'tool');
  expect(JSON.stringify(toolMessages)).toMatch(/first[\s\S]*second/);
  const events = await h.store.runEvents.list(run.id);
  // Nothing the first worker wrote after losing the run, and every call once.
  expect(events.filter((e) => e.type === 'tool_call').map((e) => e.payload)).toEqual([
    expect.objectContaining({ step: 1, arguments: { text: 'first' } }),
    expect.objectContaining({ step: 2, arguments: { text: 'second' } }),
  ]);
  expect(events.filter((e) => e.type === 'model_turn')).toHaveLength(3);
  expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['attempt_ended', 'resumed']));
});
