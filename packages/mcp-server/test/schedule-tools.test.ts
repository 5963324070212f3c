// The schedule tools against a real store (agents synced from prompt files, a workflow row) and a
// real Scheduler: the reference's set_schedule / get_schedule / remove_schedule answers, Junction's
// list_schedules, workflow schedules, every refusal with its code and words, and the audit rows.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Scheduler } from '@junction/scheduler';
import type { Agent, Environment, Workflow } from '@junction/store';
import {
  auditRowsOf,
  call,
  connectInMemory,
  createHarness,
  dataOf,
  refusal,
  textOf,
  type Harness,
} from './harness.js';

let h: Harness;
let client: Client;
let closeClient: () => Promise<void>;
let scheduler: Scheduler;
let calc: Agent;
let nightly: Agent;
let helper: Agent;
let staging: Environment;
let wf: Workflow;
let stagingWf: Workflow;

const WF = {
  id: 'wf',
  start: 'a',
  states: [{ id: 'a', type: 'inject', data: { x: 1 }, end: true }],
  inputSchema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
};

beforeAll(async () => {
  h = await createHarness({
    agents: {
      calc: 'model: openai/gpt-test\ndescription: Adds numbers\ntools: [add]',
      helper: 'model: openai/gpt-test',
      nightly: 'model: openai/gpt-test\nschedule:\n  cron: "0 3 * * *"\n  timezone: UTC',
    },
  });
  calc = await h.get('calc');
  helper = await h.get('helper');
  nightly = await h.get('nightly');
  staging = await h.store.environments.create({ name: 'staging' });
  wf = await h.store.workflows.upsert(h.env.id, {
    workflowId: 'wf',
    name: 'Simple',
    definition: WF,
  });
  stagingWf = await h.store.workflows.upsert(staging.id, {
    workflowId: 'wf',
    name: 'Simple (staging)',
    definition: WF,
  });
  scheduler = new Scheduler({ store: h.store, runs: h.deps.runs, logger: h.logger });
  ({ client, close: closeClient } = await connectInMemory({ ...h.deps, scheduler }));
});

afterAll(async () => {
  await closeClient?.();
  await h?.close();
});

/** Every schedule row as stored, to show a refusal wrote nothing. */
async function stored(): Promise<string> {
  return JSON.stringify(await h.store.schedules.list());
}

