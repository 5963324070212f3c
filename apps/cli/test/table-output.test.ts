// Tables (issue 16): at a terminal long values are cut to its width with "…" unless
// --no-truncate; a pipe never cuts; --columns picks columns by name.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { runCliAsync, syncedWorkspace } from './run-cli.js';
import { runAtTerminal } from './terminal.js';

const LONG_TASK = `Summarise ${'every file in the folder '.repeat(6)}now`;
let fake: FakeOpenAI;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  fake = await startFakeOpenAI({});
  env = await syncedWorkspace({
    modelUrl: fake.url,
    env: { OPENAI_API_KEY: 'sk-table-key-1234567' },
  });
  fake.script([{ text: 'done' }]);
  const run = await runCliAsync(['agent', 'run', 'assistant', LONG_TASK], env);
  if (run.status !== 0) throw new Error(run.stderr);
}, 180_000);
afterAll(async () => {
  await fake.close();
});

/** `junction args` at a terminal `columns` wide; the lines it printed. */
async function atTerminal(args: string[], columns: number): Promise<string[]> {
  const { output } = await runAtTerminal(args, { env: { ...env, NO_COLOR: '1' }, columns });
  return output.split(/\r?\n/).filter((l) => l.trim() !== '');
}

describe('tables', () => {
  it('at a terminal: every line fits its width, the long task cut with …', async () => {
    const lines = await atTerminal(['runs', 'list'], 90);
    expect(lines[0]).toMatch(/^ID\s+AGENT/);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(90);
    expect(lines.some((l) => l.includes('Summarise') && l.endsWith('…'))).toBe(true);
  });

  it('--no-truncate keeps the whole value', async () => {
    const lines = await atTerminal(['runs', 'list', '--no-truncate'], 90);
    expect(lines.some((l) => l.includes(LONG_TASK))).toBe(true);
  });

  it('in a pipe nothing is cut', async () => {
    const result = await runCliAsync(['runs', 'list'], env);
    expect(result.stdout).toContain(LONG_TASK);
  });

  it('--columns picks columns by name, in that order; an unknown one is refused', async () => {
    const result = await runCliAsync(['runs', 'list', '--columns', 'status,id'], env);
    expect(result.status).toBe(0);
    const [header, row] = result.stdout.trim().split('\n');
    expect(header).toMatch(/^STATUS\s+ID$/);
    expect(row).toMatch(/^completed\s+\d+$/);
    const bad = await runCliAsync(['runs', 'list', '--columns', 'colour'], env);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('there is no column "colour"; the columns are id, agent');
  });
});
