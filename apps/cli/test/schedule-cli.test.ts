// `junction schedule …` as an operator uses it, on a real store in a temp workspace: set a
// schedule, list it, fire it now (a queued run, source cron_scheduler), remove it — and each
// bad input with its exit code and message.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import type { ScheduleView } from '@junction/scheduler';
import { runCliAsync, syncedWorkspace } from './run-cli.js';

const KEY = 'sk-schedule-cli-key-1234567';

const workflowFile = (id: string): string => `id: ${id}
start: done
inputSchema:
  type: object
  properties: {a: {type: integer}}
  required: [a]
states:
  - id: done
    type: transform
    expression: '{"a": a}'
    end: true
`;

interface ErrorJson {
  error: { code: string; message: string; details: Record<string, unknown> };
}

let fake: FakeOpenAI;
let env: NodeJS.ProcessEnv;
let workflowsDir: string;

const cli = (...args: string[]): ReturnType<typeof runCliAsync> => runCliAsync(args, env);

beforeAll(async () => {
  fake = await startFakeOpenAI({});
  env = await syncedWorkspace({ modelUrl: fake.url, env: { OPENAI_API_KEY: KEY } });
  workflowsDir = path.join(String(env.XDG_CONFIG_HOME), 'junction/environments/default/workflows');
  mkdirSync(workflowsDir, { recursive: true });
}, 180_000);

afterAll(async () => {
  await fake.close();
});