describe('set_schedule', () => {
  it('schedules an agent and answers as the reference does, with the schedule view in details', async () => {
    const changed = jest.spyOn(scheduler, 'changed');
    const result = await call(client, 'set_schedule', {
      agent_id: String(calc.id),
      cron_schedule: '0 9 * * 1-5',
      schedule_variables: '{"city": "Paris", "GITHUB_TOKEN": "ghp_scheduleSecretValue123"}',
      timezone: 'Europe/Paris',
    });
    expect(result.isError).toBeFalsy();
    const answer = dataOf(result);
    expect(answer).toEqual({
      success: true,
      message: "Schedule set for agent 'calc' and activated in scheduler",
      agent: { id: calc.id, name: 'calc' },
      schedule: {
        cron_expression: '0 9 * * 1-5',
        enabled: true,
        schedule_variables: { city: 'Paris', GITHUB_TOKEN: '[REDACTED]' },
      },
      details: {
        id: expect.any(Number),
        kind: 'agent',
        target: 'calc',
        agent_id: calc.id,
        workflow_id: null,
        environment_id: h.env.id,
        cron: '0 9 * * 1-5',
        timezone: 'Europe/Paris',
        enabled: true,
        task: null,
        variables: { city: 'Paris', GITHUB_TOKEN: '[REDACTED]' },
        input: null,
        origin: 'operator',
        catch_up: 'once',
        overlap: 'skip',
        next_run_at: expect.stringMatching(/T0[78]:00:00\.000Z$/),
        last_run_at: null,
        last_outcome: null,
        last_error: null,
        last_run_id: null,
      },
    });
    expect(JSON.parse(textOf(result))).toEqual(answer);
    // The store keeps the real value; only the answer hides it.
    expect((await h.store.schedules.getFor('agent', calc.id))?.variables).toEqual({
      city: 'Paris',
      GITHUB_TOKEN: 'ghp_scheduleSecretValue123',
    });
    expect(changed).toHaveBeenCalledTimes(1);
    changed.mockRestore();
  });

  it('replaces the schedule an agent has, with an object of variables, a task and policies', async () => {
    const before = await h.store.schedules.getFor('agent', calc.id);
    const result = await call(client, 'set_schedule', {
      agent_id: calc.id,
      cron_schedule: '*/15 * * * *',
      schedule_variables: { city: 'Lyon' },
      enabled: false,
      task: 'Add 20 and 22',
      catch_up: 'skip',
      overlap: 'queue',
    });
    expect(dataOf(result)).toMatchObject({
      message:
        "Schedule set for agent 'calc'; it is disabled and does not fire until set again with enabled true",
      schedule: {
        cron_expression: '*/15 * * * *',
        enabled: false,
        schedule_variables: { city: 'Lyon' },
      },
      details: {
        id: before?.id,
        timezone: null,
        task: 'Add 20 and 22',
        catch_up: 'skip',
        overlap: 'queue',
        next_run_at: null,
      },
    });
  });

  it('takes a blank schedule_variables as none', async () => {
    const result = await call(client, 'set_schedule', {
      agent_id: String(helper.id),
      cron_schedule: '0 12 * * *',
      schedule_variables: '',
    });
    expect(dataOf(result)).toMatchObject({ schedule: { schedule_variables: {} } });
  });

  it('schedules a workflow by workflow_id (in environment_id, or by its row id) with its input', async () => {
    const result = await call(client, 'set_schedule', {
      workflow_id: 'wf',
      environment_id: String(staging.id),
      cron_schedule: '0 2 * * *',
      timezone: 'UTC',
      input: { n: 3 },
    });
    expect(result.isError).toBeFalsy();
    expect(dataOf(result)).toMatchObject({
      success: true,
      message: "Schedule set for workflow 'wf' and activated in scheduler",
      workflow: { id: stagingWf.id, workflow_id: 'wf', environment_id: staging.id },
      schedule: { cron_expression: '0 2 * * *', enabled: true, schedule_variables: {} },
      details: { kind: 'workflow', workflow_id: stagingWf.id, agent_id: null, input: { n: 3 } },
    });
    expect(dataOf(result)).not.toHaveProperty('agent');
    const byRow = await call(client, 'set_schedule', {
      workflow_id: String(wf.id),
      cron_schedule: '0 4 * * *',
    });
    expect(dataOf(byRow)).toMatchObject({
      workflow: { id: wf.id, workflow_id: 'wf', environment_id: h.env.id },
    });
    const byName = await call(client, 'set_schedule', {
      workflow_id: 'wf',
      cron_schedule: '0 5 * * *',
    });
    expect(dataOf(byName)).toMatchObject({
      workflow: { id: wf.id },
      details: { cron: '0 5 * * *' },
    });
  });

  it('refuses a bad cron or time zone as ARGUMENT_INVALID naming the argument; nothing is written', async () => {
    const before = await stored();
    const cron = refusal(
      await call(client, 'set_schedule', {
        agent_id: String(calc.id),
        cron_schedule: '61 * * * *',
      }),
    );
    expect(cron.code).toBe('ARGUMENT_INVALID');
    expect(cron.message).toMatch(/^cron_schedule: "61 \* \* \* \*" is not a cron expression: /);
    expect(cron.details).toEqual({
      issues: [{ path: 'cron_schedule', message: cron.message.slice('cron_schedule: '.length) }],
    });
    const fields = refusal(
      await call(client, 'set_schedule', { agent_id: String(calc.id), cron_schedule: '* * *' }),
    );
    expect(fields.message).toBe(
      'cron_schedule: "* * *" has 3 fields; write 5 (minute hour day month weekday) or 6 (seconds first)',
    );
    const zone = refusal(
      await call(client, 'set_schedule', {
        agent_id: String(calc.id),
        cron_schedule: '0 9 * * *',
        timezone: 'Mars/Olympus',
      }),
    );
    expect(zone).toMatchObject({
      code: 'ARGUMENT_INVALID',
      message:
        'timezone: "Mars/Olympus" is not a time zone; use an IANA name such as "Europe/Paris" or "UTC"',
    });
    const input = refusal(
      await call(client, 'set_schedule', {
        agent_id: String(calc.id),
        cron_schedule: '0 9 * * *',
        input: { n: 1 },
      }),
    );
    expect(input).toMatchObject({
      code: 'ARGUMENT_INVALID',
      details: { issues: [{ path: 'input' }] },
    });
    const task = refusal(
      await call(client, 'set_schedule', {
        workflow_id: 'wf',
        cron_schedule: '0 9 * * *',
        task: 'x',
      }),
    );
    expect(task).toMatchObject({
      code: 'ARGUMENT_INVALID',
      details: { issues: [{ path: 'task' }] },
    });
    expect(await stored()).toBe(before);
  });

  it.each([
    [
      'not JSON',
      '{city: Paris}',
      /^Input validation error: Invalid arguments for tool set_schedule: schedule_variables is not valid JSON \(.+\); schedule_variables must be a JSON object of string values, such as "\{\\"city\\": \\"Paris\\"\}" at schedule_variables$/,
    ],
    [
      'a JSON array',
      '["Paris"]',
      /schedule_variables must be a JSON object of string values, such as .+ at schedule_variables$/,
    ],
    [
      'a value that is no string',
      '{"city": 7}',
      /each value in schedule_variables must be a string at schedule_variables\.city$/,
    ],
    [
      'a reserved name',
      '{"__proto__": "x"}',
      /schedule_variables may not have a variable named "__proto__"; rename it at schedule_variables\.__proto__$/,
    ],
  ])(
    'refuses schedule_variables that is %s as ARGUMENT_INVALID; nothing is written',
    async (_what, value, message) => {
      const before = await stored();
      const error = refusal(
        await call(client, 'set_schedule', {
          agent_id: String(calc.id),
          cron_schedule: '0 9 * * *',
          schedule_variables: value,
        }),
      );
      expect(error.code).toBe('ARGUMENT_INVALID');
      expect(error.message).toMatch(message);
      expect(await stored()).toBe(before);
    },
  );

  it.each([
    // Undefined is left out of the request: cron_schedule missing.
    [{ cron_schedule: undefined }, 'cron_schedule must be a string'],
    [{ cron_schedule: 9 }, 'cron_schedule must be a string'],
    [{ agent_id: 'calc' }, 'agent_id must be an id: a string of digits such as "12"'],
    [{ enabled: 'yes' }, 'enabled must be true or false at enabled'],
    [{ overlap: 'wait' }, 'overlap must be one of skip, queue at overlap'],
    [{ catch_up: 'never' }, 'catch_up must be one of once, skip at catch_up'],
    [{ input: [1] }, 'input must be an object, such as {"ticket": "T-1"} at input'],
  ])(
    'refuses %j (beside a good agent_id and cron) as ARGUMENT_INVALID naming it',
    async (bad, message) => {
      const before = await stored();
      const args = { agent_id: String(calc.id), cron_schedule: '0 9 * * *', ...bad };
      const error = refusal(await call(client, 'set_schedule', args));
      expect(error.code).toBe('ARGUMENT_INVALID');
      expect(error.message).toContain(message);
      expect(await stored()).toBe(before);
    },
  );

  it('refuses a schedule of nothing, of both, or an agent with environment_id; nothing is written', async () => {
    const before = await stored();
    const neither = refusal(await call(client, 'set_schedule', { cron_schedule: '0 9 * * *' }));
    expect(neither).toEqual({
      code: 'ARGUMENT_INVALID',
      message:
        'Give agent_id (from list_agents) or workflow_id (from list_workflows): what the schedule runs.',
      details: {
        issues: [
          {
            path: 'agent_id',
            message:
              'Give agent_id (from list_agents) or workflow_id (from list_workflows): what the schedule runs.',
          },
        ],
      },
    });
    const both = refusal(
      await call(client, 'set_schedule', {
        agent_id: String(calc.id),
        workflow_id: 'wf',
        cron_schedule: '0 9 * * *',
      }),
    );
    expect(both.message).toBe(
      'Give agent_id or workflow_id, not both: a schedule runs one agent or one workflow.',
    );
    const env = refusal(
      await call(client, 'set_schedule', {
        agent_id: String(calc.id),
        environment_id: String(h.env.id),
        cron_schedule: '0 9 * * *',
      }),
    );
    expect(env).toMatchObject({
      code: 'ARGUMENT_INVALID',
      details: { issues: [{ path: 'environment_id' }] },
    });
    expect(await stored()).toBe(before);
  });

  it('refuses an unknown agent, workflow or environment as not found; nothing is written', async () => {
    const before = await stored();
    expect(
      refusal(await call(client, 'set_schedule', { agent_id: '9999', cron_schedule: '0 9 * * *' })),
    ).toEqual({
      code: 'AGENT_NOT_FOUND',
      message: 'No agent has id 9999. Call list_agents for valid agent ids.',
      details: { agent_id: 9999 },
    });
    const workflow = refusal(
      await call(client, 'set_schedule', { workflow_id: 'nope', cron_schedule: '0 9 * * *' }),
    );
    expect(workflow.code).toBe('WORKFLOW_NOT_FOUND');
    expect(workflow.message).toMatch(
      /^No workflow "nope"\. Call list_workflows for valid workflow ids/,
    );
    const env = refusal(
      await call(client, 'set_schedule', {
        workflow_id: 'wf',
        environment_id: '9999',
        cron_schedule: '0 9 * * *',
      }),
    );
    expect(env.code).toBe('ENVIRONMENT_NOT_FOUND');
    const otherEnv = refusal(
      await call(client, 'set_schedule', {
        workflow_id: String(wf.id),
        environment_id: String(staging.id),
        cron_schedule: '0 9 * * *',
      }),
    );
    expect(otherEnv.code).toBe('ARGUMENT_INVALID');
    expect(await stored()).toBe(before);
  });

  it('is audited like every tool: arguments redacted, outcome and code', async () => {
    const rows = await auditRowsOf(h.store, 'set_schedule', 100);
    const ok = rows.find((r) => r.outcome === 'success');
    expect(ok).toMatchObject({ source: 'mcp', transport: 'stdio', details: null });
    const secret = rows.find((r) =>
      String((r.arguments as { schedule_variables?: unknown }).schedule_variables).includes(
        'GITHUB',
      ),
    );
    // schedule_variables is a string of JSON: its secret-looking names are redacted inside it.
    expect(secret?.arguments).toMatchObject({
      schedule_variables: '{"city":"Paris","GITHUB_TOKEN":"[REDACTED]"}',
    });
    const refused = rows.find(
      (r) => (r.details as { code?: string } | null)?.code === 'AGENT_NOT_FOUND',
    );
    expect(refused).toMatchObject({
      outcome: 'error',
      arguments: { agent_id: '9999', cron_schedule: '0 9 * * *' },
    });
  });
});

