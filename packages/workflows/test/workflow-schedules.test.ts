// A workflow's schedule — a `cron` start state or a top-level `schedule:` block — is checked
// where it is written (state and field named) and stored by sync for the scheduler.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { readYaml, resolvePaths, Workspace } from '@junction/config-templates';
import { openStore, type Schedule, type Store } from '@junction/store';
import { cronTriggerOf, isWorkflowError, parseWorkflow, syncWorkflows } from '../src/index.js';

// 06:00 in Chicago (CST, UTC-6) and 21:00 in Tokyo (UTC+9).
const clock = (): Date => new Date('2025-03-01T12:00:00Z');

const indent = (text: string, by: string): string =>
  text
    .split('\n')
    .map((line) => by + line)
    .join('\n');

/** A workflow `daily` whose start state is a cron trigger with these fields. */
function cronStart(trigger: string): string {
  return `id: daily
start: schedule
states:
  - name: schedule
    type: cron
${indent(trigger, '    ')}
    next: work
  - {name: work, type: inject, data: {ok: true}, end: true}
`;
}

/** A workflow `nightly` with this top-level schedule block. */
function scheduleBlock(block: string): string {
  return `id: nightly
schedule:
${indent(block, '  ')}
states:
  - {name: work, type: inject, data: {ok: true}, end: true}
`;
}

/** The trigger of a workflow that validates, whose runs start at `work`. */
function triggerIn(text: string): ReturnType<typeof cronTriggerOf> {
  expect(parseWorkflow(text, 'test.workflow.yaml').graph.start).toBe('work');
  const read = readYaml(text);
  return read.ok ? cronTriggerOf(read.value) : undefined;
}

function problemsOf(text: string): unknown[] {
  try {
    parseWorkflow(text, 'test.workflow.yaml');
  } catch (err) {
    if (isWorkflowError(err, 'WORKFLOW_INVALID')) return err.details.problems as unknown[];
    throw err;
  }
  throw new Error('the workflow validated');
}

describe('a workflow schedule in the definition', () => {
  it('reads a cron start state as the trigger, and runs start at its next state', () => {
    const text = cronStart(
      'cron: "0 9 * * *"\ntimezone: America/Chicago\nenabled: true\ninput: {namespace: production}',
    );
    expect(triggerIn(text)).toEqual({
      cron: '0 9 * * *',
      timezone: 'America/Chicago',
      enabled: true,
      input: { namespace: 'production' },
    });
  });

  it('reads a top-level schedule block with its catch-up and overlap policies', () => {
    const text = scheduleBlock(
      'cron: "0 2 * * *"\ntimezone: Asia/Tokyo\ncatch_up: skip\noverlap: queue\ninput: {full: true}',
    );
    expect(triggerIn(text)).toEqual({
      cron: '0 2 * * *',
      timezone: 'Asia/Tokyo',
      enabled: true,
      input: { full: true },
      catchUp: 'skip',
      overlap: 'queue',
    });
  });

  it('refuses a cron start state whose cron or time zone is wrong, naming the state', () => {
    expect(problemsOf(cronStart('cron: "0 9 * *"'))).toEqual([
      { state: 'schedule', field: 'cron', message: expect.stringContaining('has 4 fields') },
    ]);
    expect(problemsOf(cronStart('cron: "0 0 31 2 *"'))).toEqual([
      { state: 'schedule', field: 'cron', message: expect.stringContaining('never fires') },
    ]);
    expect(problemsOf(cronStart('cron: "0 9 * * *"\ntimezone: Mars/Olympus'))).toEqual([
      { state: 'schedule', field: 'timezone', message: expect.stringContaining('IANA') },
    ]);
    expect(problemsOf(cronStart('timezone: UTC'))).toEqual([
      { state: 'schedule', field: 'cron', message: expect.stringContaining('cron expression') },
    ]);
  });

  it('refuses a cron start state whose input, enabled or policies are the wrong type', () => {
    expect(
      problemsOf(
        cronStart('cron: "0 9 * * *"\ninput: [a, b]\nenabled: "yes"\ncatch_up: all\noverlap: 2'),
      ),
    ).toEqual([
      { state: 'schedule', field: 'enabled', message: 'must be true or false' },
      { state: 'schedule', field: 'input', message: expect.stringContaining('must be a mapping') },
      { state: 'schedule', field: 'catch_up', message: 'must be once or skip, got "all"' },
      { state: 'schedule', field: 'overlap', message: 'must be skip or queue, got 2' },
    ]);
  });

  it('refuses a bad schedule block, naming schedule.<field>', () => {
    expect(problemsOf(scheduleBlock('cron: "61 * * * *"'))).toEqual([
      { field: 'schedule.cron', message: expect.stringContaining('not a cron expression') },
    ]);
    expect(problemsOf(scheduleBlock('cron: "0 2 * * *"\ntimezone: Nowhere\ninput: text'))).toEqual([
      { field: 'schedule.timezone', message: expect.stringContaining('not a time zone') },
      { field: 'schedule.input', message: expect.stringContaining('must be a mapping') },
    ]);
    expect(problemsOf(scheduleBlock('cron: "0 2 * * *"\ncatch_up: always'))).toEqual([
      { field: 'schedule.catch_up', message: 'must be once or skip, got "always"' },
    ]);
    expect(
      problemsOf('id: x\nschedule: "0 2 * * *"\nstates: [{name: a, type: inject, data: 1}]'),
    ).toEqual([{ field: 'schedule', message: expect.stringContaining('must be a mapping') }]);
  });

  it('refuses a schedule declared twice', () => {
    const text = cronStart('cron: "0 9 * * *"').replace(
      'start: schedule\n',
      'start: schedule\nschedule: {cron: "0 10 * * *"}\n',
    );
    expect(problemsOf(text)).toEqual([
      { field: 'schedule', message: expect.stringContaining('declare the schedule once') },
    ]);
  });
});

