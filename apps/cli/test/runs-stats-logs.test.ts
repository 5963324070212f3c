// `junction runs`, `stats` and `logs` against a workspace whose store and log file this
// test fills first, through the same packages the service writes them with.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import { openStore, type RunOrigin, type Store } from '@junction/store';
import { createLogger } from '@junction/telemetry';
import { tempConfigHome, type CliResult, baseEnv } from './run-cli.js';

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bin/run.js');
const DAY = 86_400_000;

/** Runs the built CLI without blocking, so independent invocations overlap. */
function cli(args: string[], home: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...baseEnv(), XDG_CONFIG_HOME: home },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

const json = <T>(r: CliResult): T => JSON.parse(r.stdout) as T;

/** A store on the workspace's junction.db whose clock the test sets by hand. */
async function openWorkspaceStore(
  home: string,
): Promise<{ store: Store; at: (t: number) => void }> {
  let t = Date.now();
  const store = await openStore({
    url: path.join(home, 'junction', 'junction.db'),
    now: () => new Date(t),
  });
  return { store, at: (ms) => void (t = ms) };
}

interface RunSpec {
  agent: string;
  task?: string;
  model?: string | null;
  tokens?: [number, number];
  steps?: number;
  durationMs?: number;
  end: 'completed' | 'error' | 'timeout' | 'running' | 'queued';
  error?: string;
  parentRunId?: number;
  finalResponse?: string;
  traceId?: string;
  origin?: RunOrigin;
}

/** Queues a run at the store's current time, then claims and ends it `durationMs` later. */
async function addRun(
  ws: { store: Store; at: (t: number) => void },
  queuedAt: number,
  spec: RunSpec,
): Promise<number> {
  const { store, at } = ws;
  at(queuedAt);
  const env = await store.environments.ensure('default');
  const run = await store.runs.create({
    agentName: spec.agent,
    environmentId: env.id,
    task: spec.task ?? `task of ${spec.agent}`,
    source: 'cli',
    model: spec.model ?? null,
    parentRunId: spec.parentRunId ?? null,
    traceId: spec.traceId ?? null,
    ...(spec.origin ? { origin: spec.origin } : {}),
  });
  if (spec.end === 'queued') return run.id;
  const claimed = await store.runs.claimNext('test-worker', 3_600_000);
  if (claimed?.id !== run.id) throw new Error(`claimed ${claimed?.id} instead of ${run.id}`);
  const [input, output] = spec.tokens ?? [0, 0];
  await store.runs.updateProgress(run.id, {
    inputTokens: input,
    outputTokens: output,
    stepsTaken: spec.steps ?? 1,
  });
  if (spec.end === 'running') return run.id;
  at(queuedAt + (spec.durationMs ?? 0));
  if (spec.end === 'completed') {
    await store.runs.markCompleted(run.id, { finalResponse: spec.finalResponse ?? 'ok' });
  } else {
    await store.runs.markFailed(run.id, { status: spec.end, error: spec.error ?? 'failed' });
  }
  return run.id;
}

interface RunJson {
  run_id: number;
  agent_name: string;
  status: string;
  steps_taken: number;
  input_tokens: number;
  output_tokens: number;
  duration_ms: number | null;
  parent_run_id: number | null;
  task: string;
}