describe('get_schedule', () => {
  it("answers an agent's schedule with last_run and next_run, and its file schedule", async () => {
    const result = await call(client, 'get_schedule', { agent_id: String(nightly.id) });
    const row = await h.store.schedules.getFor('agent', nightly.id);
    expect(dataOf(result)).toEqual({
      success: true,
      agent: { id: nightly.id, name: 'nightly' },
      schedule: {
        enabled: true,
        cron_expression: '0 3 * * *',
        schedule_variables: {},
        last_run: null,
        next_run: row?.nextRunAt?.toISOString(),
      },
      details: expect.objectContaining({ id: row?.id, origin: 'file', timezone: 'UTC' }),
    });
  });

  it('answers an agent without a schedule as disabled, with nulls', async () => {
    const other = await h.store.agents.create(h.env.id, { name: 'unscheduled', description: '' });
    expect(dataOf(await call(client, 'get_schedule', { agent_id: String(other.id) }))).toEqual({
      success: true,
      agent: { id: other.id, name: 'unscheduled' },
      schedule: {
        enabled: false,
        cron_expression: null,
        schedule_variables: {},
        last_run: null,
        next_run: null,
      },
      details: null,
      message: "Agent 'unscheduled' has no schedule. Set one with set_schedule.",
    });
  });

  it('refuses an unknown or malformed agent_id', async () => {
    expect(refusal(await call(client, 'get_schedule', { agent_id: '9999' })).code).toBe(
      'AGENT_NOT_FOUND',
    );
    expect(refusal(await call(client, 'get_schedule', {})).code).toBe('ARGUMENT_INVALID');
  });
});