describe('junction schedule', () => {
  it('lists none at first and says how to set one', async () => {
    const r = await cli('schedule', 'list');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('No schedules. Set one with `junction schedule set <agent>');
    expect(JSON.parse((await cli('schedule', 'list', '--json')).stdout)).toEqual([]);
  });

  it('sets, lists, fires now (a queued run from cron_scheduler) and removes an agent schedule', async () => {
    const set = await cli(
      'schedule',
      'set',
      'assistant',
      '--cron',
      '0 9 * * 1-5',
      '--timezone',
      'Europe/Paris',
      '--task',
      'Add 20 and 22',
      '--var',
      'city=Paris',
    );
    expect(set.stderr).toBe('');
    expect(set.status).toBe(0);
    expect(set.stdout).toContain('Schedule set: agent assistant (default)');
    expect(set.stdout).toMatch(/next fire +\d{4}-\d\d-\d\dT(07|08):00:00Z/);
    expect(set.stdout).toContain('A running `junction serve` fires it.');

    const table = await cli('schedule', 'list');
    expect(table.status).toBe(0);
    const [header, row] = table.stdout.trim().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual([
      'KIND',
      'TARGET',
      'ENV',
      'CRON',
      'TIME ZONE',
      'ENABLED',
      'NEXT FIRE',
      'LAST FIRE',
      'LAST OUTCOME',
      'ORIGIN',
    ]);
    expect(row!.split(/\s{2,}/)).toEqual([
      'agent',
      'assistant',
      'default',
      '0 9 * * 1-5',
      'Europe/Paris',
      'yes',
      // Relative in a table, as every table's times (the exact time is in `schedule show`).
      expect.stringMatching(/^in \d+[smhd]$/),
      '-',
      '-',
      'operator',
    ]);
    const [listed] = JSON.parse((await cli('schedule', 'list', '--json')).stdout) as ScheduleView[];
    expect(listed).toMatchObject({
      kind: 'agent',
      target: 'assistant',
      cron: '0 9 * * 1-5',
      timezone: 'Europe/Paris',
      enabled: true,
      task: 'Add 20 and 22',
      variables: { city: 'Paris' },
      origin: 'operator',
      last_outcome: null,
    });
    expect(new Date(listed!.next_run_at!).getTime()).toBeGreaterThan(Date.now());

    const now = await cli('schedule', 'run-now', 'assistant');
    expect(now.stderr).toBe('');
    expect(now.status).toBe(0);
    const runId = Number(/^run (\d+): agent assistant \(default\)/.exec(now.stdout)?.[1]);
    expect(runId).toBeGreaterThan(0);
    expect(now.stdout).toContain('Queued: a running `junction serve` executes it.');
    const runs = JSON.parse((await cli('runs', 'list', '--json')).stdout) as Array<{
      run_id: number;
      status: string;
      source: string;
      task: string;
    }>;
    expect(runs.find((r) => r.run_id === runId)).toMatchObject({
      status: 'queued',
      source: 'cron_scheduler',
      task: 'Add 20 and 22',
    });
    const shown = JSON.parse(
      (await cli('schedule', 'show', 'assistant', '--json')).stdout,
    ) as ScheduleView;
    expect(shown).toMatchObject({ last_outcome: 'started', last_run_id: runId });
    expect(shown.next_run_at).toBe(listed!.next_run_at);

    // Its run still waits for a worker: a second fire now is skipped (overlap skip), exit 0.
    const again = await cli('schedule', 'run-now', 'assistant', '--json');
    expect(again.status).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      outcome: 'skipped',
      run_id: null,
      error: `its previous run ${runId} is still queued`,
    });

    const removed = await cli('schedule', 'remove', 'assistant');
    expect(removed.status).toBe(0);
    expect(removed.stdout).toContain('Schedule removed: agent assistant (default)');
    expect(JSON.parse((await cli('schedule', 'list', '--json')).stdout)).toEqual([]);
    const twice = await cli('schedule', 'remove', 'assistant');
    expect(twice.status).toBe(4);
    expect(twice.stderr).toContain(
      'Error [SCHEDULE_NOT_FOUND]: The agent "assistant" has no schedule.',
    );
  }, 180_000);

  it('refuses a bad cron with exit 2 naming the cron field, and sets nothing', async () => {
    const r = await cli('schedule', 'set', 'assistant', '--cron', '0 25 * * *');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(
      'Error [SCHEDULE_INVALID]: cron: "0 25 * * *" is not a cron expression',
    );
    const json = await cli('schedule', 'set', 'assistant', '--cron', 'every day', '--json');
    expect(json.status).toBe(2);
    const error = (JSON.parse(json.stdout) as ErrorJson).error;
    expect(error.code).toBe('SCHEDULE_INVALID');
    expect(error.details.field).toBe('cron');
    expect(JSON.parse((await cli('schedule', 'list', '--json')).stdout)).toEqual([]);
  });

  it('refuses an unknown agent or environment with exit 4 and says where to look', async () => {
    const r = await cli('schedule', 'set', 'nobody', '--cron', '0 9 * * *');
    expect(r.status).toBe(4);
    expect(r.stderr).toContain(
      'Error [SCHEDULE_TARGET_NOT_FOUND]: No agent or workflow is named "nobody" in environment "default".',
    );
    expect(r.stderr).toContain('junction agent list');
    const agent = await cli('schedule', 'run-now', 'nobody', '--agent', '--json');
    expect(agent.status).toBe(4);
    expect((JSON.parse(agent.stdout) as ErrorJson).error.message).toContain(
      'No agent is named "nobody"',
    );
    const envMissing = await cli('schedule', 'show', 'assistant', '--env', 'nope');
    expect(envMissing.status).toBe(4);
    expect(envMissing.stderr).toContain('No environment is named "nope"');
    expect((await cli('schedule', 'list', '--env', 'nope')).status).toBe(4);
  });

  it.each<[string, string[], string]>([
    [
      '--var without =',
      ['--var', 'city'],
      'Error [INVALID_ARGUMENT]: --var "city" is not name=value',
    ],
    ['--input that is not JSON', ['--input', '{a'], '--input must be JSON'],
    ['--input that is not an object', ['--input', '[1]'], '--input must be a JSON object'],
    ['--input for an agent', ['--input', '{"a": 1}'], 'input: is for workflow schedules'],
    ['an unknown time zone', ['--timezone', 'Mars/Olympus'], 'Error [SCHEDULE_INVALID]: timezone:'],
    ['an unknown --overlap', ['--overlap', 'never'], 'overlap: must be one of skip, queue'],
    ['an unknown --catch-up', ['--catch-up', 'all'], 'catch_up: must be one of once, skip'],
    ['--agent with --workflow', ['--agent', '--workflow'], 'cannot also be provided when using'],
  ])('set refuses %s with exit 2 and sets nothing', async (_, flags, message) => {
    const r = await cli('schedule', 'set', 'assistant', '--cron', '0 9 * * *', ...flags);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(message);
    expect(JSON.parse((await cli('schedule', 'list', '--json')).stdout)).toEqual([]);
  });

  it('list refuses an unknown --kind with exit 2', async () => {
    const r = await cli('schedule', 'list', '--kind', 'job');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--kind must be one of agent, workflow; got "job"');
  });

  it('a fire that cannot start its run exits 8 and is recorded failed', async () => {
    expect(
      (await cli('schedule', 'set', 'assistant', '--cron', '0 9 * * *', '--disabled')).status,
    ).toBe(0);
    const { OPENAI_API_KEY: _key, ...noKey } = env;
    const r = await runCliAsync(['schedule', 'run-now', 'assistant'], noKey);
    expect(r.status).toBe(8);
    expect(r.stderr).toContain('could not start a run: No API key for model');
    const shown = JSON.parse(
      (await cli('schedule', 'show', 'assistant', '--json')).stdout,
    ) as ScheduleView;
    expect(shown).toMatchObject({ enabled: false, next_run_at: null, last_outcome: 'failed' });
    expect(shown.last_error).toContain('OPENAI_API_KEY');
    expect((await cli('schedule', 'remove', 'assistant')).status).toBe(0);
  });

  it('sets a workflow schedule with --input, fires it now, and asks which when a name is both', async () => {
    writeFileSync(path.join(workflowsDir, 'nightly.workflow.yaml'), workflowFile('nightly'));
    writeFileSync(path.join(workflowsDir, 'assistant.workflow.yaml'), workflowFile('assistant'));
    expect((await cli('sync', 'default')).status).toBe(0);

    const setNightly = (...flags: string[]): ReturnType<typeof cli> =>
      cli('schedule', 'set', 'nightly', '--workflow', '--cron', '30 6 * * *', ...flags);
    const set = await setNightly('--input', '{"a":1}', '--json');
    expect(set.status).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({
      kind: 'workflow',
      target: 'nightly',
      cron: '30 6 * * *',
      input: { a: 1 },
      task: null,
    });
    // Without --workflow a name that is only a workflow is found all the same.
    const now = await cli('schedule', 'run-now', 'nightly');
    expect(now.status).toBe(0);
    const runId = Number(/^workflow run (\d+): workflow nightly \(default\)/.exec(now.stdout)?.[1]);
    expect(runId).toBeGreaterThan(0);
    expect(now.stdout).toContain(`junction workflow inspect ${runId}`);
    const runs = JSON.parse((await cli('workflow', 'runs', '--json')).stdout) as Array<{
      id: number;
      status: string;
      source: string;
      input: unknown;
    }>;
    expect(runs.find((r) => r.id === runId)).toMatchObject({
      status: 'pending',
      source: 'cron_scheduler',
      input: { a: 1 },
    });
    const task = await setNightly('--task', 'x');
    expect(task.status).toBe(2);
    expect(task.stderr).toContain('task: is for agent schedules');

    const ambiguous = await cli('schedule', 'set', 'assistant', '--cron', '0 9 * * *');
    expect(ambiguous.status).toBe(2);
    expect(ambiguous.stderr).toContain(
      'Error [SCHEDULE_TARGET_AMBIGUOUS]: "assistant" is both an agent and a workflow in environment "default"; add --agent or --workflow to say which.',
    );
    expect(
      (await cli('schedule', 'set', 'assistant', '--agent', '--cron', '0 9 * * *')).status,
    ).toBe(0);
    expect(
      (
        await cli(
          'schedule',
          'set',
          'assistant',
          '--workflow',
          '--cron',
          '0 10 * * *',
          '--input',
          '{"a": 2}',
        )
      ).status,
    ).toBe(0);
    const workflows = JSON.parse(
      (await cli('schedule', 'list', '--kind', 'workflow', '--json')).stdout,
    ) as ScheduleView[];
    expect(workflows.map((s) => [s.target, s.cron]).sort()).toEqual([
      ['assistant', '0 10 * * *'],
      ['nightly', '30 6 * * *'],
    ]);
    expect((await cli('schedule', 'remove', 'assistant')).status).toBe(2);
    expect((await cli('schedule', 'remove', 'assistant', '--workflow')).status).toBe(0);
    expect((await cli('schedule', 'show', 'assistant', '--agent')).status).toBe(0);
  }, 180_000);
});
