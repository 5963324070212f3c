import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, connectInMemory, createHarness, textOf, type Harness } from './harness.js';

let h: Harness;
let client: Client;
let closeClient: () => Promise<void>;

beforeAll(async () => {
  h = await createHarness({
    agents: {
      calc: 'model: openai/gpt-test\ntools: [add]',
      chat: 'model: openai/gpt-test\nmetadata:\n  description: Talks.',
    },
  });
  ({ client, close: closeClient } = await connectInMemory(h.deps));
});
afterAll(async () => {
  await closeClient?.();
  await h?.close();
});

describe('create_agent', () => {
  it('writes the prompt file, registers the agent with its tools and returns it with its id', async () => {
    const result = await call(client, 'create_agent', {
      name: 'summarizer',
      description: 'Summarizes text.',
      prompt: 'You summarize the text you are given in three bullet points.',
      environment_id: String(h.env.id),
      max_steps: 4,
      tool_names: ['echo'],
      model: 'openai/gpt-test',
    });
    expect(result.isError).toBeFalsy();
    const agent = result.structuredContent?.agent as Record<string, unknown>;
    expect(agent).toMatchObject({
      name: 'summarizer',
      environment: 'default',
      description: 'Summarizes text.',
      model: 'openai/gpt-test',
      max_steps: 4,
      tools: [expect.objectContaining({ name: 'echo', server: 'calc' })],
    });
    expect(textOf(result)).toContain(`Created agent "summarizer" (agent_id "${agent.id}")`);
    const file = h.workspace.agentFile('default', 'summarizer');
    expect(readFileSync(file, 'utf8')).toContain('You summarize the text');
    const stored = await h.get('summarizer');
    expect(stored.id).toBe(agent.id);
    expect((await h.store.agents.listTools(stored.id)).map((t) => t.name)).toEqual(['echo']);
  });

  it('refuses a name that is taken, leaving the existing file alone', async () => {
    const file = h.workspace.agentFile('default', 'calc');
    const before = readFileSync(file, 'utf8');
    const result = await call(client, 'create_agent', {
      name: 'calc',
      description: 'x',
      prompt: 'x',
      environment_id: String(h.env.id),
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ error: { code: 'AGENT_EXISTS' } });
    expect(textOf(result)).toContain('Agent "calc" already exists');
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('refuses an unknown tool and writes nothing', async () => {
    const result = await call(client, 'create_agent', {
      name: 'broken',
      description: 'x',
      prompt: 'x',
      environment_id: String(h.env.id),
      tool_names: ['teleport'],
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ error: { code: 'TOOL_NOT_FOUND' } });
    expect(textOf(result)).toContain('teleport');
    expect(existsSync(h.workspace.agentFile('default', 'broken'))).toBe(false);
    expect(await h.store.agents.getByName(h.env.id, 'broken')).toBeUndefined();
  });

  it('refuses an unknown environment_id, naming list_environments', async () => {
    const result = await call(client, 'create_agent', {
      name: 'orphan',
      description: 'x',
      prompt: 'x',
      environment_id: '424242',
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      'No environment has id 424242. Call list_environments for valid environment ids. (ENVIRONMENT_NOT_FOUND)',
    );
  });

  it('refuses an invalid agent name with the reason', async () => {
    const result = await call(client, 'create_agent', {
      name: '../escape',
      description: 'x',
      prompt: 'x',
      environment_id: String(h.env.id),
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ error: { code: 'INVALID_NAME' } });
  });

  it('refuses missing required arguments, naming each of them', async () => {
    const result = await call(client, 'create_agent', { name: 'half' });
    expect(result.isError).toBe(true);
    const text = textOf(result);
    for (const field of ['description', 'prompt', 'environment_id']) {
      expect(text).toContain(`at ${field}`);
    }
  });

  it('refuses max_steps that is not a positive whole number', async () => {
    const result = await call(client, 'create_agent', {
      name: 'steps',
      description: 'x',
      prompt: 'x',
      environment_id: String(h.env.id),
      max_steps: 0,
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('max_steps must be at least 1');
  });
});

describe('update_agent', () => {
  it('changes the file and the registration, keeping what was not named', async () => {
    const chat = await h.get('chat');
    const result = await call(client, 'update_agent', {
      agent_id: String(chat.id),
      description: 'Talks politely.',
      max_steps: 7,
      tool_names: ['echo'],
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent?.agent).toMatchObject({
      id: chat.id,
      description: 'Talks politely.',
      max_steps: 7,
      model: 'openai/gpt-test',
      tools: [expect.objectContaining({ name: 'echo' })],
    });
    const text = readFileSync(h.workspace.agentFile('default', 'chat'), 'utf8');
    expect(text).toContain('Talks politely.');
    expect(text).toContain('You are {{agentName}}.');
    expect((await h.get('chat')).maxSteps).toBe(7);
  });

  it('refuses an unknown agent_id', async () => {
    const result = await call(client, 'update_agent', { agent_id: '9999', description: 'x' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      'No agent has id 9999. Call list_agents for valid agent ids. (AGENT_NOT_FOUND)',
    );
  });

  it('refuses a call that changes nothing', async () => {
    const chat = await h.get('chat');
    const result = await call(client, 'update_agent', { agent_id: String(chat.id) });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('Nothing to change');
  });

  it('refuses an unknown tool and leaves the file as it was', async () => {
    const calc = await h.get('calc');
    const file = h.workspace.agentFile('default', 'calc');
    const before = readFileSync(file, 'utf8');
    const result = await call(client, 'update_agent', {
      agent_id: String(calc.id),
      tool_names: ['nope'],
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ error: { code: 'TOOL_NOT_FOUND' } });
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  // Regression (issue 13, item 12): a model name with a newline was accepted and broke tables.
  it('refuses a model or tool name with a control character and leaves the file as it was', async () => {
    const calc = await h.get('calc');
    const file = h.workspace.agentFile('default', 'calc');
    const before = readFileSync(file, 'utf8');
    for (const args of [{ model: 'a\nb: c' }, { tool_names: ['add\u001b[31m'] }]) {
      const result = await call(client, 'update_agent', { agent_id: String(calc.id), ...args });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('must not contain control characters');
    }
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('refuses a missing agent_id as invalid arguments', async () => {
    const result = await call(client, 'update_agent', { description: 'x' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('at agent_id');
  });
});

describe('get_agent_details', () => {
  it('shows the agent with its tools, environment and recent runs', async () => {
    const calc = await h.get('calc');
    const result = await call(client, 'get_agent_details', { agent_id: String(calc.id) });
    expect(result.structuredContent).toMatchObject({
      agent: {
        id: calc.id,
        name: 'calc',
        environment: 'default',
        tools: [{ name: 'add', server: 'calc' }],
        sub_agents: [],
      },
      recent_runs: [],
    });
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
  });

  it('refuses an unknown id and a non-digit id', async () => {
    const unknown = await call(client, 'get_agent_details', { agent_id: '777' });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain('No agent has id 777');
    const bad = await call(client, 'get_agent_details', { agent_id: '12abc' });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('agent_id must be an id: a string of digits');
    const negative = await call(client, 'get_agent_details', { agent_id: -3 });
    expect(textOf(negative)).toContain('agent_id must be 1 or more');
  });
});

describe('list_agents', () => {
  it('lists agents with their environment, and pages with limit and offset', async () => {
    const all = await call(client, 'list_agents');
    const agents = all.structuredContent?.agents as Array<Record<string, unknown>>;
    expect(agents.map((a) => a.name)).toEqual(expect.arrayContaining(['calc', 'chat']));
    expect(agents[0]).toMatchObject({ environment: 'default', environment_id: h.env.id });
    expect(all.structuredContent).toMatchObject({ total: agents.length, limit: 50, offset: 0 });
    const page = await call(client, 'list_agents', { limit: '1', offset: '1' });
    const paged = page.structuredContent?.agents as Array<Record<string, unknown>>;
    expect(paged).toHaveLength(1);
    expect(paged[0]?.name).toBe(agents[1]?.name);
  });

  it('filters by environment_id and refuses an unknown one', async () => {
    const one = await call(client, 'list_agents', { environment_id: String(h.env.id) });
    expect((one.structuredContent?.agents as unknown[]).length).toBeGreaterThan(0);
    const unknown = await call(client, 'list_agents', { environment_id: '31337' });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain('No environment has id 31337');
  });

  it('refuses a limit over 500', async () => {
    const result = await call(client, 'list_agents', { limit: 501 });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('limit must be a whole number from 1 to 500');
  });
});
