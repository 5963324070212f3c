// The workflow tools against a real store and a real workflow door; the tests that wait on a
// run also start real workflow workers, so a run is advanced by the engine itself.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type {
  ApprovalCreateInput,
  AuditLogEntry,
  Environment,
  Workflow,
  WorkflowRun,
} from '@junction/store';
import { createWorkflowDoor, WorkflowWorkers, type WorkflowDoor } from '@junction/workflows';
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

const PUBLIC_URL = 'http://127.0.0.1:8587';

/** The simple workflow of the brief: one inject state, an input that needs an integer n. */
const WF = {
  id: 'wf',
  name: 'Simple',
  description: 'Injects x.',
  version: '1.0',
  start: 'a',
  states: [{ id: 'a', type: 'inject', data: { x: 1 }, end: true }],
  inputSchema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
};

/** A workflow that waits for a person, then injects. */
const GATE = {
  id: 'gate',
  name: 'Gate',
  start: 'review',
  states: [
    { id: 'review', type: 'human_approval', message: 'Ship it?', next: 'done' },
    { id: 'done', type: 'inject', data: { shipped: true }, end: true },
  ],
};

let h: Harness;
let door: WorkflowDoor;
let workers: WorkflowWorkers | undefined;
let client: Client;
let closeClient: () => Promise<void>;
let staging: Environment;
let wf: Workflow;
let gate: Workflow;
let stagingWf: Workflow;
let disabled: Workflow;

const data = dataOf;

/** Audit rows of one action, newest first, once the rows written after the answer are in. */
/** Audit rows of `action`, once one has the arguments `made` (the test's own call). */
const auditRows = (
  action: string,
  made: (args: Record<string, unknown>) => boolean = () => true,
): Promise<AuditLogEntry[]> =>
  auditRowsOf(h.store, action, 20, (rows) =>
    rows.some((r) => made(r.arguments as Record<string, unknown>)),
  );
/** The audit row of `action` whose arguments are `made`'s, once it is written. */
const auditRow = async (
  action: string,
  made: (args: Record<string, unknown>) => boolean,
): Promise<AuditLogEntry | undefined> =>
  (await auditRows(action, made)).find((r) => made(r.arguments as Record<string, unknown>));

/** A run of `wf` waiting for the approval `appr-<run>-review`, written straight to the store. */
async function waitingRun(
  approval: Partial<ApprovalCreateInput> = {},
): Promise<{ run: WorkflowRun; approvalId: string }> {
  const run = await h.store.workflowRuns.create({
    workflowId: wf.id,
    workflowKey: 'wf',
    workflowName: 'Simple',
    environmentId: h.env.id,
    source: 'test',
    status: 'waiting_approval',
    input: { n: 1 },
  });
  const approvalId = `appr-${run.id}-review`;
  await h.store.workflowSteps.start(run.id, {
    stepName: 'review',
    type: 'human_approval',
    status: 'waiting_approval',
    approvalId,
  });
  await h.store.approvals.create({
    approvalId,
    workflowRunId: run.id,
    stepName: 'review',
    message: 'Ship it?',
    ...approval,
  });
  return { run, approvalId };
}

beforeAll(async () => {
  h = await createHarness();
  staging = await h.store.environments.create({ name: 'staging' });
  wf = await h.store.workflows.upsert(h.env.id, {
    workflowId: 'wf',
    name: 'Simple',
    definition: WF,
    path: '/ws/environments/default/workflows/wf.workflow.yaml',
  });
  gate = await h.store.workflows.upsert(h.env.id, {
    workflowId: 'gate',
    name: 'Gate',
    definition: GATE,
    path: '/ws/environments/default/workflows/gate.workflow.yaml',
  });
  stagingWf = await h.store.workflows.upsert(staging.id, {
    workflowId: 'wf',
    name: 'Simple (staging)',
    definition: WF,
    path: '/ws/environments/staging/workflows/wf.workflow.yaml',
  });
  disabled = await h.store.workflows.upsert(staging.id, {
    workflowId: 'old',
    name: 'Old',
    definition: { ...WF, id: 'old' },
    path: null,
    enabled: false,
  });
  door = createWorkflowDoor({ store: h.store, publicUrl: PUBLIC_URL, due: () => workers?.due() });
  ({ client, close: closeClient } = await connectInMemory({
    ...h.deps,
    workflows: door,
    workflowWaitMs: 10_000,
  }));
});

afterAll(async () => {
  await workers?.stop({ drainMs: 500 });
  await closeClient?.();
  await h?.close();
});

