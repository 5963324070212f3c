// deleteAgent and deleteEnvironment refuse while a run of what they delete is queued or running
// (issue 16): nothing is deleted, and the message says what to cancel.
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from '@jest/globals';
import { deleteAgent, deleteEnvironment } from '../src/agents/delete.js';
import { createHarness, type Harness } from './run-harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('deleting what a run still needs', () => {
  it('refuses an agent with a queued run, and its environment, until the run ends', async () => {
    h = await createHarness();
    h.agent('busy', 'model: openai/gpt-test');
    await h.sync();
    const agent = await h.get('busy');
    const run = await h.store.runs.create({
      agentId: agent.id,
      agentName: 'busy',
      environmentId: agent.environmentId,
      task: 'later',
      source: 'api',
    });
    const target = { store: h.store, workspace: h.workspace, environment: 'default' };
    await expect(deleteAgent({ ...target, name: 'busy' })).rejects.toMatchObject({
      code: 'AGENT_IN_USE',
      details: { active_runs: 1 },
      message: expect.stringContaining('junction runs cancel'),
    });
    await expect(deleteEnvironment(target)).rejects.toMatchObject({ code: 'ENVIRONMENT_IN_USE' });
    expect(existsSync(h.workspace.agentFile('default', 'busy'))).toBe(true);
    expect(await h.store.agents.getByName(agent.environmentId, 'busy')).toBeDefined();
    await h.store.runs.requestCancel(run.id, 'Run cancelled.');
    expect(await deleteAgent({ ...target, name: 'busy' })).toMatchObject({ runs_kept: 1 });
    expect(existsSync(h.workspace.agentFile('default', 'busy'))).toBe(false);
    expect((await h.store.runs.get(run.id))?.agentId).toBeNull();
  });
});
