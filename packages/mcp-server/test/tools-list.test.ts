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
  'cancel_run',
  'list_workflows',
  'start_workflow_run',
  'get_workflow_run',
  'list_workflow_runs',
  'cancel_workflow_run',
  'list_workflow_approvals',
  'approve_workflow_step',
  'reject_workflow_step',
  'set_schedule',
  'get_schedule',
  'remove_schedule',
  'list_schedules',
];

describe('initialize', () => {
  it('reports the server as junction with the version it was given, offering tools and resources', () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'junction', version: '9.9.9-test' });
    const caps = client.getServerCapabilities();
    expect(caps?.tools).toBeDefined();
    expect(caps?.resources).toBeDefined();
    expect(client.getInstructions()).toContain('call_agent');
    expect(client.getInstructions()).toContain('start_workflow_run');
    expect(client.getInstructions()).toContain('set_schedule');
  });
});

describe('tools/list', () => {
  it('lists all twenty-four tools, each with a title, a description and an object input schema', async () => {
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
    expect(props('list_workflows')).toEqual(['environment_id', 'limit', 'offset']);
    expect(props('start_workflow_run')).toEqual(
      ['environment_id', 'idempotency_key', 'input', 'wait', 'workflow_id'].sort(),
    );
    expect(required('start_workflow_run')).toEqual(['workflow_id']);
    expect(props('get_workflow_run')).toEqual(['workflow_run_id']);
    expect(required('get_workflow_run')).toEqual(['workflow_run_id']);
    expect(props('list_workflow_runs')).toEqual(['limit', 'offset', 'status', 'workflow_id']);
    expect(props('cancel_workflow_run')).toEqual(['workflow_run_id']);
    expect(required('cancel_workflow_run')).toEqual(['workflow_run_id']);
    expect(props('list_workflow_approvals')).toEqual([
      'limit',
      'offset',
      'status',
      'workflow_run_id',
    ]);
    expect(props('approve_workflow_step')).toEqual(['approval_id', 'approver', 'comment']);
    expect(required('approve_workflow_step')).toEqual(['approval_id']);
    expect(props('reject_workflow_step')).toEqual(['approval_id', 'approver', 'reason']);
    expect(required('reject_workflow_step')).toEqual(['approval_id']);
    // The reference's schedule tools and arguments; Junction's own are optional.
    expect(props('set_schedule')).toEqual(
      [
        'agent_id',
        'catch_up',
        'cron_schedule',
        'enabled',
        'environment_id',
        'input',
        'overlap',
        'schedule_variables',
        'task',
        'timezone',
        'workflow_id',
      ].sort(),
    );
    expect(required('set_schedule')).toEqual(['cron_schedule']);
    expect(props('get_schedule')).toEqual(['agent_id']);
    expect(required('get_schedule')).toEqual(['agent_id']);
    expect(props('remove_schedule')).toEqual(['agent_id']);
    expect(required('remove_schedule')).toEqual(['agent_id']);
    expect(props('list_schedules')).toEqual(
      ['enabled', 'environment_id', 'kind', 'limit', 'offset'].sort(),
    );
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
        'list_workflows',
        'get_workflow_run',
        'list_workflow_runs',
        'list_workflow_approvals',
        'get_schedule',
        'list_schedules',
      ].sort(),
    );
  });
});

describe('the schedule tools in tools/list', () => {
  it('describe schedule_variables as a string of JSON (or an object) and enabled as a boolean', async () => {
    const { tools } = await client.listTools();
    const props = tools.find((t) => t.name === 'set_schedule')?.inputSchema.properties as Record<
      string,
      { type?: string; anyOf?: Array<{ type: string }> }
    >;
    expect(props.cron_schedule?.type).toBe('string');
    expect(props.schedule_variables?.anyOf?.map((s) => s.type)).toEqual(['string', 'object']);
    expect(props.enabled?.type).toBe('boolean');
    expect(props.agent_id?.anyOf?.map((s) => s.type)).toEqual(['string', 'integer']);
  });

  it('mark remove_schedule destructive and set_schedule idempotent', async () => {
    const { tools } = await client.listTools();
    const hints = (name: string): Record<string, unknown> | undefined =>
      tools.find((t) => t.name === name)?.annotations;
    expect(hints('remove_schedule')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(hints('set_schedule')).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
    });
  });
});

describe('the workflow tools in tools/list', () => {
  it('describe start_workflow_run input as a JSON object and wait as a boolean', async () => {
    const { tools } = await client.listTools();
    const props = tools.find((t) => t.name === 'start_workflow_run')?.inputSchema
      .properties as Record<string, { type?: string; anyOf?: Array<{ type: string }> }>;
    expect(props.input?.type).toBe('object');
    expect(props.wait?.type).toBe('boolean');
    expect(props.workflow_id?.anyOf?.map((s) => s.type)).toEqual(['string', 'integer']);
  });

  it('mark cancel_workflow_run destructive, and the decisions neither read-only nor destructive', async () => {
    const { tools } = await client.listTools();
    const hints = (name: string): Record<string, unknown> | undefined =>
      tools.find((t) => t.name === name)?.annotations;
    expect(hints('cancel_workflow_run')).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
    for (const name of ['approve_workflow_step', 'reject_workflow_step', 'start_workflow_run']) {
      expect(hints(name)).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    }
  });
});
