// Junction as many hosts (issue 20): two API hosts (`serve --no-workers`) and three worker hosts
// (`junction worker`), each in its own network namespace (or, without them, its own process and
// workspace), sharing one sqld and one nats-server with JetStream. Every run is counted at the
// fake model: the first turn of a run (no tool result yet) and the turn after its tool call (a
// side effect happened) must each come exactly once per completed run — through kill -9 of a
// worker, a nats-server restart and an sqld restart; runs are followed and cancelled across
// hosts; a schedule fires once per slot and a workflow's steps advance once with three hosts;
// and a run held mid-run on a worker host killed with -9 is resumed by another host (one with a
// hostname of its own, so it learns of the death by the run's lease) from its last finished step.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import {
  findNats,
  NATS_MISSING,
  startNats,
  type NatsServer,
} from '@junction/tooling/fixtures/nats.mjs';
import { freePort } from '@junction/tooling/fixtures/free-port.mjs';
import { findSqld, SQLD_MISSING, startSqld, type Sqld } from '@junction/tooling/fixtures/sqld.mjs';
import { openStore, type Store } from '@junction/store';
import { runCliAsync, syncedWorkspace, tempConfigHome } from './run-cli.js';
import { hostNet, startHost, type HostNet, type HostProcess } from './hosts.js';
import { until } from './serve-process.js';

const KEY = 'sk-many-hosts-key-1234567890';
const missing = [
  findSqld() ? undefined : SQLD_MISSING,
  findNats() ? undefined : NATS_MISSING,
].filter((m) => m !== undefined);
if (missing.length > 0) {
  process.stderr.write(`\n*** SKIPPING many-hosts tests: ${missing.join('; ')} ***\n\n`);
}
const suite = missing.length === 0 ? describe : describe.skip;

const PROMPT =
  '---\ntools: [add, slow]\nmax_steps: 4\n---\n{{role "system"}}\nYou work.\n{{role "user"}}\n{{userInput}}\n';
const TICKER =
  '---\nmax_steps: 2\n---\n{{role "system"}}\nYou tick.\n{{role "user"}}\n{{userInput}}\n';
const PIPELINE = `id: pipeline
name: Two steps
start: first
states:
  - id: first
    type: agent
    agent: assistant
    task: "step one of {{ tag }}"
    resultPath: one
    transition: second
  - id: second
    type: agent
    agent: assistant
    task: "step two of {{ tag }}"
    resultPath: two
    end: true
`;

/** The text of a request's user message (the run's task). */
function taskOf(messages: Array<{ role: string; content?: unknown }> | undefined): string {
  const user = messages?.find((m) => m.role === 'user');
  return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '');
}

