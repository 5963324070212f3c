import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { parsePromptFile } from '@junction/config-templates';
import { agentView, createAgent, updateAgent } from '../src/agents/agent-admin.js';
import { isAgentCoreError } from '../src/errors.js';
import { createHarness, type Harness } from './run-harness.js';

let h: Harness;

beforeEach(async () => {
  h = await createHarness();
  h.agent('helper', 'model: openai/gpt-test');
  await h.sync();
});
afterEach(async () => {
  await h.close();
});

async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (err) {
    if (isAgentCoreError(err)) return { code: err.code, message: err.message };
    return { code: 'OTHER', message: (err as Error).message };
  }
  throw new Error('expected a refusal');
}

describe('createAgent', () => {
  it('writes the prompt file and registers the agent with its tools and sub-agents', async () => {
    const agent = await createAgent({
      store: h.store,
      workspace: h.workspace,
      environment: 'default',
      draft: {
        name: 'adder',
        description: 'Adds numbers',
        prompt: 'You add numbers.',
        maxSteps: 4,
        tools: ['add', '__echo'],
        agents: ['helper'],
        model: 'openai/gpt-test',
      },
    });
    const file = h.workspace.agentFile('default', 'adder');
    const def = await parsePromptFile(file);
    expect(def).toMatchObject({ name: 'adder', description: 'Adds numbers', maxSteps: 4 });
    expect(def.template).toContain('You add numbers.');
    const view = await agentView(h.store, agent);
    expect(view).toMatchObject({
      name: 'adder',
      environment: 'default',
      max_steps: 4,
      model: 'openai/gpt-test',
      sub_agents: ['helper'],
    });
    expect(view.tools.map((t) => t.name).sort()).toEqual(['add', 'echo']);
  });

  it('refuses an unknown tool, an existing agent and a missing environment, writing nothing', async () => {
    const base = { store: h.store, workspace: h.workspace, environment: 'default' };
    const unknown = await refusal(
      createAgent({ ...base, draft: { name: 'bad', description: 'x', tools: ['nope'] } }),
    );
    expect(unknown.code).toBe('TOOL_NOT_FOUND');
    expect(unknown.message).toContain('nope');
    expect(existsSync(h.workspace.agentFile('default', 'bad'))).toBe(false);

    const exists = await refusal(
      createAgent({ ...base, draft: { name: 'helper', description: 'again' } }),
    );
    expect(exists.code).toBe('AGENT_EXISTS');

    const noEnv = await refusal(
      createAgent({ ...base, environment: 'nowhere', draft: { name: 'x', description: 'x' } }),
    );
    expect(noEnv.code).toBe('ENVIRONMENT_NOT_FOUND');
    expect(noEnv.message).toContain('nowhere');

    const badName = await refusal(
      createAgent({ ...base, draft: { name: '../escape', description: 'x' } }),
    );
    expect(badName.message).toMatch(/name/i);
  });
  it('takes the file back when registering fails, so a retry can succeed', async () => {
    const agents = h.store.agents;
    const failing = Object.create(h.store, {
      agents: {
        value: new Proxy(agents, {
          get(target, property) {
            if (property === 'upsert') return () => Promise.reject(new Error('database is locked'));
            const value = Reflect.get(target, property, target) as unknown;
            return typeof value === 'function' ? value.bind(target) : value;
          },
        }),
      },
    }) as typeof h.store;
    const draft = { name: 'retry', description: 'Try again' };
    await expect(
      createAgent({ store: failing, workspace: h.workspace, environment: 'default', draft }),
    ).rejects.toThrow('database is locked');
    expect(existsSync(h.workspace.agentFile('default', 'retry'))).toBe(false);
    const agent = await createAgent({
      store: h.store,
      workspace: h.workspace,
      environment: 'default',
      draft,
    });
    expect(agent.name).toBe('retry');
  });
});

describe('updateAgent', () => {
  it('changes the named fields, keeps the rest of the file, and re-registers', async () => {
    h.agent(
      'keeper',
      'model: openai/gpt-test\nmetadata:\n  description: Old\nschedule:\n  cron: "0 * * * *"\n  enabled: false\ncustom_key: kept',
    );
    await h.sync();
    const agent = (await h.store.agents.getByName(
      (await h.get('keeper')).environmentId,
      'keeper',
    ))!;
    const updated = await updateAgent({
      store: h.store,
      workspace: h.workspace,
      agentId: agent.id,
      changes: { description: 'New', maxSteps: 3, tools: ['add'] },
    });
    expect(updated).toMatchObject({ id: agent.id, description: 'New', maxSteps: 3 });
    const text = readFileSync(agent.promptPath!, 'utf8');
    expect(text).toContain('custom_key: kept');
    expect(text).toContain('0 * * * *');
    expect(text).toContain('You are {{agentName}}.');
    const view = await agentView(h.store, updated);
    expect(view.tools.map((t) => t.name)).toEqual(['add']);

    const reprompted = await updateAgent({
      store: h.store,
      workspace: h.workspace,
      agentId: agent.id,
      changes: { prompt: 'Be brief.' },
    });
    expect(readFileSync(reprompted.promptPath!, 'utf8')).toContain('Be brief.');
  });

  it('refuses an unknown id or tool and leaves the file as it was', async () => {
    const agent = await h.get('helper');
    const before = readFileSync(agent.promptPath!, 'utf8');
    const unknownTool = await refusal(
      updateAgent({
        store: h.store,
        workspace: h.workspace,
        agentId: agent.id,
        changes: { tools: ['missing_tool'] },
      }),
    );
    expect(unknownTool.code).toBe('TOOL_NOT_FOUND');
    expect(readFileSync(agent.promptPath!, 'utf8')).toBe(before);
    const badSteps = await refusal(
      updateAgent({
        store: h.store,
        workspace: h.workspace,
        agentId: agent.id,
        changes: { maxSteps: 0 },
      }),
    );
    expect(badSteps.message).toMatch(/maxSteps: expected a positive whole number/);
    expect(readFileSync(agent.promptPath!, 'utf8')).toBe(before);
    const unknownId = await refusal(
      updateAgent({ store: h.store, workspace: h.workspace, agentId: 99_999, changes: {} }),
    );
    expect(unknownId.code).toBe('AGENT_NOT_FOUND');
    expect(unknownId.message).toContain('99999');
  });

  // Regression (issue 13, item 12): update_agent {"model": "a\nb: c"} was accepted and then
  // broke tables (and would pass terminal escapes).
  it('refuses a model with a control character and leaves the file as it was', async () => {
    const agent = await h.get('helper');
    const before = readFileSync(agent.promptPath!, 'utf8');
    for (const model of ['a\nb: c', 'openai/gpt\u001b[31m', 'x\ty']) {
      const refused = (await updateAgent({
        store: h.store,
        workspace: h.workspace,
        agentId: agent.id,
        changes: { model },
      }).catch((err: unknown) => err)) as { code: string; message: string };
      expect(refused.code).toBe('PROMPT_INVALID');
      expect(refused.message).toContain('contains a control character');
      expect(readFileSync(agent.promptPath!, 'utf8')).toBe(before);
    }
    expect((await h.store.agents.get(agent.id))?.model).toBe(agent.model);
  });
});