describe('list_workflows', () => {
  it('lists every workflow by environment then id, with its input schema and total', async () => {
    const result = await call(client, 'list_workflows');
    expect(result.isError).toBeFalsy();
    expect(data(result)).toEqual({
      workflows: [
        {
          id: gate.id,
          workflow_id: 'gate',
          name: 'Gate',
          description: '',
          version: null,
          environment_id: h.env.id,
          environment: 'default',
          enabled: true,
          states: 2,
          input_schema: null,
          path: '/ws/environments/default/workflows/gate.workflow.yaml',
          updated_at: expect.any(String),
        },
        {
          id: wf.id,
          workflow_id: 'wf',
          name: 'Simple',
          description: 'Injects x.',
          version: '1.0',
          environment_id: h.env.id,
          environment: 'default',
          enabled: true,
          states: 1,
          input_schema: WF.inputSchema,
          path: '/ws/environments/default/workflows/wf.workflow.yaml',
          updated_at: wf.updatedAt.toISOString(),
        },
        expect.objectContaining({
          id: disabled.id,
          workflow_id: 'old',
          environment: 'staging',
          enabled: false,
          path: null,
        }),
        expect.objectContaining({ id: stagingWf.id, workflow_id: 'wf', environment: 'staging' }),
      ],
      total: 4,
      limit: 50,
      offset: 0,
    });
    expect(JSON.parse(textOf(result))).toEqual(data(result));
  });

  it('lists one environment, and pages with limit and offset', async () => {
    const one = data(await call(client, 'list_workflows', { environment_id: String(staging.id) }));
    expect((one.workflows as Array<{ id: number }>).map((w) => w.id)).toEqual([
      disabled.id,
      stagingWf.id,
    ]);
    expect(one.total).toBe(2);
    const page = data(await call(client, 'list_workflows', { limit: '1', offset: 1 }));
    expect((page.workflows as Array<{ id: number }>).map((w) => w.id)).toEqual([wf.id]);
    expect(page).toMatchObject({ total: 4, limit: 1, offset: 1 });
  });

  it('refuses an unknown environment and a bad limit', async () => {
    expect(refusal(await call(client, 'list_workflows', { environment_id: '999' }))).toEqual({
      code: 'ENVIRONMENT_NOT_FOUND',
      message: 'No environment has id 999. Call list_environments for valid environment ids.',
      details: { environment_id: 999 },
    });
    const bad = refusal(await call(client, 'list_workflows', { limit: 0 }));
    expect(bad.code).toBe('ARGUMENT_INVALID');
    expect(bad.message).toBe(
      'Input validation error: Invalid arguments for tool list_workflows: limit must be a whole number from 1 to 500 at limit',
    );
  });
});