describe('junction runs, stats and logs', () => {
  const home = tempConfigHome();
  const ids: Record<string, number> = {};
  const now = Date.now();

  beforeAll(async () => {
    const ws = await openWorkspaceStore(home);
    try {
      ids.ancient = await addRun(ws, now - 40 * DAY, {
        agent: 'writer',
        model: 'gpt-4o',
        tokens: [99_999, 0],
        durationMs: 1000,
        end: 'completed',
      });
      const t = now - 3_600_000;
      ids.main = await addRun(ws, t, {
        agent: 'writer',
        task: 'Summarise the quarterly report for the finance team and email it to everyone',
        model: 'gpt-4o',
        tokens: [100, 50],
        steps: 2,
        durationMs: 2000,
        end: 'completed',
        finalResponse: 'Sent the summary.',
        traceId: 'trace-abc123',
      });
      ids.child = await addRun(ws, t + 10, {
        agent: 'reader',
        model: 'gpt-4o-mini',
        tokens: [1000, 10],
        durationMs: 10_000,
        end: 'completed',
        parentRunId: ids.main,
      });
      ids.failed = await addRun(ws, t + 20, {
        agent: 'writer',
        model: 'gpt-4o-mini',
        tokens: [400, 600],
        durationMs: 30_000,
        end: 'error',
        error: 'model exploded',
        origin: { workflowRunId: 9, workflowStep: 'summarise#1' },
      });
      ids.timeout = await addRun(ws, t + 30, {
        agent: 'reader',
        tokens: [5, 5],
        durationMs: 60_000,
        end: 'timeout',
        error: 'run took longer than 60s',
      });
      ids.running = await addRun(ws, t + 40, { agent: 'writer', end: 'running' });
      ids.queued = await addRun(ws, t + 50, { agent: 'reader', end: 'queued' });

      const ev = (runId: number, type: string, payload: unknown, durationMs?: number) =>
        ws.store.runEvents.append(runId, { type, payload, durationMs: durationMs ?? null });
      await ev(
        ids.main,
        'model_turn',
        {
          step: 1,
          model: 'gpt-4o',
          input_tokens: 60,
          output_tokens: 20,
          finish_reason: 'tool-calls',
          tool_calls: [{ id: 'call_1', name: 'read_file' }],
        },
        820,
      );
      await ev(
        ids.main,
        'tool_call',
        {
          step: 1,
          tool: 'read_file',
          server: 'filesystem',
          arguments: { path: '/srv/reports/q3.txt' },
          result: 'Q3 revenue up 12%',
          success: true,
        },
        120,
      );
      await ev(ids.main, 'sub_agent', {
        tool: 'reader',
        child_run_id: ids.child,
        status: 'completed',
      });
      await ev(
        ids.main,
        'model_turn',
        {
          step: 2,
          model: 'gpt-4o',
          input_tokens: 40,
          output_tokens: 30,
          finish_reason: 'stop',
          text: 'Sent the summary.',
        },
        640,
      );
      await ev(ids.main, 'checkpoint', { note: 'custom event' });
      await ev(ids.failed, 'run_error', { message: 'model exploded' });

      ws.at(now - 2 * 3_600_000);
      await ws.store.auditLog.append({
        source: 'mcp',
        transport: 'stdio',
        action: 'call_agent',
        outcome: 'success',
        durationMs: 1500,
      });
      ws.at(now - 3_600_000);
      await ws.store.auditLog.append({
        source: 'rest',
        transport: 'http',
        action: 'queue',
        outcome: 'success',
      });
      ws.at(now - 1_800_000);
      await ws.store.auditLog.append({
        source: 'mcp',
        transport: 'http',
        action: 'list_agents',
        actor: 'alice',
        outcome: 'denied',
      });
      ws.at(now - 600_000);
      await ws.store.auditLog.append({ source: 'cli', action: 'sync', outcome: 'error' });
    } finally {
      await ws.store.close();
    }

    const logger = createLogger({
      level: 'debug',
      file: path.join(home, 'junction', 'logs', 'junction.log'),
      stream: new Writable({ write: (_c, _e, done): void => done() }),
      env: {},
    });
    logger.info('run started', { agent_id: 1, agent_name: 'writer', run_id: ids.main });
    logger.debug('model call', { agent_name: 'writer', run_id: ids.main });
    logger.warn('tool slow', { agent_name: 'reader', duration_ms: 5000 });
    logger.error('run failed', { agent_name: 'writer', run_id: ids.failed, status: 'error' });
    await logger.close();
    appendFileSync(path.join(home, 'junction', 'logs', 'junction.log'), 'not a json line\n');
    appendFileSync(
      path.join(home, 'junction', 'logs', 'junction.log'),
      `${JSON.stringify({ level: 'info', ts: new Date(now).toISOString(), msg: 'server listening', port: 8585 })}\n`,
    );
  });

  afterAll(() => rmSync(home, { recursive: true, force: true }));

  describe('runs list', () => {
    it('lists every run newest first, as a table and as JSON', async () => {
      const [text, all] = await Promise.all([
        cli(['runs', 'list'], home),
        cli(['runs', 'list', '--json'], home),
      ]);
      expect(text.status).toBe(0);
      expect(text.stdout).toMatch(
        /^ID\s+AGENT\s+STATUS\s+STEPS\s+TOKENS \(IN\/OUT\)\s+DURATION\s+QUEUED\s+TASK$/m,
      );
      expect(text.stdout).toMatch(
        new RegExp(
          `^${ids.main}\\s+writer\\s+completed\\s+2\\s+100/50\\s+2\\.0s\\s+1h ago\\s+Summarise the quarterly report for the finance team and email it to everyone$`,
          'm',
        ),
      );
      expect(text.stdout).toMatch(
        new RegExp(`^${ids.queued}\\s+reader\\s+queued\\s+0\\s+0/0\\s+-\\s`, 'm'),
      );
      expect(text.stdout).toMatch(
        new RegExp(`^${ids.ancient}\\s.*\\s\\d{4}-\\d\\d-\\d\\dT\\S+Z\\s`, 'm'),
      );

      const runs = json<RunJson[]>(all);
      expect(runs.map((r) => r.run_id)).toEqual([
        ids.queued,
        ids.running,
        ids.timeout,
        ids.failed,
        ids.child,
        ids.main,
        ids.ancient,
      ]);
      expect(runs.find((r) => r.run_id === ids.child)).toEqual({
        run_id: ids.child,
        agent_id: null,
        agent_name: 'reader',
        environment_id: expect.any(Number),
        status: 'completed',
        source: 'cli',
        parent_run_id: ids.main,
        model: 'gpt-4o-mini',
        steps_taken: 1,
        input_tokens: 1000,
        output_tokens: 10,
        // gpt-4o-mini's built-in list price: 1000 × $0.15 + 10 × $0.60 per million.
        cost_usd: 0.000156,
        duration_ms: 10_000,
        task: 'task of reader',
        final_response: 'ok',
        error: null,
        trace_id: null,
        queued_at: expect.stringMatching(/Z$/),
        started_at: expect.stringMatching(/Z$/),
        completed_at: expect.stringMatching(/Z$/),
        cancel_requested_at: null,
        attempt: 1,
        origin: null,
      });
    });

    it('filters by status (failed = error), minimum duration, agent, environment and limit', async () => {
      const listIds = async (...args: string[]): Promise<number[]> => {
        const r = await cli(['runs', 'list', '--json', ...args], home);
        expect(r.status).toBe(0);
        return json<RunJson[]>(r).map((x) => x.run_id);
      };
      const [failed, error, timeout, slow, thirty, reader, limited, env] = await Promise.all([
        listIds('--status', 'failed'),
        listIds('--status', 'error'),
        listIds('--status', 'timeout'),
        listIds('--min-duration', '20s'),
        listIds('--min-duration', '30000ms', '--agent', 'writer'),
        listIds('--agent', 'reader'),
        listIds('--limit', '2'),
        listIds('--env', 'default', '--status', 'running'),
      ]);
      expect(failed).toEqual([ids.failed]);
      expect(error).toEqual([ids.failed]);
      expect(timeout).toEqual([ids.timeout]);
      expect(slow).toEqual([ids.timeout, ids.failed]);
      expect(thirty).toEqual([ids.failed]);
      expect(reader).toEqual([ids.queued, ids.timeout, ids.child]);
      expect(limited).toEqual([ids.queued, ids.running]);
      expect(env).toEqual([ids.running]);
    });

    it('refuses a bad status, a bad duration and an unknown environment with their exit codes', async () => {
      const [status, statusJson, duration, env] = await Promise.all([
        cli(['runs', 'list', '--status', 'broken'], home),
        cli(['runs', 'list', '--status', 'broken', '--json'], home),
        cli(['runs', 'list', '--min-duration', '5 minutes'], home),
        cli(['runs', 'list', '--env', 'nowhere'], home),
      ]);
      expect(status.status).toBe(2);
      expect(status.stderr).toBe(
        'Error [INVALID_ARGUMENT]: --status must be one of queued, running, completed, error, timeout, cancelled, failed; got "broken".\n',
      );
      expect(statusJson.status).toBe(2);
      expect(
        json<{ error: { code: string; details: { valid: string[] } } }>(statusJson).error,
      ).toMatchObject({
        code: 'INVALID_ARGUMENT',
        details: {
          valid: ['queued', 'running', 'completed', 'error', 'timeout', 'cancelled', 'failed'],
        },
      });
      expect(duration.status).toBe(2);
      expect(duration.stderr).toContain(
        '--min-duration must be a whole number followed by ms, s, m, h or d (500ms, 5s, 2m, 1h, 7d)',
      );
      expect(env.status).toBe(4);
      expect(env.stderr).toContain('ENVIRONMENT_NOT_FOUND');
    });
  });

  describe('runs inspect', () => {
    it('prints the run header and one summary line per event', async () => {
      const r = await cli(['runs', 'inspect', String(ids.main)], home);
      expect(r.status).toBe(0);
      const out = r.stdout;
      expect(out).toContain(`Run ${ids.main}  writer  completed`);
      expect(out).toMatch(/^ {2}source\s+cli$/m);
      expect(out).toMatch(/^ {2}parent run\s+-$/m);
      expect(out).toMatch(/^ {2}model\s+gpt-4o$/m);
      expect(out).toMatch(/^ {2}steps\s+2$/m);
      expect(out).toMatch(/^ {2}tokens\s+100 in \/ 50 out$/m);
      // gpt-4o's built-in list price: 100 × $2.50 + 50 × $10 per million, on the line after the tokens.
      expect(out).toMatch(/^ {2}tokens\s+100 in \/ 50 out\n {2}cost {12}\$0\.000750$/m);
      expect(out).toMatch(/^ {2}duration\s+2\.0s$/m);
      expect(out).toMatch(/^ {2}trace id\s+trace-abc123$/m);
      expect(out).toMatch(/^ {2}final response\s+Sent the summary\.$/m);
      expect(out).toContain('Events (5)');
      expect(out).toMatch(
        /#1\s+model_turn\s+820ms\s+step 1 {2}gpt-4o {2}tokens 60 in \/ 20 out {2}finish tool-calls {2}calls read_file$/m,
      );
      expect(out).toMatch(/#2\s+tool_call\s+120ms\s+step 1 {2}filesystem\/read_file {2}ok$/m);
      expect(out).toMatch(
        new RegExp(`#3\\s+sub_agent\\s+-\\s+reader {2}→ run ${ids.child} {2}completed$`, 'm'),
      );
      expect(out).toMatch(
        /#4\s+model_turn\s+640ms\s+step 2 .*finish stop {2}"Sent the summary\."$/m,
      );
      expect(out).toMatch(/#5\s+checkpoint\s+-\s+\{"note":"custom event"\}$/m);
      // Arguments and results only with --verbose.
      expect(out).not.toContain('/srv/reports/q3.txt');
      expect(out).not.toContain('Q3 revenue');
    });

    it('--verbose adds tool arguments and results; --json gives payloads only with --verbose', async () => {
      const [verbose, plain, full, child, failed] = await Promise.all([
        cli(['runs', 'inspect', String(ids.main), '--verbose'], home),
        cli(['runs', 'inspect', String(ids.main), '--json'], home),
        cli(['runs', 'inspect', String(ids.main), '--json', '--verbose'], home),
        cli(['runs', 'inspect', String(ids.child)], home),
        cli(['runs', 'inspect', String(ids.failed)], home),
      ]);
      expect(verbose.status).toBe(0);
      expect(verbose.stdout).toMatch(
        /^\s+arguments: \{\n\s+"path": "\/srv\/reports\/q3\.txt"\n\s+\}$/m,
      );
      expect(verbose.stdout).toMatch(/^\s+result: Q3 revenue up 12%$/m);
      expect(verbose.stdout).toMatch(/^\s+text: Sent the summary\.$/m);

      const p = json<{ run: RunJson; events: Array<Record<string, unknown>> }>(plain);
      expect(p.run).toMatchObject({
        run_id: ids.main,
        status: 'completed',
        duration_ms: 2000,
        cost_usd: 0.00075,
      });
      expect(p.events.map((e) => e.type)).toEqual([
        'model_turn',
        'tool_call',
        'sub_agent',
        'model_turn',
        'checkpoint',
      ]);
      expect(p.events[1]).toEqual({
        seq: 2,
        type: 'tool_call',
        duration_ms: 120,
        created_at: expect.any(String),
        summary: 'step 1  filesystem/read_file  ok',
      });
      const f = json<{ events: Array<Record<string, unknown>> }>(full);
      expect(f.events[1]!.payload).toMatchObject({
        arguments: { path: '/srv/reports/q3.txt' },
        result: 'Q3 revenue up 12%',
      });

      expect(child.stdout).toMatch(new RegExp(`^ {2}parent run\\s+${ids.main}$`, 'm'));
      expect(child.stdout).toContain('No events.');
      expect(failed.stdout).toMatch(/^ {2}error\s+model exploded$/m);
      // What started it, when that was not its caller alone; a run without one has no line.
      expect(failed.stdout).toMatch(/^ {2}origin\s+workflow run 9, step summarise#1$/m);
      expect(verbose.stdout).not.toMatch(/^ {2}origin/m);
      expect(failed.stdout).toMatch(/^ {2}cost\s+\$0\.000420$/m);
      expect(failed.stdout).toMatch(/#1\s+run_error\s+-\s+model exploded$/m);
    });

    it('exits 4 for an unknown id and 2 for an id that is not a number', async () => {
      const [unknown, bad, badJson] = await Promise.all([
        cli(['runs', 'inspect', '999999'], home),
        cli(['runs', 'inspect', 'abc'], home),
        cli(['runs', 'inspect', '1.5', '--json'], home),
      ]);
      expect(unknown.status).toBe(4);
      expect(unknown.stderr).toContain('Error [RUN_NOT_FOUND]: There is no run 999999');
      expect(bad.status).toBe(2);
      expect(bad.stderr).toContain('Error [INVALID_ARGUMENT]: A run id is a whole number');
      expect(badJson.status).toBe(2);
      expect(json<{ error: { code: string } }>(badJson).error.code).toBe('INVALID_ARGUMENT');
    });
  });

  describe('stats', () => {
    it('sums tokens of the period by agent and by model', async () => {
      const [byAgent, byModel, text, all] = await Promise.all([
        cli(['stats', 'tokens', '--group-by', 'agent', '--period', '7d', '--json'], home),
        cli(['stats', 'tokens', '--group-by', 'model', '--period', '7d', '--json'], home),
        cli(['stats', 'tokens', '--group-by', 'model', '--period', '7d'], home),
        cli(['stats', 'tokens', '--group-by', 'agent', '--period', '60d', '--json'], home),
      ]);
      type Rows = {
        rows: Array<Record<string, unknown>>;
        group_by: string;
        period: string;
        total: Record<string, unknown>;
        unpriced_models: string[];
      };
      expect(json<Rows>(byAgent)).toMatchObject({ group_by: 'agent', period: '7d' });
      // Built-in list prices: gpt-4o $2.50/$10, gpt-4o-mini $0.15/$0.60 per million tokens. The
      // timeout run recorded tokens but no model: its cost is unknown. Runs without tokens cost 0.
      expect(json<Rows>(byAgent).rows).toEqual([
        {
          key: 'writer',
          runs: 3,
          input_tokens: 500,
          output_tokens: 650,
          total_tokens: 1150,
          cost_usd: 0.00117,
          unpriced_runs: 0,
        },
        {
          key: 'reader',
          runs: 3,
          input_tokens: 1005,
          output_tokens: 15,
          total_tokens: 1020,
          cost_usd: 0.000156,
          unpriced_runs: 1,
        },
      ]);
      expect(json<Rows>(byAgent).total).toEqual({
        runs: 6,
        input_tokens: 1505,
        output_tokens: 665,
        total_tokens: 2170,
        cost_usd: 0.001326,
        unpriced_runs: 1,
      });
      expect(json<Rows>(byAgent).unpriced_models).toEqual(['(unknown)']);
      expect(json<Rows>(byModel).rows).toEqual([
        {
          key: 'gpt-4o-mini',
          runs: 2,
          input_tokens: 1400,
          output_tokens: 610,
          total_tokens: 2010,
          cost_usd: 0.000576,
          unpriced_runs: 0,
        },
        {
          key: 'gpt-4o',
          runs: 1,
          input_tokens: 100,
          output_tokens: 50,
          total_tokens: 150,
          cost_usd: 0.00075,
          unpriced_runs: 0,
        },
        {
          key: '(unknown)',
          runs: 3,
          input_tokens: 5,
          output_tokens: 5,
          total_tokens: 10,
          cost_usd: null,
          unpriced_runs: 1,
        },
      ]);
      expect(json<Rows>(byModel).total).toMatchObject({ cost_usd: 0.001326, unpriced_runs: 1 });
      expect(text.stdout).toMatch(/^MODEL\s+RUNS\s+INPUT\s+OUTPUT\s+TOTAL\s+COST$/m);
      expect(text.stdout).toMatch(/^gpt-4o-mini\s+2\s+1400\s+610\s+2010\s+\$0\.000576$/m);
      expect(text.stdout).toMatch(/^\(unknown\)\s+3\s+5\s+5\s+10\s+—$/m);
      expect(text.stdout).toMatch(/^\(all\)\s+6\s+1505\s+665\s+2170\s+\$0\.001326$/m);
      expect(text.stdout).toContain(
        'Cost unknown for 1 run: no price for (unknown). Set one under pricing in config.yaml.',
      );
      // The 40-day-old run counts only in a long enough period.
      expect(json<Rows>(all).rows[0]).toMatchObject({
        key: 'writer',
        runs: 4,
        total_tokens: 101_149,
      });
    });

    it('counts runs by status with p50/p95 durations, for all agents or one', async () => {
      const [all, writer, text, bad] = await Promise.all([
        cli(['stats', 'runs', '--period', '7d', '--json'], home),
        cli(['stats', 'runs', '--period', '7d', '--agent', 'writer', '--json'], home),
        cli(['stats', 'runs', '--period', '7d'], home),
        cli(['stats', 'runs', '--period', 'week'], home),
      ]);
      expect(json(all)).toMatchObject({
        period: '7d',
        agent: null,
        total: 6,
        by_status: { queued: 1, running: 1, completed: 2, error: 1, timeout: 1, cancelled: 0 },
        // Finished: 2 s, 10 s, 30 s, 60 s → nearest rank 2 and 4.
        duration_ms: { p50: 10_000, p95: 60_000, max: 60_000, mean: 25_500 },
      });
      expect(json(writer)).toMatchObject({
        agent: 'writer',
        total: 3,
        by_status: { completed: 1, error: 1, running: 1 },
        duration_ms: { p50: 2000, p95: 30_000 },
      });
      expect(text.stdout).toContain('6 runs queued in the last 7d');
      expect(text.stdout).toMatch(/^completed\s+2$/m);
      expect(text.stdout).toContain(
        'Duration of finished runs: p50 10s  p95 1m00s  max 1m00s  mean 25s',
      );
      expect(bad.status).toBe(2);
      expect(bad.stderr).toContain('--period must be a whole number followed by ms, s, m, h or d');
    });
  });

  describe('cost with pricing in config.yaml', () => {
    it('prices runs at the configured price, over the built-in one and for models it lacks', async () => {
      const priced = tempConfigHome();
      try {
        const ws = await openWorkspaceStore(priced);
        const p: Record<string, number> = {};
        try {
          const t = now - 3_600_000;
          p.dated = await addRun(ws, t, {
            agent: 'writer',
            model: 'openai/gpt-4o-2024-11-20',
            tokens: [100, 50],
            end: 'completed',
          });
          p.local = await addRun(ws, t + 10, {
            agent: 'writer',
            model: 'openai-compatible/llama3.1',
            tokens: [5000, 5000],
            end: 'completed',
          });
          p.unpriced = await addRun(ws, t + 20, {
            agent: 'reader',
            model: 'openai-compatible/mystery',
            tokens: [10, 10],
            end: 'completed',
          });
        } finally {
          await ws.store.close();
        }
        writeFileSync(
          path.join(priced, 'junction', 'config.yaml'),
          [
            'pricing:',
            '  gpt-4o: { input_per_million: 1, output_per_million: 2 }',
            '  openai-compatible/llama3.1:',
            '    input_per_million: 0',
            '    output_per_million: 0',
            '',
          ].join('\n'),
        );
        const [dated, local, unpriced, asJson, stats, statsJson] = await Promise.all([
          cli(['runs', 'inspect', String(p.dated)], priced),
          cli(['runs', 'inspect', String(p.local)], priced),
          cli(['runs', 'inspect', String(p.unpriced)], priced),
          cli(['runs', 'inspect', String(p.unpriced), '--json'], priced),
          cli(['stats', 'tokens', '--group-by', 'agent'], priced),
          cli(['stats', 'tokens', '--group-by', 'agent', '--json'], priced),
        ]);
        // 100 × $1 + 50 × $2 per million, not gpt-4o's built-in $2.50 / $10.
        expect(dated.stdout).toMatch(/^ {2}cost {12}\$0\.000200$/m);
        expect(local.stdout).toMatch(/^ {2}cost {12}\$0\.000000$/m);
        expect(unpriced.stdout).toMatch(/^ {2}cost {12}—$/m);
        expect(json<{ run: { cost_usd: unknown } }>(asJson).run.cost_usd).toBeNull();
        expect(stats.stdout).toMatch(/^writer\s+2\s+5100\s+5050\s+10150\s+\$0\.000200$/m);
        expect(stats.stdout).toMatch(/^reader\s+1\s+10\s+10\s+20\s+—$/m);
        expect(stats.stdout).toContain(
          'Cost unknown for 1 run: no price for openai-compatible/mystery. Set one under pricing in config.yaml.',
        );
        expect(json<{ total: unknown }>(statsJson).total).toEqual({
          runs: 3,
          input_tokens: 5110,
          output_tokens: 5060,
          total_tokens: 10170,
          cost_usd: 0.0002,
          unpriced_runs: 1,
        });
      } finally {
        rmSync(priced, { recursive: true, force: true });
      }
    });
  });

  describe('logs', () => {
    const line = (level: string, msg: string): RegExp =>
      new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z ${level.toUpperCase().padEnd(5)} ${msg}`, 'm');

    it('prints the last records as text lines, filtered by level and agent', async () => {
      const [all, warn, writer, infoWriter, last2, asJson] = await Promise.all([
        cli(['logs'], home),
        cli(['logs', '--level', 'warn'], home),
        cli(['logs', '--agent', 'writer'], home),
        cli(['logs', '--level', 'info', '--agent', 'writer'], home),
        cli(['logs', '--lines', '2'], home),
        cli(['logs', '--json', '--level', 'error'], home),
      ]);
      expect(all.status).toBe(0);
      const lines = all.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(5);
      expect(lines[0]).toMatch(
        line('info', `run started agent_id=1 agent_name=writer run_id=${ids.main}$`),
      );
      expect(lines[2]).toMatch(line('warn', 'tool slow agent_name=reader duration_ms=5000$'));
      expect(lines[4]).toMatch(line('info', 'server listening port=8585$'));
      expect(all.stdout).not.toContain('not a json line');

      expect(
        warn.stdout
          .trimEnd()
          .split('\n')
          .map((l) => l.split(' ')[1]),
      ).toEqual(['WARN', 'ERROR']);
      expect(writer.stdout.trimEnd().split('\n')).toHaveLength(3);
      const infoLines = infoWriter.stdout.trimEnd().split('\n');
      expect(infoLines).toHaveLength(2);
      expect(infoLines[0]).toMatch(line('info', 'run started'));
      expect(infoLines[1]).toMatch(line('error', 'run failed'));
      expect(last2.stdout.trimEnd().split('\n')).toHaveLength(2);
      expect(last2.stdout).toContain('server listening');
      expect(json(asJson)).toEqual([
        {
          level: 'error',
          ts: expect.any(String),
          msg: 'run failed',
          agent_name: 'writer',
          run_id: ids.failed,
          status: 'error',
        },
      ]);
    });

    it('says there is no log file yet and exits 0', async () => {
      const fresh = tempConfigHome();
      try {
        const [text, asJson] = await Promise.all([
          cli(['logs'], fresh),
          cli(['logs', '--json'], fresh),
        ]);
        expect(text.status).toBe(0);
        expect(text.stdout).toContain('No log file yet at');
        expect(asJson.status).toBe(0);
        expect(json(asJson)).toEqual([]);
      } finally {
        rmSync(fresh, { recursive: true, force: true });
      }
    });

    it('rotates the log file at log_file_max_bytes, and reads the last records across the rotation', async () => {
      const fresh = tempConfigHome();
      const dir = path.join(fresh, 'junction', 'logs');
      const file = path.join(dir, 'junction.log');
      try {
        mkdirSync(dir, { recursive: true });
        // A short API key makes every service start warn (it cannot be redacted): one record.
        writeFileSync(
          path.join(fresh, 'junction', 'config.yaml'),
          'api:\n  keys: [short]\nlog_file_max_bytes: 4096\nlog_file_keep: 1\n',
        );
        const old = (n: number): string =>
          `${JSON.stringify({ level: 'info', ts: '2026-01-01T00:00:00.000Z', msg: `old ${n}`, pad: 'p'.repeat(60) })}\n`;
        writeFileSync(file, Array.from({ length: 40 }, (_v, n) => old(n)).join(''));
        writeFileSync(`${file}.1`, old(-1));
        const started = await cli(['logs', '--run', '999999'], fresh);
        expect(started.status).toBe(4);
        // The full file moved to .1 (the older .1 deleted: keep 1), the warning began a new one.
        const rotated = readFileSync(`${file}.1`, 'utf8');
        expect(rotated).toContain('"old 39"');
        expect(rotated).not.toContain('"old -1"');
        expect(existsSync(`${file}.2`)).toBe(false);
        const current = readFileSync(file, 'utf8').trimEnd().split('\n');
        expect(current).toHaveLength(1);
        expect(current[0]).toContain('shorter than');
        const last = await cli(['logs', '--lines', '3', '--json'], fresh);
        expect(last.status).toBe(0);
        expect(json<{ msg: string }[]>(last).map((r) => r.msg)).toEqual([
          'old 38',
          'old 39',
          expect.stringContaining('shorter than'),
        ]);
      } finally {
        rmSync(fresh, { recursive: true, force: true });
      }
    });

    it('-f prints lines appended after it started, survives a missing file and truncation, stops on a signal', async () => {
      const fresh = tempConfigHome();
      const file = path.join(fresh, 'junction', 'logs', 'junction.log');
      const record = (msg: string, agent: string): string =>
        `${JSON.stringify({ level: 'info', ts: new Date().toISOString(), msg, agent_name: agent })}\n`;
      const child = spawn(process.execPath, [bin, 'logs', '-f', '--agent', 'writer'], {
        env: { ...baseEnv(), XDG_CONFIG_HOME: fresh },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) =>
        child.on('close', (code) => resolve(code)),
      );
      const waitFor = async (what: () => boolean, label: string): Promise<void> => {
        const deadline = Date.now() + 15_000;
        while (!what()) {
          if (Date.now() > deadline)
            throw new Error(`timed out waiting for ${label}; stdout=${stdout} stderr=${stderr}`);
          await new Promise((r) => setTimeout(r, 50));
        }
      };
      try {
        await waitFor(() => stderr.includes('Waiting for'), 'the follower to start');
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileSync(file, record('first line', 'writer'));
        await waitFor(() => stdout.includes('first line'), 'the first line');
        appendFileSync(file, record('other agent', 'reader') + record('appended later', 'writer'));
        await waitFor(() => stdout.includes('appended later'), 'the appended line');
        truncateSync(file, 0);
        await new Promise((r) => setTimeout(r, 500));
        appendFileSync(file, record('after truncation', 'writer'));
        await waitFor(() => stdout.includes('after truncation'), 'the line after truncation');
        expect(stdout).not.toContain('other agent');
        expect(stdout.trimEnd().split('\n')).toHaveLength(3);
        process.kill(child.pid!, 'SIGINT');
        expect(await exited).toBe(0);
      } finally {
        child.kill('SIGKILL');
        rmSync(fresh, { recursive: true, force: true });
      }
    }, 180_000);
  });

  describe('logs audit', () => {
    it('lists audit entries newest first, --filter matching source or transport', async () => {
      const [mcp, http, all, limited] = await Promise.all([
        cli(['logs', 'audit', '--filter', 'mcp'], home),
        cli(['logs', 'audit', '--filter', 'http', '--json'], home),
        cli(['logs', 'audit', '--json'], home),
        cli(['logs', 'audit', '--limit', '1', '--json'], home),
      ]);
      expect(mcp.status).toBe(0);
      expect(mcp.stdout).toMatch(
        /^AT\s+SOURCE\s+TRANSPORT\s+ACTOR\s+ACTION\s+OUTCOME\s+DURATION$/m,
      );
      const rows = mcp.stdout.trimEnd().split('\n').slice(1);
      expect(rows).toHaveLength(2);
      // Times relative in a table (ISO under --json, below).
      expect(rows[0]).toMatch(/^\d+[smhd] ago\s+mcp\s+http\s+alice\s+list_agents\s+denied\s+-$/);
      expect(rows[1]).toMatch(/ago\s+mcp\s+stdio\s+-\s+call_agent\s+success\s+1\.5s$/);

      type Entry = { source: string; transport: string | null; action: string };
      expect(json<Entry[]>(http).map((e) => e.action)).toEqual(['list_agents', 'queue']);
      expect(json<Entry[]>(all).map((e) => e.action)).toEqual([
        'sync',
        'list_agents',
        'queue',
        'call_agent',
      ]);
      expect(json<Entry[]>(all)[3]).toEqual({
        id: expect.any(Number),
        at: expect.any(String),
        actor: null,
        source: 'mcp',
        transport: 'stdio',
        action: 'call_agent',
        arguments: null,
        outcome: 'success',
        duration_ms: 1500,
        details: null,
      });
      expect(json<Entry[]>(limited)).toHaveLength(1);
    });
  });

  describe('runs prune', () => {
    it('deletes old finished runs and their events, keeping queued, running and recent runs', async () => {
      const pruneHome = tempConfigHome();
      try {
        const ws = await openWorkspaceStore(pruneHome);
        const p: Record<string, number> = {};
        try {
          const old = now - 40 * DAY;
          p.oldDone = await addRun(ws, old, { agent: 'a', durationMs: 100, end: 'completed' });
          p.oldFailed = await addRun(ws, old + 10, { agent: 'a', durationMs: 100, end: 'error' });
          p.oldRunning = await addRun(ws, old + 20, { agent: 'a', end: 'running' });
          p.recentDone = await addRun(ws, now - DAY, {
            agent: 'a',
            durationMs: 100,
            end: 'completed',
          });
          p.oldQueued = await addRun(ws, old + 30, { agent: 'a', end: 'queued' });
          await ws.store.runEvents.append(p.oldDone, { type: 'model_turn', payload: { step: 1 } });
          await ws.store.runEvents.append(p.recentDone, {
            type: 'model_turn',
            payload: { step: 1 },
          });
        } finally {
          await ws.store.close();
        }

        const [missing, bad] = await Promise.all([
          cli(['runs', 'prune'], pruneHome),
          cli(['runs', 'prune', '--older-than', '30'], pruneHome),
        ]);
        expect(missing.status).toBe(2);
        expect(missing.stderr).toContain('Missing required flag older-than');
        expect(bad.status).toBe(2);
        expect(bad.stderr).toContain(
          '--older-than must be a whole number followed by ms, s, m, h or d',
        );

        const r = await cli(['runs', 'prune', '--older-than', '30d'], pruneHome);
        expect(r.status).toBe(0);
        expect(r.stdout).toMatch(/^Pruned 2 finished runs queued before \d{4}-\S+Z\.$/m);
        const again = await cli(['runs', 'prune', '--older-than', '30d', '--json'], pruneHome);
        expect(json(again)).toEqual({ pruned: 0, before: expect.any(String) });

        const check = await openWorkspaceStore(pruneHome);
        try {
          const left = (await check.store.runs.list()).map((x) => x.id).sort((a, b) => a - b);
          expect(left).toEqual([p.oldRunning, p.recentDone, p.oldQueued]);
          expect(await check.store.runEvents.count(p.oldDone!)).toBe(0);
          expect(await check.store.runEvents.count(p.recentDone!)).toBe(1);
        } finally {
          await check.store.close();
        }
      } finally {
        rmSync(pruneHome, { recursive: true, force: true });
      }
    });
  });
});