suite('many hosts on one sqld and one nats-server', () => {
  let net: HostNet;
  let sqld: Sqld;
  let nats: NatsServer;
  let fake: FakeOpenAI;
  let base: NodeJS.ProcessEnv;
  let store: Store;
  /** The workspace that synced the agents (for schedule set/remove). */
  let cliEnv: NodeJS.ProcessEnv;
  const apis: Array<{ proc: HostProcess; url: string }> = [];
  const workers: HostProcess[] = [];
  /** Where the tool server of every host writes each call it gets (with its idempotency key). */
  let callsFile: string;

  /** Tool calls that reached a tool server, by idempotency key. */
  function toolCallsByKey(): Map<string, number> {
    const byKey = new Map<string, number>();
    const text = existsSync(callsFile) ? readFileSync(callsFile, 'utf8') : '';
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const { key } = JSON.parse(line) as { key: string | null };
      byKey.set(String(key), (byKey.get(String(key)) ?? 0) + 1);
    }
    return byKey;
  }

  /** Model requests per task: first turns, and turns after a tool result. */
  function calls(): Map<string, { first: number; after: number }> {
    const byTask = new Map<string, { first: number; after: number }>();
    for (const r of fake.requests) {
      const messages = r.body.messages;
      const task = taskOf(messages);
      const entry = byTask.get(task) ?? { first: 0, after: 0 };
      if (messages?.some((m) => m.role === 'tool')) entry.after += 1;
      else entry.first += 1;
      byTask.set(task, entry);
    }
    return byTask;
  }

  /** A host's environment: a workspace folder of its own, holding `config` as its config.yaml. */
  function hostEnv(config?: string): NodeJS.ProcessEnv {
    const home = tempConfigHome();
    if (config !== undefined) {
      mkdirSync(path.join(home, 'junction'), { recursive: true });
      writeFileSync(path.join(home, 'junction', 'config.yaml'), config);
    }
    return { ...base, XDG_CONFIG_HOME: home };
  }

  async function startApi(i: number): Promise<{ proc: HostProcess; url: string }> {
    const ports = await Promise.all([freePort(), freePort(), freePort()]);
    const proc = startHost(
      net,
      i,
      [
        'serve',
        '--no-workers',
        '--api-port',
        String(ports[0]),
        '--mcp-port',
        String(ports[1]),
        '--webhook-port',
        String(ports[2]),
      ],
      { ...hostEnv(), JUNCTION_HOST: net.hostIp(i), JUNCTION_API_KEY: KEY },
      'serving MCP',
    );
    await proc.ready;
    return { proc, url: `http://${net.hostIp(i)}:${ports[0]}/api/v1` };
  }

  function startWorker(
    i: number,
    extra: NodeJS.ProcessEnv = {},
    own: { hostname?: string; config?: string } = {},
  ): HostProcess {
    return startHost(
      net,
      i,
      ['worker', '--concurrency', '4', '--drain-seconds', '2'],
      { ...hostEnv(own.config), ...extra },
      'queue ',
      own.hostname,
    );
  }

  async function rest<T>(
    url: string,
    init: RequestInit = {},
  ): Promise<{ status: number; body: T }> {
    const res = await fetch(url, {
      ...init,
      headers: {
        authorization: `Bearer ${KEY}`,
        'content-type': 'application/json',
        ...init.headers,
      },
    });
    return { status: res.status, body: (await res.json()) as T };
  }

  /** Submits `tasks` round-robin to the API hosts; answers the run ids. */
  async function submit(tasks: string[], parallel = 16): Promise<number[]> {
    const ids: number[] = new Array<number>(tasks.length);
    let next = 0;
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        while (next < tasks.length) {
          const i = next++;
          const api = apis[i % apis.length]!;
          const { status, body } = await rest<{ run_id: number }>(`${api.url}/runs`, {
            method: 'POST',
            body: JSON.stringify({ agent_name: 'assistant', task: tasks[i] }),
          });
          if (status !== 202)
            throw new Error(`submit ${tasks[i]}: ${status} ${JSON.stringify(body)}`);
          ids[i] = body.run_id;
        }
      }),
    );
    return ids;
  }

  async function allEnded(ids: number[], ms = 120_000): Promise<void> {
    await until(
      `${ids.length} runs to end`,
      async () => {
        const open = await store.runs.count({ status: ['queued', 'running'] });
        if (open > 0) return undefined;
        const runs = await Promise.all(ids.map((id) => store.runs.get(id)));
        return runs.every((r) => r && r.status !== 'queued' && r.status !== 'running')
          ? true
          : undefined;
      },
      ms,
    );
  }

  beforeAll(async () => {
    net = hostNet(6);
    if (net.kind === 'processes') {
      process.stderr.write(
        `\n*** many-hosts: no network namespaces (${net.reason}); hosts are separate processes ***\n\n`,
      );
    }
    sqld = await startSqld({ host: net.serverIp });
    nats = await startNats({ host: net.serverIp });
    fake = await startFakeOpenAI({
      host: net.serverIp,
      mode: 'tool-loop',
      tool: 'slow',
      toolArgs: { ms: 50 },
      turns: 2,
    });
    base = {
      OPENAI_API_KEY: KEY,
      JUNCTION_DATABASE_URL: sqld.url.replace('http:', 'ws:'),
      JUNCTION_QUEUE_NATS_URL: nats.url,
      JUNCTION_AI_BASE_URL: fake.url,
      JUNCTION_AI_MODEL: 'gpt-test',
      JUNCTION_TRACES_ENABLED: 'false',
    };
    // One workspace syncs the agents, the schedule and the workflow into the shared store.
    callsFile = path.join(tempConfigHome(), 'calls.jsonl');
    const env = await syncedWorkspace({
      modelUrl: fake.url,
      env: base,
      prompt: PROMPT,
      serverArgs: ['--calls-file', callsFile],
    });
    const dir = path.join(env.XDG_CONFIG_HOME!, 'junction', 'environments', 'default');
    mkdirSync(path.join(dir, 'workflows'), { recursive: true });
    writeFileSync(path.join(dir, 'workflows', 'pipeline.workflow.yaml'), PIPELINE);
    writeFileSync(path.join(dir, 'agents', 'ticker.prompt'), TICKER);
    const sync = await runCliAsync(['sync', 'default'], env);
    if (sync.status !== 0) throw new Error(`sync failed: ${sync.stdout} ${sync.stderr}`);
    cliEnv = env;
    store = await openStore({ url: base.JUNCTION_DATABASE_URL! });
    apis.push(await startApi(0), await startApi(1));
    for (let i = 0; i < 3; i += 1)
      workers.push(startWorker(2 + i, { JUNCTION_SCHEDULER: 'false' }));
    await Promise.all(workers.map((w) => w.ready));
  }, 180_000);

  afterAll(async () => {
    try {
      const procs = [...workers, ...apis.map((a) => a.proc)];
      for (const p of procs) {
        if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      }
      await Promise.all(procs.map((p) => p.exit));
      await store?.close();
      await fake?.close();
      await nats?.stop();
      await sqld?.stop();
    } finally {
      // The namespaces and links go whatever else failed.
      net?.close();
    }
  }, 180_000);

  it('works 1,000 runs submitted to two API hosts on three worker hosts, each exactly once', async () => {
    fake.reset();
    const tasks = Array.from({ length: 1000 }, (_, i) => `job-${i}`);
    const ids = await submit(tasks);
    await allEnded(ids, 300_000);
    const runs = await Promise.all(ids.map((id) => store.runs.get(id)));
    expect(runs.filter((r) => r?.status !== 'completed')).toEqual([]);
    const seen = calls();
    const wrong = tasks.filter((t) => seen.get(t)?.first !== 1 || seen.get(t)?.after !== 1);
    expect(wrong).toEqual([]);
    // Spread over every worker host. How evenly depends on how busy the machine keeps each
    // host's process, so only that each took some: a share is not asserted.
    const byWorker = new Map<string, number>();
    for (const r of runs) byWorker.set(r!.workerId!, (byWorker.get(r!.workerId!) ?? 0) + 1);
    expect(byWorker.size).toBe(3);
  }, 400_000);

  it('follows a run executing on a worker host from another host, live, and cancels one across hosts', async () => {
    fake.reset();
    // Followed from this machine (a host of its own): `agent run --queue` prints the run's
    // events as the worker records them, then the answer.
    const follow = await runCliAsync(
      ['agent', 'run', 'assistant', 'followed from afar', '--queue'],
      {
        ...hostEnv(),
      },
    );
    expect(follow.status).toBe(0);
    expect(follow.stdout).toMatch(/queued/);
    expect(follow.stdout).toMatch(/model_turn\s+step 1 .*calls slow/);
    expect(follow.stdout).toMatch(/tool_call\s+step 1\s+\S+\/slow\s+ok/);
    expect(follow.stdout).toMatch(/run \d+ completed/);
    // A long run, submitted on API host 1, cancelled on API host 0.
    fake.script([{ delayMs: 30_000, text: 'never' }]);
    const [id] = await submit(['cancel me'], 1);
    await until('the run to run', async () =>
      (await store.runs.get(id!))?.status === 'running' ? true : undefined,
    );
    const started = Date.now();
    const { status, body } = await rest<{ status: string }>(`${apis[0]!.url}/runs/${id}/cancel`, {
      method: 'POST',
    });
    expect(status).toBe(200);
    expect(body.status).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(2_000);
    fake.reset();
  }, 120_000);

  it('loses and repeats nothing when a worker host is killed (-9) and the nats-server restarts mid-load', async () => {
    fake.reset();
    const tasks = Array.from({ length: 300 }, (_, i) => `storm-${i}`);
    const submitting = submit(tasks, 8);
    // Mid-load: one worker host dies at once; the nats-server goes away and comes back.
    await until('runs under way', async () => (fake.requests.length > 60 ? true : undefined));
    const victim = workers[0]!;
    victim.child.kill('SIGKILL');
    await victim.exit;
    await nats.kill();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await nats.start();
    const ids = await submitting;
    await allEnded(ids, 180_000);
    const runs = await Promise.all(ids.map((id) => store.runs.get(id)));
    const byKey = toolCallsByKey();
    // A side effect (a tool call, by its idempotency key) never twice, whatever was killed.
    expect([...byKey].filter(([, n]) => n > 1)).toEqual([]);
    for (const run of runs) {
      const key = `junction:run-${run!.id}:step-1:call-0`;
      if (run!.status === 'completed') {
        // Resumed or not, its one tool call was made once.
        expect({ run: run!.id, calls: byKey.get(key) }).toEqual({ run: run!.id, calls: 1 });
      } else {
        // Only runs of the killed host whose tool call was under way: its outcome is unknown and
        // the tool (slow) is not marked safe to repeat, so the resumed run stops.
        expect(run).toMatchObject({ status: 'error' });
        expect(run!.error).toMatch(/The outcome of tool call slow .* is unknown/);
      }
    }
    expect(runs.filter((r) => r!.status === 'completed').length).toBeGreaterThan(250);
    // The host comes back and works again.
    workers[0] = startWorker(2, { JUNCTION_SCHEDULER: 'false' });
    await workers[0].ready;
  }, 300_000);

  it('goes on after sqld restarts: hosts reconnect', async () => {
    await sqld.kill();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await sqld.start();
    fake.reset();
    const tasks = Array.from({ length: 30 }, (_, i) => `after-sqld-${i}`);
    const ids = await until(
      'the API hosts to accept runs again',
      async () => {
        try {
          return await submit(tasks, 4);
        } catch {
          return undefined;
        }
      },
      60_000,
    );
    await allEnded(ids, 120_000);
    const runs = await Promise.all(ids.map((id) => store.runs.get(id)));
    expect(runs.every((r) => r!.status === 'completed')).toBe(true);
  }, 180_000);

  it("advances a workflow's steps once with three worker hosts", async () => {
    fake.reset();
    const starts = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        rest<{ workflow_run: { id: number } }>(`${apis[i % 2]!.url}/workflows/pipeline/runs`, {
          method: 'POST',
          body: JSON.stringify({ input: { tag: `wf-${i}` } }),
        }),
      ),
    );
    const ids = starts.map((s) => s.body.workflow_run.id);
    await until(
      'the workflow runs to complete',
      async () => {
        const runs = await Promise.all(ids.map((id) => store.workflowRuns.get(id)));
        return runs.every((r) => r?.status === 'completed') ? true : undefined;
      },
      120_000,
    );
    const seen = calls();
    for (let i = 0; i < 6; i += 1) {
      for (const step of ['one', 'two']) {
        expect({ step, i, ...seen.get(`step ${step} of wf-${i}`) }).toEqual({
          step,
          i,
          first: 1,
          after: 1,
        });
      }
    }
  }, 180_000);

  it('fires a schedule once per slot with three hosts allowed to fire', async () => {
    const schedulers = [0, 1, 2].map((i) => startWorker(2 + i));
    try {
      await Promise.all(schedulers.map((w) => w.ready));
      fake.reset();
      const set = await runCliAsync(
        ['schedule', 'set', 'ticker', '--cron', '*/2 * * * * *', '--task', 'tick'],
        cliEnv,
      );
      expect(set.status).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 9_000));
      expect((await runCliAsync(['schedule', 'remove', 'ticker'], cliEnv)).status).toBe(0);
      const runs = (await store.runs.list({ agentName: 'ticker', limit: 100 })).filter(
        (r) => r.source === 'cron_scheduler',
      );
      // Every 2 s for about 9 s: 3 to 5 fires, never two for one slot.
      expect(runs.length).toBeGreaterThanOrEqual(3);
      const slots = runs.map((r) => r.idempotencyKey);
      expect(new Set(slots).size).toBe(slots.length);
    } finally {
      for (const w of schedulers) w.child.kill('SIGTERM');
      await Promise.all(schedulers.map((w) => w.exit));
    }
  }, 120_000);

  it('resumes a run on the other worker host when its host is killed (-9) mid-run: by the lease, from its last finished step', async () => {
    // Two worker hosts of their own for this run: the suite's step aside. Each has a hostname of
    // its own where namespaces allow (then neither can tell by a pid that the other died; its
    // lease says so) and a lease of 3 s (runs.lease_seconds) instead of 60.
    for (const w of workers) w.child.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exit));
    const own = [
      { hostname: 'host-a', config: 'runs:\n  lease_seconds: 3\n' },
      { hostname: 'host-b', config: 'runs:\n  lease_seconds: 3\n' },
    ];
    const pair = own.map((o, i) => startWorker(2 + i, { JUNCTION_SCHEDULER: 'false' }, o));
    try {
      await Promise.all(pair.map((w) => w.ready));
      fake.reset();
      // Two turns that each call `slow` (not safe to repeat), then the third turn is held.
      fake.script([
        { toolCalls: [{ name: 'slow', arguments: { ms: 10 } }] },
        { toolCalls: [{ name: 'slow', arguments: { ms: 20 } }] },
        { hang: true },
        { text: 'done on the other host' },
      ]);
      const task = 'resume me on the other host';
      const [id] = await submit([task], 1);
      const key = (step: number): string => `junction:run-${id}:step-${step}:call-0`;
      // Held mid-run: its third turn is with the model, both tool calls done and journaled.
      await until('the third turn to be asked, two tool calls journaled', async () => {
        if (fake.requests.length < 3) return undefined;
        const done = await store.runEvents.list(id!, { type: 'tool_call' });
        return done.length === 2 ? true : undefined;
      });
      const holding = (await store.runs.get(id!))!;
      const victim = pair.findIndex((w) => holding.workerId!.split(':')[1] === String(w.child.pid));
      expect(victim).toBeGreaterThanOrEqual(0);
      const [dead, other] = victim === 0 ? [pair[0]!, pair[1]!] : [pair[1]!, pair[0]!];
      const [deadName, otherName] = victim === 0 ? ['host-a', 'host-b'] : ['host-b', 'host-a'];
      dead.child.kill('SIGKILL');
      await dead.exit;
      expect(dead.child.signalCode).toBe('SIGKILL');

      const run = await until('the run to end on the other host', async () => {
        const r = await store.runs.get(id!);
        return r && r.status !== 'queued' && r.status !== 'running' ? r : undefined;
      });
      expect(run).toMatchObject({ status: 'completed', finalResponse: 'done on the other host' });
      // The other host resumed it while the killed one stayed dead: never restarted, never back.
      expect(other.child.exitCode).toBeNull();
      expect(run.workerId!.split(':')[1]).toBe(String(other.child.pid));
      // Turns one and two were asked once; the held turn once more, with the same conversation.
      const asked = fake.requests.filter((r) => taskOf(r.body.messages) === task);
      expect(asked).toHaveLength(4);
      const turnOf = (r: (typeof asked)[number]): number =>
        (r.body.messages ?? []).filter((m) => m.role === 'assistant').length + 1;
      expect(asked.map(turnOf)).toEqual([1, 2, 3, 3]);
      expect(asked[3]!.body.messages).toEqual(asked[2]!.body.messages);
      // Each finished tool call reached a tool server once, under its stable key.
      const byKey = toolCallsByKey();
      const mine = [...byKey].filter(([k]) => k.startsWith(`junction:run-${id}:`));
      expect(mine.sort()).toEqual([
        [key(1), 1],
        [key(2), 1],
      ]);
      // Its attempts, as REST shows them: the first on the killed host, ended by the lease
      // (by the pid where both hosts share the machine's hostname), the second on the other.
      const reason = net.ownHostnames ? 'lease lost' : 'process lost';
      const byHost = (name: string, w: HostProcess): string =>
        net.ownHostnames ? `${name}:${w.child.pid}:` : `:${w.child.pid}:`;
      const { status, body } = await rest<{
        attempt: number;
        attempts: Array<{ worker_id: string | null }>;
      }>(`${apis[0]!.url}/runs/${id}`);
      expect(status).toBe(200);
      expect(body).toMatchObject({
        attempt: 2,
        attempts: [
          { attempt: 1, end_reason: reason, resumed_from_step: null },
          { attempt: 2, end_reason: null, resumed_from_step: 3 },
        ],
      });
      expect(body.attempts[0]!.worker_id).toContain(byHost(deadName, dead));
      expect(body.attempts[1]!.worker_id).toContain(byHost(otherName, other));
      const events = await store.runEvents.list(id!);
      expect(events.find((e) => e.type === 'attempt_ended')?.payload).toMatchObject({
        attempt: 1,
        reason,
      });
      expect(events.find((e) => e.type === 'resumed')?.payload).toMatchObject({
        attempt: 2,
        worker_id: run.workerId,
        from_step: 3,
        replayed_tool_calls: 2,
      });
      const types = events.map((e) => e.type);
      expect(types.filter((t) => t === 'model_turn')).toHaveLength(3);
      expect(types.filter((t) => t === 'tool_call')).toHaveLength(2);
    } finally {
      for (const w of pair)
        if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
      await Promise.all(pair.map((w) => w.exit));
      fake.reset();
      for (let i = 0; i < workers.length; i += 1)
        workers[i] = startWorker(2 + i, { JUNCTION_SCHEDULER: 'false' });
      await Promise.all(workers.map((w) => w.ready));
    }
  }, 180_000);
});
