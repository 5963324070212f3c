// `agent show` printed the prompt file's schedule, not the one in force after `schedule set`
// or `schedule remove` (issue 31). It shows the store's schedule — the one the scheduler fires —
// in text and under --json (agent-core's agentView, which REST and MCP answer with too).
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { runCliAsync, syncedWorkspace } from './run-cli.js';

const PROMPT =
  '---\ntools: [add]\nschedule:\n  cron: "0 9 * * 1-5"\n---\n' +
  '{{role "system"}}\nYou add.\n{{role "user"}}\n{{userInput}}\n';

let fake: FakeOpenAI;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  fake = await startFakeOpenAI({});
  env = await syncedWorkspace({ modelUrl: fake.url, prompt: PROMPT });
}, 120_000);

afterAll(async () => {
  await fake.close();
  if (env.XDG_CONFIG_HOME) rmSync(env.XDG_CONFIG_HOME, { recursive: true, force: true });
});

async function shown(): Promise<{ text: string; schedule: unknown }> {
  const [text, json] = await Promise.all([
    runCliAsync(['agent', 'show', 'assistant'], env),
    runCliAsync(['agent', 'show', 'assistant', '--json'], env),
  ]);
  expect({ status: text.status, stderr: text.stderr }).toEqual({ status: 0, stderr: '' });
  return {
    text: text.stdout,
    schedule: (JSON.parse(json.stdout) as { schedule: unknown }).schedule,
  };
}

async function cli(args: string[]): Promise<void> {
  const r = await runCliAsync(args, env);
  expect({ args, status: r.status, stderr: r.stderr }).toEqual({ args, status: 0, stderr: '' });
}

describe('agent show and the schedule in force', () => {
  it('the file schedule after sync, the operator one after schedule set, none after remove', async () => {
    const synced = await shown();
    expect(synced.text).toMatch(/^ {2}schedule {5}0 9 \* \* 1-5$/m);
    expect(synced.schedule).toEqual({ cron: '0 9 * * 1-5', enabled: true });

    await cli(['schedule', 'set', 'assistant', '--cron', '0 2 * * *']);
    const set = await shown();
    expect(set.text).toMatch(/^ {2}schedule {5}0 2 \* \* \*$/m);
    expect(set.schedule).toEqual({ cron: '0 2 * * *', enabled: true });

    await cli(['schedule', 'remove', 'assistant']);
    const removed = await shown();
    expect(removed.text).not.toMatch(/schedule/);
    expect(removed.schedule).toBeNull();
  }, 120_000);
});