describe('start_workflow_run', () => {
  it('starts a run (source mcp) and answers at once with its id and how to follow it', async () => {
    const result = await call(client, 'start_workflow_run', {
      workflow_id: 'wf',
      input: { n: 3, note: 'hello' },
    });
    expect(result.isError).toBeFalsy();
    const answer = data(result);
    const id = answer.workflow_run_id as number;
    expect(answer).toEqual({
      workflow_run_id: expect.any(Number),
      workflow_id: 'wf',
      workflow_name: 'Simple',
      environment_id: h.env.id,
      status: 'pending',
      current_step: null,
      source: 'mcp',
      input: { n: 3, note: 'hello' },
      output: null,
      error: null,
      created_at: expect.any(String),
      started_at: null,
      completed_at: null,
      duration_ms: null,
      replayed: false,
      message: `Workflow run ${id} of "wf" was started. Call get_workflow_run with workflow_run_id "${id}" to follow it.`,
    });
    expect(await h.store.workflowRuns.get(id)).toMatchObject({
      workflowId: wf.id,
      source: 'mcp',
      input: { n: 3, note: 'hello' },
      status: 'pending',
    });
  });

  it('takes the workflow by its id as a string of digits or a number, and environment_id', async () => {
    const byRow = data(
      await call(client, 'start_workflow_run', { workflow_id: String(wf.id), input: { n: 1 } }),
    );
    expect(byRow).toMatchObject({ workflow_id: 'wf', environment_id: h.env.id });
    const byNumber = data(
      await call(client, 'start_workflow_run', { workflow_id: stagingWf.id, input: { n: 1 } }),
    );
    expect(byNumber).toMatchObject({ workflow_id: 'wf', environment_id: staging.id });
    // "wf" alone is the default environment's; environment_id picks another.
    const inStaging = data(
      await call(client, 'start_workflow_run', {
        workflow_id: 'wf',
        environment_id: String(staging.id),
        input: { n: 1 },
      }),
    );
    expect(inStaging).toMatchObject({ workflow_name: 'Simple (staging)' });
  });

  it('answers the first run for a repeated idempotency_key, without starting another', async () => {
    const args = { workflow_id: 'wf', input: { n: 5 }, idempotency_key: 'key-42' };
    const first = data(await call(client, 'start_workflow_run', args));
    const again = data(await call(client, 'start_workflow_run', args));
    expect(first.replayed).toBe(false);
    expect(again).toMatchObject({ workflow_run_id: first.workflow_run_id, replayed: true });
    expect(again.message).toBe(
      `This idempotency_key started workflow run ${String(first.workflow_run_id)} before; no new run was started. Call get_workflow_run with workflow_run_id "${String(first.workflow_run_id)}" to follow it.`,
    );
    const runs = await h.store.workflowRuns.list({ workflowKey: 'wf', limit: 100 });
    expect(runs.filter((r) => r.idempotencyKey === 'mcp:key-42')).toHaveLength(1);
  });

  it("refuses input that does not match the workflow's inputSchema, starting nothing", async () => {
    const before = (await h.store.workflowRuns.list({ limit: 1000 })).length;
    expect(refusal(await call(client, 'start_workflow_run', { workflow_id: 'wf' }))).toEqual({
      code: 'WORKFLOW_INPUT_INVALID',
      message:
        "The workflow input is not valid: input.n is required (see the workflow's inputSchema).",
      details: { field: 'n', reason: 'is required' },
    });
    const wrongType = refusal(
      await call(client, 'start_workflow_run', { workflow_id: 'wf', input: { n: 'three' } }),
    );
    expect(wrongType.code).toBe('WORKFLOW_INPUT_INVALID');
    expect(wrongType.message).toContain('input.n must be integer');
    expect((await h.store.workflowRuns.list({ limit: 1000 })).length).toBe(before);
  });

  it('refuses unknown and disabled workflows, unknown environments and a mismatched environment', async () => {
    expect(refusal(await call(client, 'start_workflow_run', { workflow_id: 'nope' }))).toEqual({
      code: 'WORKFLOW_NOT_FOUND',
      message:
        'No workflow "nope". Call list_workflows for valid workflow ids (a new workflow file is stored by `junction sync <environment>`).',
      details: { workflow_id: 'nope' },
    });
    const inEnv = refusal(
      await call(client, 'start_workflow_run', {
        workflow_id: 'gate',
        environment_id: staging.id,
      }),
    );
    expect(inEnv.code).toBe('WORKFLOW_NOT_FOUND');
    expect(inEnv.message).toMatch(/^No workflow "gate" in environment \d+\. Call list_workflows/);
    const off = refusal(await call(client, 'start_workflow_run', { workflow_id: 'old' }));
    expect(off.code).toBe('WORKFLOW_DISABLED');
    expect(
      refusal(await call(client, 'start_workflow_run', { workflow_id: 'wf', environment_id: 999 }))
        .code,
    ).toBe('ENVIRONMENT_NOT_FOUND');
    expect(
      refusal(
        await call(client, 'start_workflow_run', {
          workflow_id: String(wf.id),
          environment_id: String(staging.id),
        }),
      ),
    ).toEqual({
      code: 'ARGUMENT_INVALID',
      message: `workflow_id ${wf.id} is the workflow "wf" of environment ${h.env.id}, not of environment_id ${staging.id}. Give its id in the file, or leave out environment_id.`,
      details: { workflow_id: wf.id, environment_id: staging.id },
    });
  });

  it('refuses bad arguments by name', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        {},
        'workflow_id must be a workflow\'s id: the id in its file, such as "incident-triage", or its id from list_workflows at workflow_id',
      ],
      [
        { workflow_id: '  ' },
        'workflow_id must be a workflow\'s id: the id in its file, such as "incident-triage", or its id from list_workflows at workflow_id',
      ],
      [{ workflow_id: 0 }, 'workflow_id must be 1 or more at workflow_id'],
      [
        { workflow_id: 'x'.repeat(201) },
        'workflow_id must be at most 200 characters at workflow_id',
      ],
      [
        { workflow_id: 'wf', input: [1, 2] },
        'input must be an object, such as {"ticket": "T-1"} at input',
      ],
      [
        { workflow_id: 'wf', input: 'n=1' },
        'input must be an object, such as {"ticket": "T-1"} at input',
      ],
      [
        { workflow_id: 'wf', input: JSON.parse('{"n": 1, "constructor": 2}') as unknown },
        'input may not have a field named "constructor"; rename it at input.constructor',
      ],
      [
        { workflow_id: 'wf', input: JSON.parse('{"__proto__": {"n": 1}}') as unknown },
        'input may not have a field named "__proto__"; rename it at input.__proto__',
      ],
      [{ workflow_id: 'wf', wait: 'yes' }, 'wait must be true or false at wait'],
      [
        { workflow_id: 'wf', idempotency_key: 'has space' },
        'idempotency_key must be 1 to 255 visible ASCII characters without spaces (a UUID works well) at idempotency_key',
      ],
      [
        { workflow_id: 'wf', environment_id: 'one' },
        'environment_id must be an id: a string of digits such as "12" (see the list tools for valid ids) at environment_id',
      ],
    ];
    for (const [args, problem] of cases) {
      const error = refusal(await call(client, 'start_workflow_run', args));
      expect({ args, code: error.code, message: error.message }).toEqual({
        args,
        code: 'ARGUMENT_INVALID',
        message: `Input validation error: Invalid arguments for tool start_workflow_run: ${problem}`,
      });
    }
  });

  it('with wait=true and no worker taking the run, answers its state when the wait is over', async () => {
    const { client: quick, close } = await connectInMemory({
      ...h.deps,
      workflows: door,
      workflowWaitMs: 300,
    });
    try {
      const result = await call(quick, 'start_workflow_run', {
        workflow_id: 'wf',
        input: { n: 1 },
        wait: true,
      });
      const answer = data(result);
      expect(answer).toMatchObject({
        status: 'pending',
        steps: [],
        step_count: 0,
        approvals: [],
        replayed: false,
      });
      expect(answer.message).toBe(
        `Workflow run ${String(answer.workflow_run_id)} of "wf" is still pending after waiting 0 s; it keeps going. Call get_workflow_run with workflow_run_id "${String(answer.workflow_run_id)}" to follow it.`,
      );
    } finally {
      await close();
    }
  });
});

