// Issue 32: a run interrupted at any moment resumes from its last finished step, and no tool
// call runs twice. A real `junction serve` (embedded libSQL file), the fixture MCP server
// recording every call it gets (with the idempotency key of its `_meta`), and the fake model
// over HTTP. The serve process is killed with SIGKILL in the middle of a run — once while the
// model holds its third turn, once while a tool that is not safe to repeat runs — and started
// again; the run is recovered as "process lost" and resumed by the new process. Across attempts:
// a graceful stop (SIGTERM) hands the run over, a prompt changed meanwhile does not reach it,
// runs.max_attempts ends a run that keeps dying, and a follower sees one run.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from '@jest/globals';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { writeAssistantWorkspace } from '@junction/tooling/fixtures/assistant-workspace.mjs';
import { runCliAsync, tempConfigHome } from './run-cli.js';
import { startServe, until, type ServeProcess } from './serve-process.js';

const fixtureServer = fileURLToPath(
  new URL('../../../tooling/fixtures/mcp-server.mjs', import.meta.url),
);

const PROMPT =
  '---\ntools: [add, echo, slow]\nmax_steps: 6\n---\n{{role "system"}}\nYou act.\n{{role "user"}}\n{{userInput}}\n';

interface Call {
  tool: string;
  arguments: Record<string, unknown>;
  key: string | null;
}

interface RunRecord {
  id: number;
  status: string;
  final_response: string | null;
  error: string | null;
}

interface WorkflowRunDetail {
  workflow_run: { status: string; output: unknown };
  steps: Array<{ name: string; status: string; output: unknown; run_id: number | null }>;
}

let fake: FakeOpenAI | undefined;
const serves: ServeProcess[] = [];

afterEach(async () => {
  for (const serve of serves.splice(0)) {
    if (serve.child.exitCode === null && serve.child.signalCode === null) {
      serve.child.kill('SIGTERM');
      await serve.exit;
    }
  }
  await fake?.close();
  fake = undefined;
});

/** A synced workspace whose tool server writes every call it gets to `calls`. */
async function workspace(
  config = '',
  agents: { prompt?: string; others?: Record<string, string> } = {},
): Promise<{ env: NodeJS.ProcessEnv; calls: string; root: string }> {
  fake = await startFakeOpenAI();
  const home = tempConfigHome();
  const env = { XDG_CONFIG_HOME: home, OPENAI_API_KEY: 'sk-durable-runs-key' };
  const init = await runCliAsync(['init'], env);
  if (init.status !== 0) throw new Error(`junction init failed: ${init.stderr}`);
  const root = path.join(home, 'junction');
  writeAssistantWorkspace(root, { modelUrl: fake.url, prompt: agents.prompt ?? PROMPT, config });
  for (const [name, text] of Object.entries(agents.others ?? {})) {
    writeFileSync(path.join(root, 'environments', 'default', 'agents', `${name}.prompt`), text);
  }
  const calls = path.join(home, 'calls.jsonl');
  writeFileSync(
    path.join(root, 'environments', 'default', 'filesystem.json'),
    JSON.stringify({
      mcpServers: {
        calc: { command: process.execPath, args: [fixtureServer, '--calls-file', calls] },
      },
    }),
  );
  const sync = await runCliAsync(['sync', 'default'], env);
  if (sync.status !== 0) throw new Error(`junction sync failed: ${sync.stdout} ${sync.stderr}`);
  return { env, calls, root };
}

function callsIn(file: string): Call[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Call);
}

async function serve(env: NodeJS.ProcessEnv, args: string[] = []): Promise<ServeProcess> {
  const started = await startServe(env, {}, args);
  serves.push(started);
  await started.ready;
  return started;
}

async function submit(api: ServeProcess, task: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${api.ports.api}/api/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ agent_name: 'assistant', task }),
  });
  const body = (await res.json()) as { run_id?: number };
  if (res.status !== 202 || body.run_id === undefined)
    throw new Error(`the run was not accepted: ${res.status} ${JSON.stringify(body)}`);
  return body.run_id;
}

