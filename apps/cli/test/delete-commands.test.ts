// `junction agent delete` and `junction env delete` (issue 16): asked first at a terminal,
// --force in a pipe, run history kept, refused while something still needs what is deleted.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { runCliAsync, syncedWorkspace } from './run-cli.js';
import { runAtTerminal, type TerminalRun } from './terminal.js';

const KEY = 'sk-delete-test-key-1234567';
let fake: FakeOpenAI;
let env: NodeJS.ProcessEnv;
let workspace: string;

beforeAll(async () => {
  fake = await startFakeOpenAI({});
  env = await syncedWorkspace({ modelUrl: fake.url, env: { OPENAI_API_KEY: KEY } });
  workspace = path.join(String(env.XDG_CONFIG_HOME), 'junction');
}, 180_000);
afterAll(async () => {
  await fake.close();
});

const cli = (...args: string[]) => runCliAsync(args, env);
const agentFile = (name: string, environment = 'default') =>
  path.join(workspace, 'environments', environment, 'agents', `${name}.prompt`);
const json = <T>(text: string): T => JSON.parse(text) as T;

/** `junction args` under a pseudo-terminal, answering `answer` to the y/N question. */
function atTerminal(args: string[], answer: string): Promise<TerminalRun> {
  return runAtTerminal(args, { env, answer: { when: '[y/N]', send: answer } });
}

describe('junction agent delete', () => {
  it('in a pipe without --force: refuses, says to add --force, deletes nothing', async () => {
    const result = await cli('agent', 'delete', 'assistant');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('add --force');
    expect(existsSync(agentFile('assistant'))).toBe(true);
  });

  it('at a terminal: no keeps it; yes deletes it', async () => {
    writeFileSync(agentFile('scratch'), '---\nmodel: openai/gpt-test\n---\nScratch.\n');
    expect((await cli('sync', 'default')).status).toBe(0);
    const declined = await atTerminal(['agent', 'delete', 'scratch'], 'n\r');
    expect(declined.output).toContain('Delete agent "scratch" of environment "default"');
    expect(declined.output).toContain('Nothing deleted.');
    expect(existsSync(agentFile('scratch'))).toBe(true);
    const accepted = await atTerminal(['agent', 'delete', 'scratch'], 'y\r');
    expect(accepted.status).toBe(0);
    expect(accepted.output).toContain('Deleted agent "scratch"');
    expect(existsSync(agentFile('scratch'))).toBe(false);
  });

  it('--force: removes the file and the record, keeps its runs under its name', async () => {
    fake.script([{ text: 'done' }]);
    expect((await cli('agent', 'run', 'assistant', 'hi')).status).toBe(0);
    const result = await cli('agent', 'delete', 'assistant', '--force', '--json');
    expect(result.status).toBe(0);
    expect(json(result.stdout)).toEqual({
      deleted: true,
      agent: 'assistant',
      environment: 'default',
      prompt_file: agentFile('assistant'),
      runs_kept: 1,
    });
    expect(existsSync(agentFile('assistant'))).toBe(false);
    const agents = json<Array<{ name: string }>>((await cli('agent', 'list', '--json')).stdout);
    expect(agents.map((a) => a.name)).not.toContain('assistant');
    const runs = json<Array<{ agent_name: string; agent_id: number | null }>>(
      (await cli('runs', 'list', '--json')).stdout,
    );
    expect(runs).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ agent_name: 'assistant', agent_id: null }),
      ]),
    );
    // A sync does not bring it back: its file is gone.
    expect((await cli('sync', 'default')).status).toBe(0);
    const again = await cli('agent', 'delete', 'assistant', '--force');
    expect(again.status).toBe(4);
    expect(again.stderr).toContain('AGENT_NOT_FOUND');
  });

  it('refuses an agent another calls as a sub-agent (AGENT_IN_USE, exit 5), deleting nothing', async () => {
    writeFileSync(agentFile('helper'), '---\nmodel: openai/gpt-test\n---\nHelps.\n');
    writeFileSync(
      agentFile('boss'),
      '---\nmodel: openai/gpt-test\nagents: [helper]\n---\nBosses.\n',
    );
    expect((await cli('sync', 'default')).status).toBe(0);
    const result = await cli('agent', 'delete', 'helper', '--force', '--json');
    expect(result.status).toBe(5);
    expect(json<{ error: { code: string; message: string } }>(result.stdout).error).toMatchObject({
      code: 'AGENT_IN_USE',
      message: expect.stringContaining('sub-agent of "boss"'),
    });
    expect(existsSync(agentFile('helper'))).toBe(true);
  });
});

describe('junction env delete', () => {
  it('--force removes the folder and its records; an unknown one is ENVIRONMENT_NOT_FOUND', async () => {
    expect((await cli('env', 'create', 'staging')).status).toBe(0);
    writeFileSync(
      path.join(workspace, 'environments', 'staging', 'agents', 'temp.prompt'),
      '---\nmodel: openai/gpt-test\n---\nTemp.\n',
    );
    expect((await cli('sync', 'staging')).status).toBe(0);
    const refused = await cli('env', 'delete', 'staging', '--json');
    expect(refused.status).toBe(2);
    const result = await cli('env', 'delete', 'staging', '--force', '--json');
    expect(result.status).toBe(0);
    expect(json(result.stdout)).toMatchObject({
      deleted: true,
      environment: 'staging',
      folder: path.join(workspace, 'environments', 'staging'),
      agents: 1,
      runs_kept: 0,
    });
    expect(existsSync(path.join(workspace, 'environments', 'staging'))).toBe(false);
    const envs = json<Array<{ name: string }>>((await cli('env', 'list', '--json')).stdout);
    expect(envs.map((e) => e.name)).toEqual(['default']);
    const unknown = await cli('env', 'delete', 'staging', '--force');
    expect(unknown.status).toBe(4);
    expect(unknown.stderr).toContain('ENVIRONMENT_NOT_FOUND');
  });
});