describe('get_workflow_run', () => {
  it('shows the run with its step attempts and its approvals with signed links', async () => {
    const { run, approvalId } = await waitingRun({ approvers: ['alice'], timeoutSeconds: 600 });
    const result = await call(client, 'get_workflow_run', { workflow_run_id: String(run.id) });
    expect(result.isError).toBeFalsy();
    const links = await door.links(approvalId);
    expect(links.approve_url).toMatch(
      new RegExp(`^http://127\\.0\\.0\\.1:8587/workflow-approvals/${approvalId}/approve\\?token=`),
    );
    expect(data(result)).toEqual({
      workflow_run_id: run.id,
      workflow_id: 'wf',
      workflow_name: 'Simple',
      environment_id: h.env.id,
      status: 'waiting_approval',
      current_step: null,
      source: 'test',
      input: { n: 1 },
      output: null,
      error: null,
      created_at: run.createdAt.toISOString(),
      started_at: expect.any(String),
      completed_at: null,
      duration_ms: null,
      step_count: 1,
      steps: [
        {
          name: 'review',
          path: 'review',
          attempt: 1,
          type: 'human_approval',
          status: 'waiting_approval',
          run_id: null,
          approval_id: approvalId,
          output: null,
          error: null,
          started_at: expect.any(String),
          completed_at: null,
        },
      ],
      approvals: [
        {
          approval_id: approvalId,
          workflow_run_id: run.id,
          step_name: 'review',
          message: 'Ship it?',
          approvers: ['alice'],
          status: 'pending',
          timeout_seconds: 600,
          decided_by: null,
          comment: null,
          created_at: expect.any(String),
          decided_at: null,
          expires_at: expect.any(String),
          ...links,
        },
      ],
    });
  });

  it('redacts secret-looking input fields, as inspect_run does with variables', async () => {
    const run = await h.store.workflowRuns.create({
      workflowId: wf.id,
      workflowKey: 'wf',
      workflowName: 'Simple',
      environmentId: h.env.id,
      input: { n: 1, api_token: 'tok-123456789', note: 'uses sk-abcdefghijklmnopqrstuvwxyz123456' },
    });
    const answer = data(await call(client, 'get_workflow_run', { workflow_run_id: run.id }));
    expect(answer.input).toEqual({ n: 1, api_token: '[REDACTED]', note: 'uses [REDACTED]' });
  });

  it('refuses an unknown run and an id that is not one', async () => {
    expect(refusal(await call(client, 'get_workflow_run', { workflow_run_id: '9999' }))).toEqual({
      code: 'WORKFLOW_RUN_NOT_FOUND',
      message: 'No workflow run has id 9999. Call list_workflow_runs for valid workflow run ids.',
      details: { workflow_run_id: 9999 },
    });
    const bad = refusal(await call(client, 'get_workflow_run', { workflow_run_id: 'abc' }));
    expect(bad.message).toBe(
      'Input validation error: Invalid arguments for tool get_workflow_run: workflow_run_id must be an id: a string of digits such as "12" (see the list tools for valid ids) at workflow_run_id',
    );
    expect(refusal(await call(client, 'get_workflow_run', {})).code).toBe('ARGUMENT_INVALID');
  });
});