describe('syncWorkflows and schedules', () => {
  let home: string;
  let workspace: Workspace;
  let store: Store;

  beforeEach(async () => {
    home = mkdtempSync(path.join(os.tmpdir(), 'junction-wf-schedules-'));
    workspace = new Workspace(resolvePaths({ XDG_CONFIG_HOME: home }));
    await workspace.init();
    mkdirSync(path.join(workspace.environmentDir('default'), 'workflows'), { recursive: true });
    store = await openStore({ url: path.join(home, 'junction.db') });
  });

  afterEach(async () => {
    await store.close();
    rmSync(home, { recursive: true, force: true });
  });

  function write(name: string, text: string): void {
    writeFileSync(
      path.join(workspace.environmentDir('default'), 'workflows', `${name}.workflow.yaml`),
      text,
    );
  }

  async function sync(dryRun = false): Promise<Awaited<ReturnType<typeof syncWorkflows>>> {
    return syncWorkflows({ workspace, store, environment: 'default', dryRun, now: clock });
  }

  async function scheduleOf(workflowId: string): Promise<Schedule | undefined> {
    const env = await store.environments.getByName('default');
    const row = await store.workflows.getByWorkflowId(env!.id, workflowId);
    return row ? store.schedules.getFor('workflow', row.id) : undefined;
  }

  it("stores a cron start state's schedule with its next time in its time zone", async () => {
    write(
      'daily',
      cronStart('cron: "0 9 * * *"\ntimezone: America/Chicago\ninput: {namespace: production}'),
    );
    const result = await sync();
    expect(result.schedules).toBe(1);
    expect(await scheduleOf('daily')).toMatchObject({
      kind: 'workflow',
      target: 'daily',
      cron: '0 9 * * *',
      timezone: 'America/Chicago',
      enabled: true,
      input: { namespace: 'production' },
      origin: 'file',
      catchUp: 'once',
      overlap: 'skip',
      nextRunAt: new Date('2025-03-01T15:00:00Z'),
    });
  });

  it("stores a schedule block's schedule, and none while it is disabled", async () => {
    write('nightly', scheduleBlock('cron: "0 9 * * *"\ntimezone: Asia/Tokyo\ncatch_up: skip'));
    await sync();
    expect(await scheduleOf('nightly')).toMatchObject({
      timezone: 'Asia/Tokyo',
      catchUp: 'skip',
      input: null,
      nextRunAt: new Date('2025-03-02T00:00:00Z'),
    });
    write('nightly', scheduleBlock('cron: "0 9 * * *"\nenabled: false'));
    await sync();
    expect(await scheduleOf('nightly')).toMatchObject({ enabled: false, nextRunAt: null });
  });

  it('drops the file schedule when the trigger goes away, or the file is no longer valid', async () => {
    write('daily', cronStart('cron: "0 9 * * *"'));
    write('nightly', scheduleBlock('cron: "0 2 * * *"'));
    await sync();
    expect(await store.schedules.list()).toHaveLength(2);

    write('nightly', 'id: nightly\nstates:\n  - {name: work, type: inject, data: {}, end: true}\n');
    write('daily', cronStart('cron: "0 9 * *"'));
    const result = await sync();
    expect(result.workflows.find((w) => w.workflowId === 'daily')).toMatchObject({
      status: 'error',
      error: expect.stringContaining('state "schedule": cron:'),
    });
    expect(result.schedules).toBe(0);
    expect(await store.schedules.list()).toEqual([]);
  });

  it('leaves a schedule an operator set alone, whatever the file says', async () => {
    write('daily', cronStart('cron: "0 9 * * *"'));
    await sync();
    const env = await store.environments.getByName('default');
    const row = await store.workflows.getByWorkflowId(env!.id, 'daily');
    await store.schedules.set(
      { kind: 'workflow', id: row!.id, name: 'daily', environmentId: env!.id },
      { cron: '*/5 * * * *', origin: 'operator', nextRunAt: new Date('2025-03-01T12:05:00Z') },
    );

    write('daily', cronStart('cron: "0 7 * * *"'));
    await sync();
    expect(await scheduleOf('daily')).toMatchObject({ cron: '*/5 * * * *', origin: 'operator' });
    write('daily', 'id: daily\nstates:\n  - {name: work, type: inject, data: {}, end: true}\n');
    await sync();
    expect(await scheduleOf('daily')).toMatchObject({ cron: '*/5 * * * *', origin: 'operator' });
  });

  it('--dry-run counts the schedules and writes none', async () => {
    write('daily', cronStart('cron: "0 9 * * *"'));
    expect((await sync(true)).schedules).toBe(1);
    expect(await store.schedules.list()).toEqual([]);
  });
});
