// `junction schedule set --input` with an input nested deeper than the one run-input limit (64
// levels) stored a schedule whose every fire failed (100 levels) or crashed on the stack (thousands);
// a workflow file's schedule input went the same way at sync. Both now refuse it, naming the limit:
// schedule set exits 2 (invalid input) and sets nothing; sync reports the file and keeps no schedule.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, expect, it } from '@jest/globals';
import { runCliAsync, tempConfigHome } from './run-cli.js';

const WORKFLOW = `id: nightly
start: done
states:
  - id: done
    type: inject
    data: {}
    end: true
`;

const REASON =
  'input: is nested more than 64 levels deep (objects and arrays inside one another); flatten it to at most 64 levels';

let env: NodeJS.ProcessEnv;
let home: string;

const cli = (...args: string[]): ReturnType<typeof runCliAsync> => runCliAsync(args, env);

/** JSON text of an object `levels` deep: {"a":{"a":…{}}}. */
const nested = (levels: number): string =>
  `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;

beforeAll(async () => {
  home = tempConfigHome();
  env = { XDG_CONFIG_HOME: home };
  const init = await cli('init');
  expect(init.stderr).toBe('');
  writeFileSync(
    path.join(home, 'junction/environments/default/workflows/nightly.workflow.yaml'),
    WORKFLOW,
  );
  const sync = await cli('sync', 'default');
  expect(`${sync.status} ${sync.stderr}`).toBe('0 ');
}, 60_000);

it.each([65, 100, 20_000])(
  'schedule set refuses --input %i levels deep with exit 2 and sets nothing',
  async (levels) => {
    const file = path.join(home, `input-${levels}.json`);
    writeFileSync(file, nested(levels));
    const r = await cli(
      'schedule',
      'set',
      'nightly',
      '--workflow',
      '--cron',
      '0 9 * * *',
      '--input',
      `@${file}`,
    );
    expect(r.stderr).toContain(`Error [SCHEDULE_INVALID]: ${REASON}`);
    expect(r.stderr).not.toContain('Maximum call stack');
    expect(r.status).toBe(2);
    expect(JSON.parse((await cli('schedule', 'list', '--json')).stdout)).toEqual([]);
  },
);

it('schedule set accepts --input 64 levels deep', async () => {
  const r = await cli(
    'schedule',
    'set',
    'nightly',
    '--workflow',
    '--cron',
    '0 9 * * *',
    '--input',
    nested(64),
  );
  expect(`${r.status} ${r.stderr}`).toBe('0 ');
  expect((await cli('schedule', 'remove', 'nightly', '--workflow')).status).toBe(0);
});

it('sync refuses a workflow file whose schedule input is 100 levels deep, naming the limit', async () => {
  const deepYaml = `${WORKFLOW}schedule:\n  cron: "0 9 * * *"\n  input: ${nested(100)}\n`;
  writeFileSync(
    path.join(home, 'junction/environments/default/workflows/deep.workflow.yaml'),
    deepYaml,
  );
  const sync = await cli('sync', 'default');
  expect(sync.stdout + sync.stderr).toContain(`schedule.${REASON}`);
  expect(sync.status).not.toBe(0);
  expect(JSON.parse((await cli('schedule', 'list', '--json')).stdout)).toEqual([]);
});
