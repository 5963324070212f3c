// set_schedule with an input nested deeper than the one run-input limit (64 levels) answered
// "try again" (an internal error: the stack overflowed on 5,000 levels) or, at 100 levels, stored
// a schedule whose every fire failed. It is now ARGUMENT_INVALID naming the limit, and nothing is
// stored; 64 levels is accepted, as the workflow door accepts it.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { MAX_INPUT_DEPTH } from '@junction/config-templates';
import { call, connectInMemory, createHarness, refusal, type Harness } from './harness.js';

let h: Harness;
let client: Client;
let closeClient: () => Promise<void>;

beforeAll(async () => {
  h = await createHarness({ agents: { helper: 'model: openai/gpt-test' } });
  await h.store.workflows.upsert(h.env.id, {
    workflowId: 'deep',
    name: 'Deep',
    definition: {
      id: 'deep',
      start: 'a',
      states: [{ id: 'a', type: 'inject', data: {}, end: true }],
    },
  });
  ({ client, close: closeClient } = await connectInMemory(h.deps));
});

afterAll(async () => {
  await closeClient?.();
  await h?.close();
});

/** An input object `levels` deep: {"a": {"a": … {} }}, built without recursion. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

const MESSAGE =
  'input: is nested more than 64 levels deep (objects and arrays inside one another); flatten it to at most 64 levels';

it.each([MAX_INPUT_DEPTH + 1, 100, 5000])(
  'refuses an input %i levels deep with ARGUMENT_INVALID naming the limit, storing nothing',
  async (levels) => {
    const result = await call(client, 'set_schedule', {
      workflow_id: 'deep',
      cron_schedule: '0 9 * * *',
      input: nested(levels),
    });
    expect(refusal(result)).toEqual({
      code: 'ARGUMENT_INVALID',
      message: MESSAGE,
      details: { issues: [{ path: 'input', message: MESSAGE.slice('input: '.length) }] },
    });
    expect(await h.store.schedules.list()).toEqual([]);
  },
);

it('accepts an input exactly 64 levels deep', async () => {
  const result = await call(client, 'set_schedule', {
    workflow_id: 'deep',
    cron_schedule: '0 9 * * *',
    input: nested(MAX_INPUT_DEPTH),
  });
  expect(result.isError ?? false).toBe(false);
  expect(await h.store.schedules.list()).toHaveLength(1);
});