describe('list_schedules', () => {
  it('lists every schedule, soonest first and disabled last, with the one view', async () => {
    const all = dataOf(await call(client, 'list_schedules'));
    expect(all).toMatchObject({ total: 5, limit: 50, offset: 0 });
    const schedules = all.schedules as Array<Record<string, unknown>>;
    expect(schedules.map((s) => `${String(s.kind)}:${String(s.target)}`).sort()).toEqual([
      'agent:calc',
      'agent:helper',
      'agent:nightly',
      'workflow:wf',
      'workflow:wf',
    ]);
    expect(schedules.at(-1)).toMatchObject({ target: 'calc', enabled: false });
  });

  it('filters by kind, environment_id and enabled, and pages', async () => {
    const workflows = dataOf(await call(client, 'list_schedules', { kind: 'workflow' }));
    expect(workflows.total).toBe(2);
    const staged = dataOf(
      await call(client, 'list_schedules', { environment_id: String(staging.id) }),
    );
    expect(staged).toMatchObject({ total: 1, schedules: [{ workflow_id: stagingWf.id }] });
    const disabled = dataOf(await call(client, 'list_schedules', { enabled: false }));
    expect(disabled).toMatchObject({ total: 1, schedules: [{ target: 'calc' }] });
    const page = dataOf(await call(client, 'list_schedules', { limit: '2', offset: '1' }));
    expect(page).toMatchObject({ total: 5, limit: 2, offset: 1 });
    expect(page.schedules).toHaveLength(2);
  });

  it('refuses a bad kind and an unknown environment', async () => {
    expect(refusal(await call(client, 'list_schedules', { kind: 'job' })).message).toContain(
      'kind must be one of agent, workflow at kind',
    );
    expect(refusal(await call(client, 'list_schedules', { environment_id: '9999' })).code).toBe(
      'ENVIRONMENT_NOT_FOUND',
    );
  });
});

