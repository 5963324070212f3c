import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { runCli, runCliAsync, syncedWorkspace } from './run-cli.js';

const KEY = 'sk-cli-test-key-987654321';

let fake: FakeOpenAI;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  fake = await startFakeOpenAI({});
  env = await syncedWorkspace({
    modelUrl: fake.url,
    env: { OPENAI_API_KEY: KEY },
    prompt:
      '---\ntools: [add]\nmax_steps: 4\n---\n{{role "system"}}\nYou add.\n{{role "user"}}\n{{userInput}} in {{city}}\n',
  });
});

afterAll(async () => {
  await fake.close();
});

beforeEach(() => fake.reset());

describe('junction agent run', () => {
  it('shows each model turn and tool call, then the final answer', async () => {
    fake.script([
      { toolCalls: [{ name: 'add', arguments: { a: 20, b: 22 } }] },
      { text: 'It is 42.' },
    ]);
    const r = await runCliAsync(
      ['agent', 'run', 'assistant', 'Add 20 and 22', '--var', 'city=Paris'],
      env,
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/turn 1\s+openai\/gpt-test\s+10 in \/ 5 out\s+\d+ms\s+→ add/);
    expect(r.stdout).toMatch(/tool calc\/add\s+ok/);
    expect(r.stdout).toMatch(/turn 2/);
    expect(r.stdout).toContain('It is 42.');
    expect(r.stdout).toMatch(/completed in [\d.]+s, 2 model turns, tokens 20 in \/ 10 out/);
    expect(JSON.stringify(fake.requests[0]!.body.messages)).toContain('Add 20 and 22 in Paris');
    const runs = JSON.parse(runCli(['runs', 'list', '--json'], env).stdout) as Array<
      Record<string, unknown>
    >;
    expect(runs[0]).toMatchObject({ agent_name: 'assistant', status: 'completed', steps_taken: 2 });
  });

  it('--json prints the run record', async () => {
    fake.script([{ text: 'fine' }]);
    const r = await runCliAsync(
      ['agent', 'run', 'assistant', 'hello', '--json', '--var', 'city=Oslo'],
      env,
    );
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      agent_name: 'assistant',
      status: 'completed',
      steps_taken: 1,
      final_response: 'fine',
      model: 'openai/gpt-test',
      input_tokens: 10,
      output_tokens: 5,
    });
  });

  it('exits 8 with the provider message when the run fails', async () => {
    fake.script([{ error: { status: 400, message: 'context length exceeded' } }]);
    const r = await runCliAsync(['agent', 'run', 'assistant', 'x', '--var', 'city=Rome'], env);
    expect(r.status).toBe(8);
    expect(r.stderr).toContain('context length exceeded');
    expect(r.stderr).not.toContain(KEY);
  });

  it('exits 9 when the run times out', async () => {
    fake.script([{ delayMs: 10_000, text: 'late' }]);
    const r = await runCliAsync(
      ['agent', 'run', 'assistant', 'x', '--timeout', '1', '--var', 'city=Rome'],
      env,
    );
    expect(r.status).toBe(9);
    expect(r.stderr).toContain('timeout');
  });

  it('refuses before any run exists when the API key is missing (exit 3)', async () => {
    const before = (JSON.parse(runCli(['runs', 'list', '--json'], env).stdout) as unknown[]).length;
    const r = await runCliAsync(['agent', 'run', 'assistant', 'x'], { ...env, OPENAI_API_KEY: '' });
    expect(r.status).toBe(3);
    expect(r.stderr).toContain('OPENAI_API_KEY');
    const after = (JSON.parse(runCli(['runs', 'list', '--json'], env).stdout) as unknown[]).length;
    expect(after).toBe(before);
  });

  it('exits 4 for an unknown agent and 2 for a malformed --var', async () => {
    expect((await runCliAsync(['agent', 'run', 'ghost', 'x'], env)).status).toBe(4);
    const bad = await runCliAsync(['agent', 'run', 'assistant', 'x', '--var', 'novalue'], env);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('name=value');
  });
});