describe('list_workflow_runs', () => {
  it('lists runs newest first, by workflow (id in the file or row id) and status, paged', async () => {
    const all = data(await call(client, 'list_workflow_runs', { limit: 500 }));
    const runs = all.workflow_runs as Array<{ workflow_run_id: number; environment_id: number }>;
    const ids = runs.map((r) => r.workflow_run_id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(all).toMatchObject({ limit: 500, offset: 0 });
    expect(Object.keys(all)).toEqual(['workflow_runs', 'limit', 'offset']);

    const byKey = data(await call(client, 'list_workflow_runs', { workflow_id: 'wf', limit: 500 }))
      .workflow_runs as Array<{ workflow_id: string; environment_id: number | null }>;
    expect(byKey.length).toBeGreaterThan(0);
    expect(byKey.every((r) => r.workflow_id === 'wf')).toBe(true);
    expect(new Set(byKey.map((r) => r.environment_id))).toEqual(new Set([h.env.id, staging.id]));

    const byRow = data(await call(client, 'list_workflow_runs', { workflow_id: stagingWf.id }))
      .workflow_runs as Array<{ environment_id: number }>;
    expect(byRow.length).toBeGreaterThan(0);
    expect(byRow.every((r) => r.environment_id === staging.id)).toBe(true);

    const waiting = data(await call(client, 'list_workflow_runs', { status: 'waiting_approval' }))
      .workflow_runs as Array<{ status: string }>;
    expect(waiting.length).toBeGreaterThan(0);
    expect(waiting.every((r) => r.status === 'waiting_approval')).toBe(true);

    const page = data(await call(client, 'list_workflow_runs', { limit: 2, offset: '1' }))
      .workflow_runs as Array<{ workflow_run_id: number }>;
    expect(page.map((r) => r.workflow_run_id)).toEqual(ids.slice(1, 3));
  });

  it('refuses an unknown workflow and a bad status', async () => {
    expect(refusal(await call(client, 'list_workflow_runs', { workflow_id: 'nope' }))).toEqual({
      code: 'WORKFLOW_NOT_FOUND',
      message:
        'No workflow "nope". Call list_workflows for valid workflow ids (a new workflow file is stored by `junction sync <environment>`).',
      details: { workflow_id: 'nope' },
    });
    const bad = refusal(await call(client, 'list_workflow_runs', { status: 'done' }));
    expect(bad.message).toBe(
      'Input validation error: Invalid arguments for tool list_workflow_runs: status must be one of pending, running, waiting_approval, completed, failed, cancelled, timed_out at status',
    );
  });
});

describe('cancel_workflow_run', () => {
  it('cancels a run that has not ended, once', async () => {
    const started = data(
      await call(client, 'start_workflow_run', { workflow_id: 'wf', input: { n: 1 } }),
    );
    const id = started.workflow_run_id as number;
    const result = await call(client, 'cancel_workflow_run', { workflow_run_id: String(id) });
    expect(result.isError).toBeFalsy();
    expect(data(result)).toMatchObject({
      workflow_run_id: id,
      status: 'cancelled',
      error: 'cancelled',
      completed_at: expect.any(String),
    });
    expect(textOf(result).split('\n')[0]).toBe(`Cancelled workflow run ${id} of "wf".`);
    expect((await h.store.workflowRuns.get(id))?.status).toBe('cancelled');
    expect(refusal(await call(client, 'cancel_workflow_run', { workflow_run_id: id }))).toEqual({
      code: 'WORKFLOW_RUN_ENDED',
      message: `Workflow run ${id} already ended cancelled; only a run that has not ended can be cancelled.`,
      details: { workflow_run_id: id, status: 'cancelled' },
    });
  });

  it('refuses an unknown run and a bad id', async () => {
    expect(refusal(await call(client, 'cancel_workflow_run', { workflow_run_id: 4242 })).code).toBe(
      'WORKFLOW_RUN_NOT_FOUND',
    );
    expect(refusal(await call(client, 'cancel_workflow_run', { workflow_run_id: -1 })).code).toBe(
      'ARGUMENT_INVALID',
    );
  });
});

describe('list_workflow_approvals', () => {
  it('lists approvals newest first with their links, filtered by status and run', async () => {
    const a = await waitingRun();
    const b = await waitingRun();
    await h.store.approvals.decide(b.approvalId, { decision: 'rejected', comment: 'no' });
    const all = data(await call(client, 'list_workflow_approvals', {}));
    const approvals = all.approvals as Array<Record<string, unknown>>;
    expect(approvals[0]).toMatchObject({ approval_id: b.approvalId, status: 'rejected' });
    expect(approvals[1]).toEqual({
      approval_id: a.approvalId,
      workflow_run_id: a.run.id,
      step_name: 'review',
      message: 'Ship it?',
      approvers: [],
      status: 'pending',
      timeout_seconds: null,
      decided_by: null,
      comment: null,
      created_at: expect.any(String),
      decided_at: null,
      expires_at: null,
      ...(await door.links(a.approvalId)),
    });
    expect(all).toMatchObject({ limit: 50, offset: 0 });

    const pending = data(await call(client, 'list_workflow_approvals', { status: 'pending' }))
      .approvals as Array<{ status: string; approval_id: string }>;
    expect(pending.every((p) => p.status === 'pending')).toBe(true);
    expect(pending.map((p) => p.approval_id)).toContain(a.approvalId);
    expect(pending.map((p) => p.approval_id)).not.toContain(b.approvalId);

    const ofRun = data(
      await call(client, 'list_workflow_approvals', { workflow_run_id: String(b.run.id) }),
    ).approvals as Array<{ approval_id: string }>;
    expect(ofRun.map((p) => p.approval_id)).toEqual([b.approvalId]);

    const paged = data(await call(client, 'list_workflow_approvals', { limit: 1, offset: 1 }))
      .approvals as Array<{ approval_id: string }>;
    expect(paged.map((p) => p.approval_id)).toEqual([a.approvalId]);
  });

  it('refuses an unknown run and a bad status', async () => {
    expect(
      refusal(await call(client, 'list_workflow_approvals', { workflow_run_id: '777' })).code,
    ).toBe('WORKFLOW_RUN_NOT_FOUND');
    expect(
      refusal(await call(client, 'list_workflow_approvals', { status: 'expired' })).message,
    ).toBe(
      'Input validation error: Invalid arguments for tool list_workflow_approvals: status must be one of pending, approved, rejected, timed_out, cancelled at status',
    );
  });
});

describe('approve_workflow_step and reject_workflow_step', () => {
  it('approves once, wakes the run, and refuses a second decision either way', async () => {
    const { run, approvalId } = await waitingRun();
    const result = await call(client, 'approve_workflow_step', {
      approval_id: approvalId,
      comment: 'looks right',
      approver: 'bob',
    });
    expect(result.isError).toBeFalsy();
    expect(data(result)).toEqual({
      approval: expect.objectContaining({
        approval_id: approvalId,
        workflow_run_id: run.id,
        status: 'approved',
        decided_by: 'bob',
        comment: 'looks right',
        decided_at: expect.any(String),
      }),
      message: `Approval "${approvalId}" (step review) was approved. Workflow run ${run.id} goes on. Call get_workflow_run with workflow_run_id "${run.id}" to follow it.`,
    });
    // Woken: a worker takes it at once.
    expect((await h.store.workflowRuns.get(run.id))?.status).toBe('running');

    const again = refusal(await call(client, 'approve_workflow_step', { approval_id: approvalId }));
    expect(again.code).toBe('APPROVAL_DECIDED');
    expect(again.message).toBe(
      `Approval "${approvalId}" was already approved by bob; it can be decided only once.`,
    );
    expect(again.details).toMatchObject({ approval: { status: 'approved', decided_by: 'bob' } });
    const late = refusal(
      await call(client, 'reject_workflow_step', { approval_id: approvalId, reason: 'too late' }),
    );
    expect(late.code).toBe('APPROVAL_DECIDED');
    expect((await h.store.approvals.get(approvalId))?.comment).toBe('looks right');
  });

  it('rejects with a reason, kept as the comment', async () => {
    const { run, approvalId } = await waitingRun();
    const result = await call(client, 'reject_workflow_step', {
      approval_id: approvalId,
      reason: 'not on a Friday',
    });
    expect(data(result)).toMatchObject({
      approval: { status: 'rejected', comment: 'not on a Friday', decided_by: null },
      // This run's definition has no step "review": both paths the engine may take are said.
      message: `Approval "${approvalId}" (step review) was rejected. Workflow run ${run.id} goes on at the onRejected of step "review", or fails if it has none. Call get_workflow_run with workflow_run_id "${run.id}" to follow it.`,
    });
  });

  it('lets only a listed approver decide, in any case', async () => {
    const { approvalId } = await waitingRun({ approvers: ['Alice', 'team:ops'] });
    expect(
      refusal(await call(client, 'approve_workflow_step', { approval_id: approvalId })),
    ).toEqual({
      code: 'APPROVER_NOT_ALLOWED',
      message: `Approval "${approvalId}" may be decided only by Alice, team:ops; say who you are (approver).`,
      details: { approval_id: approvalId, approvers: ['Alice', 'team:ops'] },
    });
    expect(
      refusal(
        await call(client, 'reject_workflow_step', {
          approval_id: approvalId,
          approver: 'mallory',
        }),
      ).message,
    ).toBe(`"mallory" may not decide approval "${approvalId}"; its approvers are Alice, team:ops.`);
    const ok = await call(client, 'approve_workflow_step', {
      approval_id: approvalId,
      approver: 'alice',
    });
    expect(data(ok)).toMatchObject({ approval: { status: 'approved', decided_by: 'alice' } });
  });

  it('refuses an approval past its time, and an unknown one', async () => {
    const { approvalId } = await waitingRun({ expiresAt: new Date(Date.now() - 1000) });
    const expired = refusal(
      await call(client, 'approve_workflow_step', { approval_id: approvalId }),
    );
    expect(expired.code).toBe('APPROVAL_EXPIRED');
    expect(expired.message).toMatch(new RegExp(`^Approval "${approvalId}" timed out at `));
    expect((await h.store.approvals.get(approvalId))?.status).toBe('timed_out');
    expect(
      refusal(await call(client, 'reject_workflow_step', { approval_id: 'appr-0-nothing' })),
    ).toEqual({
      code: 'APPROVAL_NOT_FOUND',
      message:
        'No approval has id "appr-0-nothing". Call list_workflow_approvals for valid approval ids.',
      details: { approval_id: 'appr-0-nothing' },
    });
  });

  it('refuses bad arguments by name', async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      [
        'approve_workflow_step',
        {},
        'approval_id must be an approval id such as "appr-12-review" (see list_workflow_approvals) at approval_id',
      ],
      [
        'reject_workflow_step',
        { approval_id: '' },
        'approval_id must be an approval id such as "appr-12-review" (see list_workflow_approvals) at approval_id',
      ],
      [
        'approve_workflow_step',
        { approval_id: 12 },
        'approval_id must be an approval id such as "appr-12-review" (see list_workflow_approvals) at approval_id',
      ],
      [
        'approve_workflow_step',
        { approval_id: 'appr-1-a', comment: 'x'.repeat(4001) },
        'comment must be at most 4000 characters at comment',
      ],
      [
        'reject_workflow_step',
        { approval_id: 'appr-1-a', reason: 7 },
        'reason must be a string at reason',
      ],
      [
        'approve_workflow_step',
        { approval_id: 'appr-1-a', approver: ' ' },
        'approver must be a name such as "alice" at approver',
      ],
    ];
    for (const [tool, args, problem] of cases) {
      const error = refusal(await call(client, tool, args));
      expect({ tool, args, code: error.code, message: error.message }).toEqual({
        tool,
        args,
        code: 'ARGUMENT_INVALID',
        message: `Input validation error: Invalid arguments for tool ${tool}: ${problem}`,
      });
    }
  });
});