describe('remove_schedule', () => {
  it('removes an agent schedule with the reference message; then there is none to remove', async () => {
    const row = await h.store.schedules.getFor('agent', calc.id);
    const changed = jest.spyOn(scheduler, 'changed');
    const result = await call(client, 'remove_schedule', { agent_id: String(calc.id) });
    expect(dataOf(result)).toEqual({
      success: true,
      message: "Schedule removed from agent 'calc' and deactivated in scheduler.",
      agent: { id: calc.id, name: 'calc' },
      details: expect.objectContaining({ id: row?.id, cron: '*/15 * * * *' }),
    });
    expect(changed).toHaveBeenCalledTimes(1);
    changed.mockRestore();
    expect(await h.store.schedules.getFor('agent', calc.id)).toBeUndefined();
    expect(refusal(await call(client, 'remove_schedule', { agent_id: String(calc.id) }))).toEqual({
      code: 'SCHEDULE_NOT_FOUND',
      message:
        "Agent 'calc' has no schedule; nothing was removed. list_schedules lists every schedule.",
      details: { agent_id: calc.id },
    });
  });

  it('says when the prompt file brings the schedule back at the next sync', async () => {
    const result = await call(client, 'remove_schedule', { agent_id: String(nightly.id) });
    expect(dataOf(result).message).toBe(
      "Schedule removed from agent 'nightly' and deactivated in scheduler. Its prompt file has this schedule: the next sync sets it again unless the file loses it.",
    );
    await h.sync();
    expect(await h.store.schedules.getFor('agent', nightly.id)).toMatchObject({ origin: 'file' });
  });

  it('refuses an unknown agent', async () => {
    expect(refusal(await call(client, 'remove_schedule', { agent_id: '9999' })).code).toBe(
      'AGENT_NOT_FOUND',
    );
  });
});
