// The one door for runs as `pnpm lint` holds it: the real shared config refuses a run row written
// anywhere but submitRun (issue 32), in a package's sources and in plain JavaScript (bench),
// and lets the door itself and the tests (which build states by hand) write one.
import { afterAll, describe, expect, it } from '@jest/globals';
import { startLinter } from './linter.js';

const CREATE =
  "import type { Store } from '@junction/store';\n" +
  "export const f = (store: Store) => store.runs.create({ agentName: 'a', task: 't', source: 'api' });\n";
const linter = startLinter();
afterAll(() => linter.close());

async function messages(file: string, code: string): Promise<string[]> {
  return (await linter.lint(file, code)).map((m) => `${m.ruleId}: ${m.message}`);
}

const REFUSED =
  'no-restricted-syntax: Only the run door writes a run row: start it with submitRun (or a RunDoor), never runs.create — see "One run, end to end" in docs/architecture.md.';

describe('only the run door writes a run row', () => {
  it('refuses store.runs.create in a surface, a domain package and the bench', async () => {
    expect(await messages('packages/rest-api/src/door-fixture.ts', CREATE)).toEqual([REFUSED]);
    expect(await messages('packages/workflows/src/door-fixture.ts', CREATE)).toEqual([REFUSED]);
    expect(
      await messages(
        'bench/door-fixture.mjs',
        'export const f = (store) => store.runs.createMany([]);\n',
      ),
    ).toEqual([REFUSED]);
  });

  it('lets the door and the tests write one', async () => {
    expect(await messages('packages/agent-core/src/runs/submit-run.ts', CREATE)).toEqual([]);
    expect(await messages('packages/agent-core/test/door-fixture.test.ts', CREATE)).toEqual([]);
    expect(
      await messages(
        'packages/store/test/fixtures/door-fixture.mjs',
        'export const f = (s) => s.runs.create({});\n',
      ),
    ).toEqual([]);
  });
});