describe('audit', () => {
  it('records each call once, refusals and bad arguments included', async () => {
    const { approvalId } = await waitingRun();
    await call(client, 'start_workflow_run', {
      workflow_id: 'wf',
      input: { n: 1, password: 'hunter2hunter2' },
      idempotency_key: 'audit-1',
    });
    await call(client, 'approve_workflow_step', { approval_id: approvalId, approver: 'carol' });
    await call(client, 'approve_workflow_step', { approval_id: approvalId });
    await call(client, 'cancel_workflow_run', { workflow_run_id: 'x' });

    const start = await auditRow(
      'start_workflow_run',
      (a) => (a.input as { password?: string } | undefined)?.password !== undefined,
    );
    expect(start).toMatchObject({
      source: 'mcp',
      transport: 'stdio',
      actor: 'test-client/1.2.3',
      arguments: {
        workflow_id: 'wf',
        input: { n: 1, password: '[REDACTED]' },
        // Redacted like every argument whose name ends in "key".
        idempotency_key: '[REDACTED]',
      },
      outcome: 'success',
      details: null,
    });

    // The tool calls, one row each (transport set), and the decisions the workflows package
    // records itself (no transport, the approver as actor).
    // Two tool calls and two decisions: wait for the last call's row.
    const rows = (
      await auditRowsOf(
        h.store,
        'approve_workflow_step',
        20,
        (all) =>
          all.filter((r) => (r.arguments as { approval_id?: string }).approval_id === approvalId)
            .length >= 4,
      )
    ).filter((r) => (r.arguments as { approval_id?: string }).approval_id === approvalId);
    const calls = rows.filter((r) => r.transport === 'stdio');
    const decisions = rows.filter((r) => r.transport === null);
    expect(calls.map((r) => [r.outcome, (r.details as { code?: string } | null)?.code])).toEqual([
      ['error', 'APPROVAL_DECIDED'],
      ['success', undefined],
    ]);
    expect(calls[0]?.details).toEqual({
      code: 'APPROVAL_DECIDED',
      error: `Approval "${approvalId}" was already approved by carol; it can be decided only once.`,
    });
    expect(decisions).toEqual([
      expect.objectContaining({ source: 'mcp', actor: null, outcome: 'denied' }),
      expect.objectContaining({ source: 'mcp', actor: 'carol', outcome: 'success' }),
    ]);

    const cancel = await auditRow('cancel_workflow_run', (a) => a.workflow_run_id === 'x');
    expect(cancel).toMatchObject({
      arguments: { workflow_run_id: 'x' },
      outcome: 'error',
      details: { code: 'ARGUMENT_INVALID' },
    });
  });
});

