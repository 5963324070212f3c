// Tables were reported cut at 80 columns in a wide terminal (`schedule list` showed `0 2 *…`,
// `assis…`) (issue 31): `schedule list` cannot fit 80 columns even with every column cut to its
// header, so cutting lost the cron and the target and the line still wrapped. A table takes the
// terminal's real width (process.stdout.columns), is cut only when that makes it fit, and is
// never cut in a pipe or at a terminal that reports no width.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { runCliAsync, syncedWorkspace } from './run-cli.js';
import { runAtTerminal, withoutEscapes } from './terminal.js';

let fake: FakeOpenAI;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  fake = await startFakeOpenAI({});
  env = { ...(await syncedWorkspace({ modelUrl: fake.url })), NO_COLOR: '1' };
  const set = await runCliAsync(['schedule', 'set', 'assistant', '--cron', '0 2 * * *'], env);
  if (set.status !== 0) throw new Error(`schedule set failed: ${set.stderr}`);
}, 120_000);

afterAll(async () => {
  await fake.close();
  if (env.XDG_CONFIG_HOME) rmSync(env.XDG_CONFIG_HOME, { recursive: true, force: true });
});

/** The non-empty lines `junction schedule list` printed at a terminal `columns` wide. */
async function listAt(columns?: number): Promise<string[]> {
  const run = await runAtTerminal(['schedule', 'list'], {
    env,
    ...(columns !== undefined ? { columns } : {}),
  });
  expect(run.status).toBe(0);
  return withoutEscapes(run.output)
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '');
}

const WHOLE = /^agent\s+assistant\s+default\s+0 2 \* \* \*\s+local\s+yes\s+\S.*\s+operator$/m;

describe('schedule list at a terminal', () => {
  it('200 columns wide: nothing is cut', async () => {
    const lines = await listAt(200);
    expect(lines.join('\n')).toMatch(WHOLE);
    expect(lines.join('\n')).not.toContain('…');
  });

  it('a little narrower than the table: cut with … to fit', async () => {
    const natural = Math.max(
      ...(await runCliAsync(['schedule', 'list'], env)).stdout.split('\n').map((l) => l.length),
    );
    const lines = await listAt(natural - 4);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(natural - 4);
    expect(lines.some((l) => l.includes('…'))).toBe(true);
  });

  it('80 columns, too narrow for the table even cut: every value stays whole', async () => {
    const lines = await listAt(80);
    expect(lines.join('\n')).toMatch(WHOLE);
    expect(lines.join('\n')).not.toContain('…');
  });

  it('a terminal that reports no width: nothing is cut', async () => {
    const lines = await listAt();
    expect(lines.join('\n')).toMatch(WHOLE);
  });

  it('a pipe: nothing is cut', async () => {
    const r = await runCliAsync(['schedule', 'list'], env);
    expect(r.stdout).toMatch(WHOLE);
  });
});
