import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
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

const TOOLS = [
  'call_agent',
  'create_agent',
  'update_agent',
  'get_agent_details',
  'list_agents',
  'discover_tools',
  'list_tools',
  'list_environments',
  'list_mcp_configs',
  'list_runs',
  'inspect_run',
];

describe('initialize', () => {
  it('reports the server as junction with the version it was given, offering tools and resources', () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'junction', version: '9.9.9-test' });
    const caps = client.getServerCapabilities();
    expect(caps?.tools).toBeDefined();
    expect(caps?.resources).toBeDefined();
    expect(client.getInstructions()).toContain('call_agent');
  });
});

describe('tools/list', () => {
  it('lists all eleven tools, each with a title, a description and an object input schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.title).toEqual(expect.any(String));
      expect((tool.description ?? '').length).toBeGreaterThan(60);
      expect(tool.inputSchema.type).toBe('object');
    }
  });

  it('declares the argument names existing clients send, with the required ones required', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t.inputSchema]));
    const props = (name: string): string[] =>
      Object.keys(byName.get(name)?.properties ?? {}).sort();
    const required = (name: string): string[] => [...(byName.get(name)?.required ?? [])].sort();
    expect(props('call_agent')).toEqual(
      ['agent_id', 'agent_name', 'async', 'environment_id', 'task', 'timeout', 'variables'].sort(),
    );
    expect(required('call_agent')).toEqual(['task']);
    expect(props('create_agent')).toEqual(
      [
        'description',
        'environment_id',
        'max_steps',
        'model',
        'name',
        'prompt',
        'tool_names',
      ].sort(),
    );
    expect(required('create_agent')).toEqual(
      ['description', 'environment_id', 'name', 'prompt'].sort(),
    );
    expect(required('update_agent')).toEqual(['agent_id']);
    expect(required('get_agent_details')).toEqual(['agent_id']);
    expect(props('list_agents')).toEqual(['environment_id', 'limit', 'offset']);
    expect(props('discover_tools')).toEqual(['config_id', 'environment_id']);
    expect(props('list_tools')).toEqual(['environment_id', 'limit', 'offset', 'search']);
    expect(props('list_environments')).toEqual([]);
    expect(props('list_mcp_configs')).toEqual(['environment_id']);
    expect(props('list_runs')).toEqual(['agent_id', 'limit', 'status']);
    expect(required('inspect_run')).toEqual(['run_id']);
  });

  it('describes ids as strings of digits or whole numbers', async () => {
    const { tools } = await client.listTools();
    const schema = tools.find((t) => t.name === 'get_agent_details')?.inputSchema;
    const agentId = (schema?.properties as Record<string, { anyOf?: Array<{ type: string }> }>)
      .agent_id;
    expect(agentId?.anyOf?.map((s) => s.type)).toEqual(['string', 'integer']);
  });

  it('marks the read-only tools read-only', async () => {
    const { tools } = await client.listTools();
    const readOnly = tools.filter((t) => t.annotations?.readOnlyHint === true).map((t) => t.name);
    expect(readOnly.sort()).toEqual(
      [
        'get_agent_details',
        'inspect_run',
        'list_agents',
        'list_environments',
        'list_mcp_configs',
        'list_runs',
        'list_tools',
      ].sort(),
    );
  });
});
