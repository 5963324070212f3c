// Junction as many hosts (issue 20): two API hosts (`serve --no-workers`) and three worker hosts
// (`junction worker`), each in its own network namespace (or, without them, its own process and
// workspace), sharing one sqld and one nats-server with JetStream. Every run is counted at the
// fake model: the first turn of a run (no tool result yet) and the turn after its tool call (a
// side effect happened) must each come exactly once per completed run — through kill -9 of a
// worker, a nats-server restart and an sqld restart; runs are followed and cancelled across
// hosts; a schedule fires once per slot and a workflow's steps advance once with three hosts.
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

  function hostEnv(): NodeJS.ProcessEnv {
    return { ...base, XDG_CONFIG_HOME: tempConfigHome() };
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

  function startWorker(i: number, extra: NodeJS.ProcessEnv = {}): HostProcess {
    return startHost(
      net,
      i,
      ['worker', '--concurrency', '4', '--drain-seconds', '2'],
      { ...hostEnv(), ...extra },
      'queue ',
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
    // Spread over every worker host.
    const byWorker = new Map<string, number>();
    for (const r of runs) byWorker.set(r!.workerId!, (byWorker.get(r!.workerId!) ?? 0) + 1);
    expect(byWorker.size).toBe(3);
    for (const count of byWorker.values()) expect(count).toBeGreaterThan(50);
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
});
