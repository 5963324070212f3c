import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { connectInMemory, createHarness, type Harness } from './harness.js';

let h: Harness;
let client: Client;
let closeClient: () => Promise<void>;

beforeAll(async () => {
  h = await createHarness({ agents: { calc: 'model: openai/gpt-test\ntools: [add]' } });
  ({ client, close: closeClient } = await connectInMemory(h.deps));
});
afterAll(async () => {
  await closeClient?.();
  await h?.close();
});

async function readJson(uri: string): Promise<Record<string, unknown>> {
  const result = await client.readResource({ uri });
  const [content] = result.contents;
  expect(content).toMatchObject({ uri, mimeType: 'application/json' });
  return JSON.parse((content as { text: string }).text) as Record<string, unknown>;
}

describe('resources', () => {
  it('lists the environments resource and one resource per agent; templates for agents and runs', async () => {
    const calc = await h.get('calc');
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual([
      'junction://environments',
      `junction://agents/${calc.id}`,
    ]);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual([
      'junction://agents/{agent_id}',
      'junction://runs/{run_id}',
    ]);
  });

  it('reads junction://environments as JSON', async () => {
    const data = await readJson('junction://environments');
    expect(data.environments).toEqual([
      expect.objectContaining({ id: h.env.id, name: 'default', agents: 1 }),
    ]);
  });

  it('reads an agent and a run by id', async () => {
    const calc = await h.get('calc');
    const agent = await readJson(`junction://agents/${calc.id}`);
    expect(agent).toMatchObject({ id: calc.id, name: 'calc', tools: [{ name: 'add' }] });
    const run = await h.store.runs.create({
      agentId: calc.id,
      agentName: 'calc',
      environmentId: h.env.id,
      task: 'stored task',
      variables: { API_TOKEN: 'secret-token-value' },
      source: 'cli',
    });
    const detail = await readJson(`junction://runs/${run.id}`);
    expect(detail).toMatchObject({
      run_id: run.id,
      agent_name: 'calc',
      task: 'stored task',
      variables: { API_TOKEN: '[REDACTED]' },
    });
    await h.deps.runs.waitFor(run.id, { timeoutMs: 10_000 });
  });

  it('answers an unknown or malformed id with a resource-not-found error', async () => {
    for (const uri of ['junction://agents/999', 'junction://runs/999', 'junction://runs/abc']) {
      const err = await client.readResource({ uri }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(McpError);
      expect((err as McpError).code).toBe(-32002);
      expect((err as McpError).message).toContain(`Resource ${uri} not found`);
    }
  });
});
