// docs/mcp.md said call_agent answers ARGUMENT_INVALID when no agent is named or its arguments
// disagree; the tool answers the run door's RUN_REQUEST_INVALID (as REST and the webhook do),
// and ARGUMENT_INVALID only for its schema. This pins each case to its code and to the page.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, connectInMemory, createHarness, refusal, type Harness } from './harness.js';

const page = readFileSync(
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs/mcp.md'),
  'utf8',
);

let h: Harness;
let client: Client;
let closeClient: () => Promise<void>;
let chatId: string;
let otherEnvId: string;

beforeAll(async () => {
  h = await createHarness({ agents: { chat: 'model: openai/gpt-test' } });
  chatId = String((await h.get('chat')).id);
  otherEnvId = String((await h.store.environments.create({ name: 'staging' })).id);
  ({ client, close: closeClient } = await connectInMemory(h.deps));
});
afterAll(async () => {
  await closeClient?.();
  await h?.close();
});

it.each<[string, string, string, () => Record<string, unknown>]>([
  ['no agent named', 'RUN_REQUEST_INVALID', 'agent_name', () => ({ task: 'x' })],
  [
    'agent_id and agent_name that disagree',
    'RUN_REQUEST_INVALID',
    'agent_name',
    () => ({ agent_id: chatId, agent_name: 'other', task: 'x' }),
  ],
  [
    'an agent_id outside environment_id',
    'RUN_REQUEST_INVALID',
    'environment',
    () => ({ agent_id: chatId, environment_id: otherEnvId, task: 'x' }),
  ],
])('call_agent with %s answers %s naming %s, queueing nothing', async (_, code, field, args) => {
  const before = await h.store.runs.count({});
  const error = refusal(await call(client, 'call_agent', args()));
  expect(error).toMatchObject({ code, details: { field } });
  expect(await h.store.runs.count({})).toBe(before);
});

it('call_agent with a wrongly typed argument answers ARGUMENT_INVALID', async () => {
  const error = refusal(await call(client, 'call_agent', { agent_id: 'chat', task: 'x' }));
  expect(error.code).toBe('ARGUMENT_INVALID');
});

it('docs/mcp.md names the codes call_agent answers', () => {
  const section = page.slice(
    page.indexOf('### `call_agent`'),
    page.indexOf('### ', page.indexOf('### `call_agent`') + 5),
  );
  expect(section).toContain(
    "- `RUN_REQUEST_INVALID` (the run door's own check, the code REST answers too):\n  neither `agent_id` nor `agent_name`; `agent_id` and `agent_name` name different agents;\n  `agent_id` is not in `environment_id`.",
  );
  expect(section).toContain('- `ARGUMENT_INVALID`: bad argument types');
});
