// Issue 32's kill loop: a run interrupted at any moment resumes from its last finished step, and
// no tool call runs twice. 200+ runs of an agent making 4 tool calls (read-only `add` and
// `upper`, and `echo` and `slow`, which are not safe to repeat) are submitted over POST /execute
// to a real `junction serve` (embedded libSQL file, the fixture MCP server recording every call
// with its idempotency key, the fake model over HTTP), and the serve process is killed with
// SIGKILL 20+ times at seeded random moments while runs are in flight, then started again. At
// the end: every acknowledged run ended; every run whose tools are all safe, or that was never
// interrupted inside a tool call, completed; no call of a tool that is not safe ran twice; no
// finished model turn was asked again (counted at the fake model); the store file is intact.
//
// The kill moments come from a seeded generator: a failure prints the seed, and
// KILL_LOOP_SEED=<seed> replays the same moments (as near as the scheduler lets it).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { runAttempts } from '@junction/agent-core/runs';
import { resolvePaths } from '@junction/config-templates';
import { openStore, type Run, type RunEvent, type Store } from '@junction/store';
import {
  startFakeOpenAI,
  type FakeMessage,
  type FakeOpenAI,
  type FakeRequest,
  type FakeStep,
  type FakeToolCall,
} from '@junction/tooling/fixtures/fake-openai.mjs';
import { seededRandom } from '@junction/tooling/fixtures/seeded-random.mjs';
import { syncedWorkspace } from './run-cli.js';
import { startServe, until, type ServeProcess } from './serve-process.js';

const SEED = Number(process.env.KILL_LOOP_SEED ?? 320_032);
/** Kill cycles: each starts `junction serve`, submits a batch, and kills it with SIGKILL. */
const KILLS = 21;
/** Runs submitted per cycle; the kill comes after 1…4×BATCH model requests of the process. */
const BATCH = 10;
/** Acknowledged runs at the end, at least (the last process gets what the cycles lacked). */
const RUNS = 200;
/** Every HANG_EVERY-th cycle is killed while a `slow` call (not safe to repeat) runs. */
const HANG_EVERY = 7;
/** workers.concurrency: at most this many runs are in flight in a process when it is killed. */
const CONCURRENCY = 8;

const PROMPT =
  '---\ntools: [add, upper, echo, slow]\nmax_steps: 6\n---\n{{role "system"}}\nYou act.\n{{role "user"}}\n{{userInput}}\n';
const CONFIG = [
  'webhook:',
  '  enabled: true',
  'workers:',
  `  concurrency: ${CONCURRENCY}`,
  // Every run may be interrupted many times: none ends for its number of attempts, so "completed"
  // below means what it says.
  'runs:',
  '  max_attempts: 100',
  '',
].join('\n');

const SAFE_TOOLS = new Set(['add', 'upper']);
const TERMINAL = new Set(['completed', 'error', 'timeout', 'cancelled']);

/**
 * What a run is made to do. `safe`: read-only tools only. `mixed`: two `echo` calls, not safe to
 * repeat. `hang`: its third turn calls `slow` for ten minutes, and its cycle is killed then.
 */
type Kind = 'safe' | 'mixed' | 'hang';
type PlannedCall = { name: string; arguments: Record<string, unknown> };

/** The 4 tool calls of run number `n`, by turn (turn 4 answers text). */
function plan(n: number, kind: Kind): PlannedCall[][] {
  const add = (b: number): PlannedCall => ({ name: 'add', arguments: { a: n, b } });
  const named = (name: string, word: string): PlannedCall => ({
    name,
    arguments: { text: `t${n} ${word}` },
  });
  if (kind === 'safe') return [[add(1)], [named('upper', 'two'), add(3)], [named('upper', 'four')]];
  return [
    [add(1)],
    [named('echo', 'two'), named('upper', 'three')],
    [kind === 'hang' ? { name: 'slow', arguments: { ms: 600_000 } } : named('echo', 'four')],
  ];
}

const TASK = /^kill-loop task (\d+) \((safe|mixed|hang)\)$/;

function taskOf(n: number, kind: Kind): string {
  return `kill-loop task ${n} (${kind})`;
}