async function getJson<T>(api: ServeProcess, route: string): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${api.ports.api}${route}`);
  return (await res.json()) as T;
}

/** Kills the process at once (no graceful stop) and waits until it is gone. */
async function killHard(process: ServeProcess): Promise<void> {
  process.child.kill('SIGKILL');
  await process.exit;
}

async function ended(api: ServeProcess, id: number): Promise<RunRecord> {
  return until(`run ${id} to end`, async () => {
    const run = await getJson<RunRecord>(api, `/api/v1/runs/${id}`);
    return ['completed', 'error', 'timeout', 'cancelled'].includes(run.status) ? run : undefined;
  });
}

async function eventsOf(
  api: ServeProcess,
  id: number,
): Promise<Array<{ type: string; payload: Record<string, unknown> }>> {
  const body = await getJson<{ events: Array<{ type: string; payload: Record<string, unknown> }> }>(
    api,
    `/api/v1/runs/${id}?verbose=true`,
  );
  return body.events;
}

/**
 * Waits until `count` tool-call outcomes of run `id` are in the store. The outcome of a call is
 * written as the model is asked again, not before: a test that kills the process once the next
 * turn is asked must also wait for this, or the call's outcome may be unknown to the next attempt.
 */
async function untilOutcomesStored(api: ServeProcess, id: number, count: number): Promise<void> {
  await until(`${count} tool call outcome(s) of run ${id} to be stored`, async () => {
    const events = await eventsOf(api, id);
    return events.filter((e) => e.type === 'tool_call').length >= count ? true : undefined;
  });
}

describe('a run whose process is killed (kill -9) mid-run', () => {
  it('resumes on the next start from its last finished step: no turn asked again, no tool called again', async () => {
    const { env, calls } = await workspace();
    fake!.script([
      { toolCalls: [{ name: 'echo', arguments: { text: 'one' } }] },
      {
        toolCalls: [
          { name: 'add', arguments: { a: 2, b: 3 } },
          { name: 'echo', arguments: { text: 'two' } },
        ],
      },
      { hang: true },
      { text: 'done after three turns' },
    ]);
    const first = await serve(env);
    const id = await submit(first, 'act three times');
    // Its third turn is with the model: two turns and three tool calls are done.
    await until('the third model turn to be asked', async () =>
      fake!.requests.length >= 3 ? true : undefined,
    );
    await untilOutcomesStored(first, id, 3);
    await killHard(first);

    const second = await serve(env);
    const run = await ended(second, id);
    expect(run).toMatchObject({ status: 'completed', final_response: 'done after three turns' });
    // Turns one and two were not asked again; turn three was asked once more (it never finished).
    expect(fake!.requests).toHaveLength(4);
    // The same conversation as if nothing had happened: turn three was asked with the same messages.
    expect(fake!.requests[3]!.body.messages).toEqual(fake!.requests[2]!.body.messages);
    // Each tool call reached the server once, with its own stable key.
    const made = callsIn(calls);
    expect(made.map((c) => [c.tool, c.arguments])).toEqual([
      ['echo', { text: 'one' }],
      ['add', { a: 2, b: 3 }],
      ['echo', { text: 'two' }],
    ]);
    expect(made.map((c) => c.key)).toEqual([
      `junction:run-${id}:step-1:call-0`,
      `junction:run-${id}:step-2:call-0`,
      `junction:run-${id}:step-2:call-1`,
    ]);
    const events = await eventsOf(second, id);
    const types = events.map((e) => e.type);
    expect(types.filter((t) => t === 'model_turn')).toHaveLength(3);
    expect(types.filter((t) => t === 'tool_call')).toHaveLength(3);
    expect(events.find((e) => e.type === 'attempt_ended')?.payload).toMatchObject({
      attempt: 1,
      reason: 'process lost',
    });
    expect(events.find((e) => e.type === 'resumed')?.payload).toMatchObject({
      attempt: 2,
      from_step: 3,
      replayed_tool_calls: 3,
    });
    // Its attempts, as REST and `runs inspect` show them.
    const attempts = [
      expect.objectContaining({ attempt: 1, end_reason: 'process lost', resumed_from_step: null }),
      expect.objectContaining({ attempt: 2, end_reason: null, resumed_from_step: 3 }),
    ];
    const detail = await getJson<{ attempt: number; attempts: unknown[] }>(
      second,
      `/api/v1/runs/${id}`,
    );
    expect(detail).toMatchObject({ attempt: 2, attempts });
    const inspected = await runCliAsync(['runs', 'inspect', String(id), '--json'], env);
    expect(inspected.status).toBe(0);
    expect(JSON.parse(inspected.stdout)).toMatchObject({ attempts });
    const text = await runCliAsync(['runs', 'inspect', String(id)], env);
    expect(text.stdout).toContain('Attempts (2)');
    expect(text.stdout).toMatch(/#1 .*from the start .*: process lost/);
    expect(text.stdout).toMatch(/#2 .*from step 3/);
    expect(text.stdout).toMatch(/resumed\s+- +attempt 2 resumed at step 3/);
  });

  it('ends the run with a clear error when a tool that is not safe to repeat was running', async () => {
    const { env, calls } = await workspace();
    fake!.script([
      { toolCalls: [{ name: 'slow', arguments: { ms: 600_000 } }] },
      { text: 'never asked' },
    ]);
    const first = await serve(env);
    const id = await submit(first, 'wait a long time');
    await until('the slow call to reach the tool server', async () =>
      callsIn(calls).some((c) => c.tool === 'slow') ? true : undefined,
    );
    await killHard(first);

    const second = await serve(env);
    const run = await ended(second, id);
    expect(run.status).toBe('error');
    expect(run.error).toContain(
      'The outcome of tool call slow {"ms":600000} (server "calc") is unknown',
    );
    expect(run.error).toContain('runs.tools');
    // Not called again, and the model was not asked again.
    expect(callsIn(calls).filter((c) => c.tool === 'slow')).toHaveLength(1);
    expect(fake!.requests).toHaveLength(1);
  });
});

describe('a run across attempts', () => {
  it('is handed over by a graceful stop (SIGTERM) and completes after the restart, never ended error', async () => {
    const { env, calls } = await workspace();
    fake!.script([
      { toolCalls: [{ name: 'echo', arguments: { text: 'before the stop' } }] },
      { hang: true },
      { text: 'done after the hand-over' },
    ]);
    const first = await serve(env, ['--drain-seconds', '0']);
    const id = await submit(first, 'act, then think');
    await until('the second model turn to be asked', async () =>
      fake!.requests.length >= 2 ? true : undefined,
    );
    first.child.kill('SIGTERM');
    expect(await first.exit).toBe(0);
    expect(first.stdout()).toContain('Stopped (SIGTERM); 1 in-flight run(s) re-queued.');

    const second = await serve(env);
    const run = await ended(second, id);
    expect(run).toMatchObject({
      status: 'completed',
      final_response: 'done after the hand-over',
      error: null,
    });
    // The turn the stop interrupted was asked again with the same messages; the first was not.
    expect(fake!.requests).toHaveLength(3);
    expect(fake!.requests[2]!.body.messages).toEqual(fake!.requests[1]!.body.messages);
    expect(callsIn(calls).map((c) => c.tool)).toEqual(['echo']);
    const events = await eventsOf(second, id);
    expect(events.find((e) => e.type === 'attempt_ended')?.payload).toMatchObject({
      attempt: 1,
      reason: 'graceful stop',
    });
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
  });

  it('keeps the prompt it started with when the prompt file changed between attempts', async () => {
    const { env, root } = await workspace();
    fake!.script([
      { toolCalls: [{ name: 'echo', arguments: { text: 'one' } }] },
      { hang: true },
      { text: 'done with the first prompt' },
    ]);
    const first = await serve(env);
    const id = await submit(first, 'act once');
    await until('the second model turn to be asked', async () =>
      fake!.requests.length >= 2 ? true : undefined,
    );
    await untilOutcomesStored(first, id, 1);
    await killHard(first);
    // The agent is changed and synced while the run waits for its next attempt.
    const promptFile = path.join(root, 'environments', 'default', 'agents', 'assistant.prompt');
    writeFileSync(promptFile, PROMPT.replace('You act.', 'You are a different agent now.'));
    const sync = await runCliAsync(['sync', 'default'], env);
    expect(sync.status).toBe(0);

    const second = await serve(env);
    expect(await ended(second, id)).toMatchObject({ status: 'completed' });
    const systemOf = (i: number): unknown =>
      (fake!.requests[i]!.body.messages as Array<{ role: string; content: unknown }>).find(
        (m) => m.role === 'system',
      )?.content;
    expect(systemOf(0)).toContain('You act.');
    // The resumed turn: the pinned prompt, the same conversation.
    expect(fake!.requests[2]!.body.messages).toEqual(fake!.requests[1]!.body.messages);
    expect(systemOf(2)).toContain('You act.');
    // A new run takes the new prompt.
    fake!.script([{ text: 'new prompt' }]);
    const next = await submit(second, 'again');
    expect(await ended(second, next)).toMatchObject({ status: 'completed' });
    expect(systemOf(3)).toContain('You are a different agent now.');
  });

  it('ends a run that keeps dying once it used runs.max_attempts, naming its attempts', async () => {
    const { env } = await workspace('runs:\n  max_attempts: 2\n');
    fake!.script([
      { toolCalls: [{ name: 'echo', arguments: { text: 'one' } }] },
      { hang: true },
      { hang: true },
    ]);
    let server = await serve(env);
    const id = await submit(server, 'die twice');
    for (const asked of [2, 3]) {
      await until(`model request ${asked}`, async () =>
        fake!.requests.length >= asked ? true : undefined,
      );
      await untilOutcomesStored(server, id, 1);
      await killHard(server);
      server = await serve(env);
    }
    const run = await ended(server, id);
    expect(run.status).toBe('error');
    expect(run.error).toContain('it used all 2 of its attempts (runs.max_attempts is 2');
    expect(fake!.requests).toHaveLength(3);
  });

  it('is followed by `logs --run -f` as one run: each event once, a resumed event between attempts', async () => {
    const { env } = await workspace();
    fake!.script([
      { toolCalls: [{ name: 'echo', arguments: { text: 'one' } }] },
      { hang: true },
      { text: 'followed to the end' },
    ]);
    const first = await serve(env);
    const id = await submit(first, 'be followed');
    const follower = runCliAsync(['logs', '--run', String(id), '-f', '--json'], env);
    await until('the second model turn to be asked', async () =>
      fake!.requests.length >= 2 ? true : undefined,
    );
    await untilOutcomesStored(first, id, 1);
    await killHard(first);
    const second = await serve(env);
    expect(await ended(second, id)).toMatchObject({ status: 'completed' });
    const followed = await follower;
    expect(followed.status).toBe(0);
    // Followed, --json prints one event per line as it comes.
    const seen = followed.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { type: string; payload: unknown });
    const stored = await eventsOf(second, id);
    // Every stored event once, in order, across the two attempts.
    expect(seen.map((e) => [e.type, e.payload])).toEqual(stored.map((e) => [e.type, e.payload]));
    const types = seen.map((e) => e.type);
    expect(types.indexOf('attempt_ended')).toBeLessThan(types.indexOf('resumed'));
    expect(types.filter((t) => t === 'model_turn')).toHaveLength(2);
  });

  it("resumes a sub-agent's run on its own; the resumed parent gets its result once, from that one run", async () => {
    const helper =
      '---\ndescription: Helps\nmax_steps: 3\n---\n{{role "system"}}\nYou help.\n{{role "user"}}\n{{userInput}}\n';
    const parent =
      '---\nagents: [helper]\nmax_steps: 4\n---\n{{role "system"}}\nYou delegate.\n{{role "user"}}\n{{userInput}}\n';
    const { env } = await workspace('', { prompt: parent, others: { helper } });
    fake!.script([
      { toolCalls: [{ name: 'agent_helper', arguments: { task: 'find the answer' } }] },
      { hang: true },
      { text: 'the answer is 42' },
      { text: 'the helper says 42' },
    ]);
    const first = await serve(env);
    const id = await submit(first, 'ask the helper');
    await until("the helper's model turn to be asked", async () =>
      fake!.requests.length >= 2 ? true : undefined,
    );
    await killHard(first);

    const second = await serve(env);
    const run = await ended(second, id);
    expect(run).toMatchObject({ status: 'completed', final_response: 'the helper says 42' });
    // One run of the helper, resumed (not a second one), and each turn asked once more only
    // where it never finished (the helper's).
    const listed = await runCliAsync(['runs', 'list', '--json'], env);
    const children = (
      JSON.parse(listed.stdout) as Array<{
        run_id: number;
        parent_run_id: number | null;
        status: string;
      }>
    ).filter((r) => r.parent_run_id === id);
    expect(children).toHaveLength(1);
    expect(children[0]!.status).toBe('completed');
    expect(fake!.requests).toHaveLength(4);
    const childEvents = await eventsOf(second, children[0]!.run_id);
    expect(childEvents.find((e) => e.type === 'resumed')?.payload).toMatchObject({ attempt: 2 });
    // The parent was given the helper's answer, and its own first turn was not asked again.
    expect(JSON.stringify(fake!.requests[3]!.body.messages)).toContain('the answer is 42');
    const parentEvents = await eventsOf(second, id);
    expect(parentEvents.filter((e) => e.type === 'model_turn')).toHaveLength(2);
    expect(parentEvents.filter((e) => e.type === 'sub_agent')).toHaveLength(1);
  });

  it("resumes a workflow step's run; the step sees one result and the workflow goes on once", async () => {
    const { env, calls, root } = await workspace();
    const workflows = path.join(root, 'environments', 'default', 'workflows');
    mkdirSync(workflows, { recursive: true });
    writeFileSync(
      path.join(workflows, 'pipeline.workflow.yaml'),
      [
        'id: pipeline',
        'name: Act then report',
        'start: act',
        'states:',
        '  - id: act',
        '    type: agent',
        '    agent: assistant',
        '    task: "act on {{ tag }}"',
        '    resultPath: acted',
        '    transition: report',
        '  - id: report',
        '    type: agent',
        '    agent: assistant',
        '    task: "report on {{ tag }}"',
        '    resultPath: reported',
        '    end: true',
        '',
      ].join('\n'),
    );
    const sync = await runCliAsync(['sync', 'default'], env);
    expect(sync.status).toBe(0);
    fake!.script([
      { toolCalls: [{ name: 'echo', arguments: { text: 'act' } }] },
      { hang: true },
      { text: 'acted: 42' },
      { text: 'reported' },
    ]);
    const first = await serve(env);
    const started = await fetch(
      `http://127.0.0.1:${first.ports.api}/api/v1/workflows/pipeline/runs`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input: { tag: 'wf-1' } }),
      },
    );
    expect(started.status).toBe(202);
    const workflowRunId = ((await started.json()) as { workflow_run: { id: number } }).workflow_run
      .id;
    // The first step's run has called its tool and waits on its second turn.
    await until("the first step's second turn to be asked", async () =>
      fake!.requests.length >= 2 ? true : undefined,
    );
    // The step's run: the one run a workflow started (the step's record is written at its end).
    const stepRun = await until("the first step's run", async () => {
      const body = await getJson<{ items: Array<{ run_id: number }> }>(
        first,
        '/api/v1/runs?source=workflow',
      );
      return body.items[0]?.run_id;
    });
    await untilOutcomesStored(first, stepRun, 1);
    await killHard(first);

    const second = await serve(env);
    const detail = await until('the workflow run to complete', async () => {
      const body = await getJson<WorkflowRunDetail>(
        second,
        `/api/v1/workflow-runs/${workflowRunId}`,
      );
      return ['completed', 'failed', 'cancelled'].includes(body.workflow_run.status)
        ? body
        : undefined;
    });
    expect(detail.workflow_run).toMatchObject({
      status: 'completed',
      output: expect.objectContaining({ response: 'reported' }),
    });
    // Each step ran once, through one run: the first step's run was resumed, not started again.
    const actSteps = detail.steps.filter((step) => step.name === 'act');
    expect(actSteps).toHaveLength(1);
    expect(actSteps[0]).toMatchObject({
      status: 'completed',
      output: expect.objectContaining({ response: 'acted: 42' }),
    });
    expect(detail.steps.filter((step) => step.name === 'report')).toHaveLength(1);
    const actRun = await getJson<RunRecord & { attempt: number; origin: unknown }>(
      second,
      `/api/v1/runs/${actSteps[0]!.run_id}`,
    );
    expect(actRun).toMatchObject({
      status: 'completed',
      attempt: 2,
      origin: { workflow_run_id: workflowRunId, workflow_step: 'act#1' },
    });
    // The tool (not safe to repeat) was called once; the finished first turn was not asked again.
    expect(callsIn(calls).map((c) => [c.tool, c.key])).toEqual([
      ['echo', `junction:run-${actSteps[0]!.run_id}:step-1:call-0`],
    ]);
    expect(fake!.requests).toHaveLength(4);
    expect(fake!.requests[2]!.body.messages).toEqual(fake!.requests[1]!.body.messages);
  });
});