describe('without a workflow door', () => {
  it('still lists the workflow tools, and each answers WORKFLOWS_UNAVAILABLE', async () => {
    const { client: bare, close } = await connectInMemory(h.deps);
    try {
      const { tools } = await bare.listTools();
      expect(tools.map((t) => t.name)).toContain('start_workflow_run');
      const calls: Array<[string, Record<string, unknown>]> = [
        ['list_workflows', {}],
        ['start_workflow_run', { workflow_id: 'wf', input: { n: 1 } }],
        ['get_workflow_run', { workflow_run_id: '1' }],
        ['list_workflow_runs', {}],
        ['cancel_workflow_run', { workflow_run_id: '1' }],
        ['list_workflow_approvals', {}],
        ['approve_workflow_step', { approval_id: 'appr-1-a' }],
        ['reject_workflow_step', { approval_id: 'appr-1-a' }],
      ];
      for (const [tool, args] of calls) {
        expect([tool, refusal(await call(bare, tool, args))]).toEqual([
          tool,
          {
            code: 'WORKFLOWS_UNAVAILABLE',
            message:
              'Workflows are not available on this Junction MCP server: it was started without the workflow engine. Connect to `junction serve` or `junction stdio`, which run workflows.',
            details: {},
          },
        ]);
      }
    } finally {
      await close();
    }
  });
});