function textOf(content: FakeMessage['content']): string {
  if (typeof content === 'string') return content;
  return (content ?? []).map((part) => part.text ?? '').join('');
}

/** A model request, read back: whose run, which turn, after which answers, by which process. */
interface Asked {
  index: number;
  n: number;
  kind: Kind;
  /** The turn asked, from 1: the answers before it in the conversation, plus one. */
  step: number;
  /** The request indexes of the answers the conversation holds (their tool call ids say them). */
  after: number[];
  /** The serve process that asked: its OPENAI_API_KEY is `sk-kill-loop-<process>`. */
  process: number;
  messages: FakeMessage[];
}

function asked(request: FakeRequest, index: number): Asked {
  const messages = request.body.messages ?? [];
  const user = messages.find((m) => m.role === 'user');
  const task = TASK.exec(textOf(user?.content).trim());
  const key = /^Bearer sk-kill-loop-(\d+)$/.exec(request.authorization ?? '');
  if (!task || !key) throw new Error(`request ${index} is not of the kill loop`);
  const after = messages
    .filter((m) => m.role === 'assistant')
    .map((m) => answerIndex(m.tool_calls?.[0]?.id ?? '', textOf(m.content)));
  return {
    index,
    n: Number(task[1]),
    kind: task[2] as Kind,
    step: after.length + 1,
    after,
    process: Number(key[1]),
    messages,
  };
}

/** The request an answer was given to: its tool call ids are `call_r<index>_<i>`, its text ends `#<index>`. */
function answerIndex(callId: string, text: string): number {
  const found = /^call_r(\d+)_\d+$/.exec(callId) ?? /#(\d+)$/.exec(text);
  if (!found) throw new Error(`an answer the fake did not give: ${callId} ${text}`);
  return Number(found[1]);
}

/** The fake's answer to a request of the loop: the run's next planned turn, marked with its index. */
function answer(request: Asked): FakeStep {
  const turns = plan(request.n, request.kind);
  const calls = turns[request.step - 1];
  if (!calls) return { text: `done t${request.n} #${request.index}` };
  return {
    toolCalls: calls.map(
      (call, i): FakeToolCall => ({ ...call, id: `call_r${request.index}_${i}` }),
    ),
  };
}

interface Call {
  tool: string;
  arguments: Record<string, unknown>;
  key: string | null;
  pid: number;
}

function linesOf<T>(file: string): T[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as T);
}

/** Stops a process this test started (by its id), unless it is gone or is no longer that process. */
function stopIfOurs(pid: number, marker: string): void {
  try {
    if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)) return;
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}

let fake: FakeOpenAI | undefined;
let store: Store | undefined;
const serves: ServeProcess[] = [];
const folders: string[] = [];
let pidFile: string | undefined;

afterAll(async () => {
  await store?.close();
  for (const serve of serves) {
    if (serve.child.exitCode === null && serve.child.signalCode === null) {
      serve.child.kill('SIGKILL');
      await serve.exit;
    }
  }
  // The tool servers exit when their serve's pipe closes; any left over are stopped by id.
  if (pidFile) for (const pid of linesOf<number>(pidFile)) stopIfOurs(pid, pidFile);
  await fake?.close();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
});

describe('the kill loop (issue 32)', () => {
  it('kill -9 at random moments: runs resume, no finished turn is asked again, no unsafe call runs twice', async () => {
    try {
      await killLoop();
    } catch (err) {
      if (err instanceof Error)
        err.message = `kill loop seed ${SEED} (replay: KILL_LOOP_SEED=${SEED})\n${err.message}`;
      throw err;
    }
  }, 300_000);
});

async function killLoop(): Promise<void> {
  const random = seededRandom(SEED);
  const files = mkdtempSync(path.join(os.tmpdir(), 'kill-loop-'));
  folders.push(files);
  const callsFile = path.join(files, 'calls.jsonl');
  pidFile = path.join(files, 'tool-servers.pid');

  // The processes this test has sent SIGKILL (their exit may not be seen yet).
  const killed = new Set<ServeProcess>();
  const kill = (serve: ServeProcess): void => {
    killed.add(serve);
    serve.child.kill('SIGKILL');
  };
  // The process being killed, and when: after `killAfter` of its model requests.
  let current:
    | { process: number; serve: ServeProcess; asked: number; killAfter: number }
    | undefined;
  fake = await startFakeOpenAI({
    answer: (_body, index) => {
      const request = asked(fake!.requests[index]!, index);
      if (current && request.process === current.process) {
        current.asked += 1;
        if (current.asked === current.killAfter) kill(current.serve);
      }
      return answer(request);
    },
  });
  const env = await syncedWorkspace({
    modelUrl: fake.url,
    prompt: PROMPT,
    config: CONFIG,
    serverArgs: ['--calls-file', callsFile, '--pid-file', pidFile],
  });
  folders.push(env.XDG_CONFIG_HOME!);

  /** Starts serve number `k`; its model key names it in the fake's requests. */
  const start = async (k: number): Promise<ServeProcess> => {
    const serve = await startServe({ ...env, OPENAI_API_KEY: `sk-kill-loop-${k}` });
    serves.push(serve);
    await serve.ready;
    return serve;
  };

  // Run number → the run id its POST /execute answered (acknowledged runs only).
  const acknowledged = new Map<number, number>();
  let submitted = 0;
  /** Submits the next run (odd numbers `mixed`, even `safe`); false when the process died first. */
  const submit = async (serve: ServeProcess, hang = false): Promise<boolean> => {
    submitted += 1;
    const n = submitted;
    const kind: Kind = hang ? 'hang' : n % 2 === 0 ? 'safe' : 'mixed';
    let res: Response;
    let body: { run_id?: number; status?: string };
    try {
      res = await fetch(`http://127.0.0.1:${serve.ports.webhook}/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ agent_name: 'assistant', task: taskOf(n, kind) }),
      });
      // Read here too: a kill between the headers and the body is a refusal like any other.
      body = (await res.json()) as { run_id?: number; status?: string };
    } catch {
      if (!killed.has(serve))
        throw new Error(`POST /execute failed while serve was up (run number ${n})`);
      return false; // Killed: not acknowledged (the run may exist all the same).
    }
    if (res.status !== 202 || body.run_id === undefined)
      throw new Error(`POST /execute answered ${res.status} ${JSON.stringify(body)}`);
    acknowledged.set(n, body.run_id);
    return true;
  };
  const alive = (serve: ServeProcess): boolean => !killed.has(serve);

  let hangs = 0;
  // The processes killed as a model request of theirs arrived (the others in a slow call).
  const atModelRequest: number[] = [];
  for (let k = 0; k < KILLS; k += 1) {
    const serve = await start(k);
    if (k % HANG_EVERY === HANG_EVERY - 1) {
      // Killed while a call that is not safe to repeat runs: its run must end `error`.
      current = undefined;
      hangs += 1;
      const before = linesOf<Call>(callsFile).filter((c) => c.tool === 'slow').length;
      if (!(await submit(serve, true))) throw new Error('serve died with no kill pending');
      for (let i = 0; i < BATCH; i += 1) await submit(serve);
      await until(`the slow call of cycle ${k}`, async () =>
        linesOf<Call>(callsFile).filter((c) => c.tool === 'slow').length > before
          ? true
          : undefined,
      );
      kill(serve);
    } else {
      // Killed after 1…4×BATCH model requests: the batch alone asks that many, so it comes.
      current = { process: k, serve, asked: 0, killAfter: 1 + Math.floor(random() * 4 * BATCH) };
      atModelRequest.push(k);
      for (let i = 0; i < BATCH && alive(serve); i += 1) await submit(serve);
      await until(`the kill of cycle ${k} (after ${current.killAfter} model requests)`, async () =>
        alive(serve) ? undefined : true,
      );
    }
    await serve.exit;
  }
  current = undefined;

  // The last process is not killed: it finishes what the others left, and what is still owed.
  const last = await start(KILLS);
  while (acknowledged.size < RUNS + hangs) {
    if (!(await submit(last))) throw new Error('the last serve died');
  }
  const api = `http://127.0.0.1:${last.ports.api}/api/v1`;
  await until(
    'every run to end',
    async () => {
      const res = await fetch(`${api}/runs?status=queued,running&limit=1`);
      return ((await res.json()) as { total: number }).total === 0 ? true : undefined;
    },
    180_000,
  );
  last.child.kill('SIGTERM');
  expect(await last.exit).toBe(0);

  store = await openStore({ url: resolvePaths(env).databaseFile });
  expect(await store.integrityCheck()).toBe('ok');
  await check({
    store,
    acknowledged,
    requests: fake.requests.map(asked),
    calls: linesOf<Call>(callsFile),
    lastProcess: KILLS,
    atModelRequest,
    hangs,
  });
}

interface Outcome {
  run: Run;
  n: number;
  kind: Kind;
  events: RunEvent[];
}

async function check(found: {
  store: Store;
  acknowledged: Map<number, number>;
  requests: Asked[];
  calls: Call[];
  lastProcess: number;
  atModelRequest: number[];
  hangs: number;
}): Promise<void> {
  const { store, acknowledged, requests, calls } = found;
  // Every run in the store — acknowledged or not (a process may die after writing a run, before
  // answering its POST) — by id.
  const runs = new Map<number, Outcome>();
  for (const run of await store.runs.list({ limit: 1000 })) {
    const task = TASK.exec(run.task);
    if (!task) throw new Error(`run ${run.id} is not of the loop: ${run.task}`);
    runs.set(run.id, {
      run,
      n: Number(task[1]),
      kind: task[2] as Kind,
      events: await store.runEvents.list(run.id, { limit: 1000 }),
    });
  }
  expect(acknowledged.size).toBeGreaterThanOrEqual(RUNS);
  // One page held them all.
  expect(runs.size).toBeLessThan(1000);

  // 1. Every acknowledged run is there, as the run its POST answered, and every run ended.
  for (const [n, id] of acknowledged) expect(runs.get(id)?.n).toBe(n);
  const unfinished = [...runs.values()].filter((o) => !TERMINAL.has(o.run.status));
  expect(unfinished.map((o) => [o.run.id, o.run.status])).toEqual([]);

  // 2. How each run ended.
  const ofKind = (kind: Kind): Outcome[] => [...runs.values()].filter((o) => o.kind === kind);
  for (const o of runs.values()) {
    // Each attempt that ended unfinished lost its process, and says so once, in order. An attempt
    // says it resumed with its first write, so one killed before it wrote anything does not.
    const ended = o.events.filter((e) => e.type === 'attempt_ended');
    const attempts = (type: string): number[] =>
      o.events
        .filter((e) => e.type === type)
        .map((e) => (e.payload as { attempt: number }).attempt);
    const earlier = Array.from({ length: o.run.attempt - 1 }, (_, i) => i + 1);
    expect([o.run.id, attempts('attempt_ended')]).toEqual([o.run.id, earlier]);
    expect(ended.map((e) => (e.payload as { reason: string }).reason)).toEqual(
      ended.map(() => 'process lost'),
    );
    // As `runs inspect` and REST show them: every attempt but the last ended with its process.
    const views = await runAttempts(store, o.run);
    expect([o.run.id, views.map((v) => v.end_reason)]).toEqual([
      o.run.id,
      [...earlier.map(() => 'process lost'), null],
    ]);
    const resumed = attempts('resumed');
    expect([
      o.run.id,
      resumed.every((a, i) => a > 1 && a <= o.run.attempt && (i === 0 || a > resumed[i - 1]!)),
    ]).toEqual([o.run.id, true]);
    if (o.run.status === 'completed') {
      expect(o.run.finalResponse).toMatch(new RegExp(`^done t${o.n} #\\d+$`));
      continue;
    }
    // Anything else is a run that was interrupted inside a call that is not safe to repeat —
    // never a run of read-only tools, never a run that was not interrupted.
    expect({ run: o.run.id, kind: o.kind, status: o.run.status }).toEqual({
      run: o.run.id,
      kind: expect.stringMatching(/^(mixed|hang)$/),
      status: 'error',
    });
    expect(ended.length).toBeGreaterThan(0);
    const unknown =
      /^The outcome of tool call (echo|slow) (\{.*?\}) \(server "calc"\) is unknown/.exec(
        o.run.error ?? '',
      );
    expect([o.run.id, unknown === null ? o.run.error : 'unknown outcome']).toEqual([
      o.run.id,
      'unknown outcome',
    ]);
    // The call it names was asked for by a journaled turn, and its outcome is not in the journal.
    const named = { name: unknown![1]!, arguments: JSON.parse(unknown![2]!) as unknown };
    const planned = plan(o.n, o.kind).flatMap((turn, s) =>
      turn.map((call, i) => ({ ...call, step: s + 1, index: i })),
    );
    const call = planned.find(
      (c) =>
        JSON.stringify([c.name, c.arguments]) === JSON.stringify([named.name, named.arguments]),
    );
    expect(call).toBeDefined();
    expect(
      o.events.some(
        (e) => e.type === 'model_turn' && (e.payload as { step: number }).step === call!.step,
      ),
    ).toBe(true);
    expect(
      o.events.some(
        (e) =>
          e.type === 'tool_call' &&
          (e.payload as { step: number; tool: string }).step === call!.step &&
          (e.payload as { tool: string }).tool === call!.name,
      ),
    ).toBe(false);
  }
  // Every run of read-only tools completed; so did every run never interrupted.
  const said = (o: Outcome): unknown[] => [o.run.id, o.kind, o.run.status, o.run.error];
  expect(
    ofKind('safe')
      .filter((o) => o.run.status !== 'completed')
      .map(said),
  ).toEqual([]);
  expect(
    [...runs.values()]
      .filter(
        (o) => o.run.status !== 'completed' && !o.events.some((e) => e.type === 'attempt_ended'),
      )
      .map(said),
  ).toEqual([]);
  // Each hang run was killed inside its slow call: all end `error`, naming it.
  expect(ofKind('hang').map((o) => o.run.status)).toEqual(Array(found.hangs).fill('error'));
  // The loop did interrupt runs that then completed from their journal.
  expect(
    [...runs.values()].filter((o) => o.run.status === 'completed' && o.run.attempt > 1).length,
  ).toBeGreaterThan(0);

  checkToolCalls(runs, calls);
  checkModelTurns(runs, requests, found.lastProcess, found.atModelRequest);
}

/**
 * 3. Tool calls, counted at the tool server per idempotency key and per arguments: each call has
 * the key of its place in its run (`junction:run-<id>:step-<n>:call-<i>`); a tool that is not
 * safe to repeat ran at most once per key and per arguments, exactly once in a completed run; a
 * read-only one at most once per attempt of its run.
 */
function checkToolCalls(runs: Map<number, Outcome>, calls: Call[]): void {
  const perKey = new Map<string, Call[]>();
  const perArguments = new Map<string, number>();
  for (const call of calls) {
    const key = /^junction:run-(\d+):step-(\d+):call-(\d+)$/.exec(call.key ?? '');
    expect([call, key !== null]).toEqual([call, true]);
    const o = runs.get(Number(key![1]));
    const planned = o ? plan(o.n, o.kind)[Number(key![2]) - 1]?.[Number(key![3])] : undefined;
    // The call at that place of that run is the one its turn asked for.
    expect([call.key, call.tool, call.arguments]).toEqual([
      call.key,
      planned?.name,
      planned?.arguments,
    ]);
    perKey.set(call.key!, [...(perKey.get(call.key!) ?? []), call]);
    if (call.tool !== 'slow') {
      const args = JSON.stringify([call.tool, call.arguments]);
      perArguments.set(args, (perArguments.get(args) ?? 0) + 1);
    }
  }
  const twice = [...perKey].filter(([, made]) => !SAFE_TOOLS.has(made[0]!.tool) && made.length > 1);
  expect(twice).toEqual([]);
  const twiceByArguments = [...perArguments].filter(
    ([args, count]) => !SAFE_TOOLS.has(JSON.parse(args)[0] as string) && count > 1,
  );
  expect(twiceByArguments).toEqual([]);
  for (const [id, o] of runs) {
    plan(o.n, o.kind).forEach((turn, s) =>
      turn.forEach((call, i) => {
        const made = perKey.get(`junction:run-${id}:step-${s + 1}:call-${i}`)?.length ?? 0;
        // A read-only call is made again only by an attempt that did not find its outcome.
        expect([id, call.name, made <= o.run.attempt]).toEqual([id, call.name, true]);
        if (o.run.status === 'completed') {
          const expected = SAFE_TOOLS.has(call.name) ? made >= 1 : made === 1;
          expect([id, call.name, made, expected]).toEqual([id, call.name, made, true]);
        }
      }),
    );
  }
}

/**
 * 4. Model turns, counted at the fake. Every answer the fake gives is marked with the index of
 * its request (tool call ids `call_r<index>_<i>`, final text `… #<index>`), so the journal (the
 * runs' model_turn events) says which request each finished turn's answer came from, and each
 * request says which answers its conversation holds.
 *
 * A turn is "the same turn" as another when it is of the same run and its conversation holds the
 * same answers. The same turn may legitimately be asked again: a process asked it and was killed
 * before its answer reached the journal, and the next process asks it again. It must never be
 * asked again once its answer is journaled. So, for every journaled turn:
 *   - each request of that same turn came from a different process (no process asks a turn twice),
 *     with the same messages (the conversation is rebuilt as it was);
 *   - the request whose answer was journaled is the last of them: no process asked it after it
 *     was journaled;
 *   - and each run's journal holds each of its steps once.
 * Requests whose answer never reached a journal were lost with a killed process: at most one per
 * run in flight, so at most workers.concurrency per killed process, and none of the process that
 * was never killed — and at least one of each process killed as a model request arrived (that
 * one: the kills land inside runs).
 */
function checkModelTurns(
  runs: Map<number, Outcome>,
  requests: Asked[],
  lastProcess: number,
  atModelRequest: number[],
): void {
  const sameTurn = new Map<string, Asked[]>();
  const turnOf = (r: Asked): string => `${r.n}|${r.after.join(',')}`;
  for (const r of requests) sameTurn.set(turnOf(r), [...(sameTurn.get(turnOf(r)) ?? []), r]);
  // Within a process a turn is asked once, journaled or not.
  for (const [turn, asks] of sameTurn) {
    expect([turn, new Set(asks.map((a) => a.process)).size]).toEqual([turn, asks.length]);
  }

  const journaled = new Set<number>();
  for (const [id, o] of runs) {
    const turns = o.events
      .filter((e) => e.type === 'model_turn')
      .map((e) => e.payload as { step: number; text?: string; tool_calls: Array<{ id: string }> });
    expect([id, turns.map((t) => t.step)]).toEqual([id, turns.map((_, i) => i + 1)]);
    const answers = turns.map((t) => answerIndex(t.tool_calls[0]?.id ?? '', t.text ?? ''));
    answers.forEach((index, s) => {
      journaled.add(index);
      const request = requests[index]!;
      // The answer journaled for step s+1 of this run was given to this run's turn s+1, asked after
      // the answers journaled before it.
      expect([id, s + 1, request.n, request.after]).toEqual([id, s + 1, o.n, answers.slice(0, s)]);
      const asks = sameTurn.get(turnOf(request))!;
      const lastAsk = Math.max(...asks.map((a) => a.process));
      expect([id, s + 1, request.process]).toEqual([id, s + 1, lastAsk]);
      for (const a of asks) expect(a.messages).toEqual(request.messages);
    });
    if (o.run.status === 'completed') expect(answers).toHaveLength(4);
  }

  const lost = new Map<number, number>();
  for (const r of requests) {
    if (!journaled.has(r.index)) lost.set(r.process, (lost.get(r.process) ?? 0) + 1);
  }
  expect(lost.get(lastProcess) ?? 0).toBe(0);
  expect([...lost].filter(([, count]) => count > CONCURRENCY)).toEqual([]);
  // A kill at a model request lands inside a run: that request, at least, was lost.
  expect(atModelRequest.filter((k) => (lost.get(k) ?? 0) === 0)).toEqual([]);
}