describe('hostile arguments', () => {
  it("never make a workflow tool fail on Junction's side: each is answered or refused by code", async () => {
    const hostile: unknown[] = [
      null,
      true,
      -1,
      1.5,
      2 ** 53,
      '',
      ' ',
      '\u0000',
      'x'.repeat(10_000),
      '9'.repeat(40),
      [],
      [1, 'a'],
      {},
      JSON.parse('{"__proto__": {"polluted": true}}') as unknown,
      JSON.parse('{"constructor": {"prototype": {}}}') as unknown,
      { toString: 'x', valueOf: 1 },
      { nested: { deep: [[[[{ a: 1 }]]]] } },
    ];
    const argNames: Record<string, string[]> = {
      list_workflows: ['environment_id', 'limit', 'offset'],
      start_workflow_run: ['workflow_id', 'input', 'environment_id', 'idempotency_key', 'wait'],
      get_workflow_run: ['workflow_run_id'],
      list_workflow_runs: ['workflow_id', 'status', 'limit', 'offset'],
      cancel_workflow_run: ['workflow_run_id'],
      list_workflow_approvals: ['status', 'workflow_run_id', 'limit', 'offset'],
      approve_workflow_step: ['approval_id', 'comment', 'approver'],
      reject_workflow_step: ['approval_id', 'reason', 'approver'],
    };
    const base: Record<string, unknown> = {
      workflow_id: 'wf',
      workflow_run_id: '1',
      approval_id: 'appr-1-x',
    };
    const codes = new Set<string>();
    for (const [tool, names] of Object.entries(argNames)) {
      for (const name of names) {
        for (const value of hostile) {
          const result = await call(client, tool, { ...base, [name]: value });
          const error = (result.structuredContent as { error?: { code: string } }).error;
          if (error) codes.add(error.code);
          expect([tool, name, error?.code]).not.toEqual([tool, name, 'INTERNAL']);
        }
      }
    }
    expect({}).not.toHaveProperty('polluted');
    for (const code of codes) expect(code).not.toMatch(/^(INTERNAL|STORE_)/);
    expect(codes).toContain('ARGUMENT_INVALID');
  });
});

describe('start_workflow_run with wait=true, advanced by real workflow workers', () => {
  beforeAll(async () => {
    // Runs the tests above left waiting are not this section's: end them before workers start.
    for (const run of await h.store.workflowRuns.list({
      status: ['pending', 'running', 'waiting_approval'],
      limit: 1000,
    })) {
      await h.store.workflowRuns.cancel(run.id);
    }
    workers = new WorkflowWorkers({
      store: h.store,
      runs: h.deps.runs,
      logger: h.logger,
      pollMs: 20,
    });
    workers.start();
  });

  it('answers the ended run with its steps and output', async () => {
    const result = await call(client, 'start_workflow_run', {
      workflow_id: 'wf',
      input: { n: 2 },
      wait: true,
    });
    expect(result.isError).toBeFalsy();
    const answer = data(result);
    const id = answer.workflow_run_id as number;
    expect(answer).toMatchObject({
      status: 'completed',
      output: expect.objectContaining({ x: 1 }),
      step_count: 1,
      steps: [{ name: 'a', type: 'inject', status: 'completed', attempt: 1 }],
      approvals: [],
      replayed: false,
      message: `Workflow run ${id} of "wf" completed.`,
    });
  });

  it('answers a run waiting for a person with the approval and its links; approving finishes it', async () => {
    const answer = data(
      await call(client, 'start_workflow_run', { workflow_id: 'gate', wait: true }),
    );
    const id = answer.workflow_run_id as number;
    const approvalId = `appr-${id}-review`;
    expect(answer).toMatchObject({
      status: 'waiting_approval',
      current_step: 'review',
      steps: [{ name: 'review', type: 'human_approval', status: 'waiting_approval' }],
      approvals: [
        {
          approval_id: approvalId,
          status: 'pending',
          message: 'Ship it?',
          ...(await door.links(approvalId)),
        },
      ],
      message: `Workflow run ${id} of "gate" waits for approval "${approvalId}" (step review). Decide with approve_workflow_step or reject_workflow_step, or send an approver its approve_url and reject_url.`,
    });

    await call(client, 'approve_workflow_step', { approval_id: approvalId, comment: 'go' });
    const ended = await door.follow(id, { timeoutMs: 10_000, pollMs: 20 });
    expect(ended.status).toBe('completed');
    const shown = data(await call(client, 'get_workflow_run', { workflow_run_id: id }));
    expect(shown).toMatchObject({
      status: 'completed',
      output: expect.objectContaining({ shipped: true }),
      steps: [
        { name: 'review', status: 'approved' },
        { name: 'done', status: 'completed' },
      ],
      approvals: [{ approval_id: approvalId, status: 'approved', comment: 'go' }],
    });
  });

  it('tells a client that asked for progress of each step as it begins and ends', async () => {
    const seen: Array<{ progress: number; message?: string }> = [];
    const result = await client.callTool(
      { name: 'start_workflow_run', arguments: { workflow_id: 'wf', input: { n: 1 }, wait: true } },
      undefined,
      { onprogress: (p) => seen.push(p) },
    );
    const id = (result.structuredContent as { workflow_run_id: number }).workflow_run_id;
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.map((p) => p.progress)).toEqual(seen.map((_, i) => i + 1));
    expect(seen.at(-1)?.message).toBe(`workflow run ${id}: step a completed`);
  });

  it('answers a run rejected without a rejection path as failed', async () => {
    const answer = data(
      await call(client, 'start_workflow_run', { workflow_id: 'gate', wait: true }),
    );
    const id = answer.workflow_run_id as number;
    await call(client, 'reject_workflow_step', {
      approval_id: `appr-${id}-review`,
      reason: 'no',
    });
    await door.follow(id, { timeoutMs: 10_000, pollMs: 20 });
    const shown = data(await call(client, 'get_workflow_run', { workflow_run_id: id }));
    expect(shown).toMatchObject({
      status: 'failed',
      error: `approval appr-${id}-review was rejected: no`,
    });
  });
});
