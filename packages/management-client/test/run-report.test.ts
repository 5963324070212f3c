// Run reports: each run that finishes on the store reaches the platform once, as a unary
// SendRun with its steps, tool calls and tokens; the place in the history survives a restart,
// and runs that finish while the platform is away are sent once it is back.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { startFakePlatform, type FakePlatform } from '@junction/tooling/fixtures/fake-platform.mjs';
import { createRedactor } from '@junction/telemetry';
import { ManagementChannel, RunReporter } from '../src/index.js';
import { GOOD_KEY, harness, until, type Harness } from './harness.js';

let h: Harness;
let platform: FakePlatform;

beforeEach(async () => {
  h = await harness();
  platform = await startFakePlatform();
});

afterEach(async () => {
  await platform.stop();
  await h.close();
});

const station = {
  describe: async () => ({ agents: [], tools: [], mcp_servers: [] }),
  handle: async () => undefined,
};

async function connected(): Promise<{ channel: ManagementChannel; reporter: RunReporter }> {
  const channel = new ManagementChannel({
    settings: h.settings(platform.address),
    station,
    logger: h.logger,
    version: '9.9.9-test',
    backoff: { initialMs: 50, maxMs: 200 },
  });
  const reporter = new RunReporter({
    store: h.store,
    channel,
    logger: h.logger,
    version: '9.9.9-test',
    stationName: 'station-a',
    environment: 'default',
    mode: 'DEPLOYMENT_MODE_SERVE',
    redactor: createRedactor([]),
    pollMs: 100,
    // Runs made in the test count as finished after the station first connected.
    now: () => new Date(0),
  });
  reporter.start();
  channel.start();
  await until(() => channel.status().state === 'connected', 'registration');
  return { channel, reporter };
}

/** A run finished the way the runner finishes one: a model turn, a tool call, the answer. */
async function finishedRun(task: string, ok = true, extra: { idempotencyKey?: string } = {}) {
  const agent = (await h.store.agents.list())[0]!;
  const run = await h.store.runs.create({
    agentId: agent.id,
    agentName: agent.name,
    task,
    source: extra.idempotencyKey ? 'management' : 'api',
    // As the station writes a run the platform asked for: keyed, and its origin the platform's run.
    ...(extra.idempotencyKey
      ? {
          idempotencyKey: extra.idempotencyKey,
          origin: { platformRunId: extra.idempotencyKey.replace(/^management:/, '') },
        }
      : {}),
  });
  await h.store.runs.claim(run.id, 'w1', 60_000);
  const finalEvents = {
    events: [
      {
        type: 'model_turn',
        payload: {
          step: 1,
          model: 'gpt-4o-mini',
          input_tokens: 11,
          output_tokens: 7,
          tool_calls: [{ name: 'read_file' }],
        },
        durationMs: 12,
      },
      {
        type: 'tool_call',
        payload: {
          step: 1,
          server: 'files',
          tool: 'read_file',
          arguments: { path: '/tmp/a.txt' },
          result: 'hello',
          success: true,
        },
        durationMs: 3,
      },
    ],
  };
  return ok
    ? h.store.runs.markCompleted(run.id, {
        finalResponse: `done: ${task}`,
        inputTokens: 11,
        outputTokens: 7,
        stepsTaken: 1,
        model: 'gpt-4o-mini',
        finalEvents,
      })
    : h.store.runs.markFailed(run.id, { error: 'the model failed', finalEvents });
}

describe('run reports', () => {
  it('sends each finished run once with its steps, tool calls and tokens, and the key', async () => {
    const { channel, reporter } = await connected();
    try {
      const a = await finishedRun('first');
      const b = await finishedRun('second', false);
      reporter.wake();
      await until(() => platform.runReports.length === 2, 'two reports');
      const [ra, rb] = platform.runReports;
      expect(ra).toMatchObject({ via: 'unary', accepted: true });
      expect(ra!.request).toMatchObject({
        registration_key: GOOD_KEY,
        environment: 'default',
        mode: 'DEPLOYMENT_MODE_SERVE',
        source: 'RUN_SOURCE_ANALYTICS',
        labels: { source: 'api' },
      });
      expect(ra!.request.run_data).toMatchObject({
        run_id: String(a.id),
        agent_name: 'helper',
        task: 'first',
        response: 'done: first',
        status: 'LIGHTHOUSE_RUN_STATUS_COMPLETED',
        model_name: 'gpt-4o-mini',
        token_usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
        station_version: '9.9.9-test',
        tool_calls: [
          expect.objectContaining({
            tool_name: 'read_file',
            parameters: { path: '/tmp/a.txt' },
            result: 'hello',
            success: true,
            duration_ms: '3',
          }),
        ],
        execution_steps: [
          expect.objectContaining({ step_number: 1, type: 'STEP_TYPE_LLM_CALL' }),
          expect.objectContaining({ step_number: 2, type: 'STEP_TYPE_TOOL_CALL' }),
        ],
      });
      expect(rb!.request.run_data).toMatchObject({
        run_id: String(b.id),
        status: 'LIGHTHOUSE_RUN_STATUS_FAILED',
        response: 'the model failed',
      });
      // Nothing is sent twice, however often it is woken.
      reporter.wake();
      await new Promise((r) => setTimeout(r, 300));
      await reporter.idle();
      expect(platform.runReports).toHaveLength(2);
    } finally {
      await reporter.stop();
      await channel.stop();
    }
  });

  it('names a run the platform asked for by the platform run id', async () => {
    const { channel, reporter } = await connected();
    try {
      const run = await finishedRun('asked', true, { idempotencyKey: 'management:plat-77' });
      reporter.wake();
      await until(() => platform.runReports.length === 1, 'the report');
      expect(platform.runReports[0]!.request).toMatchObject({
        source: 'RUN_SOURCE_UI_TRIGGERED',
        run_data: expect.objectContaining({
          run_id: 'plat-77',
          metadata: expect.objectContaining({
            junction_run_id: String(run.id),
            source: 'management',
          }),
        }),
      });
    } finally {
      await reporter.stop();
      await channel.stop();
    }
  });

  it('keeps its place across a restart and sends what finished while the platform was away', async () => {
    let { channel, reporter } = await connected();
    await finishedRun('before');
    reporter.wake();
    await until(() => platform.runReports.length === 1, 'the first report');
    await reporter.stop();
    await channel.stop();
    await platform.stop();
    // Finished while no station was connected.
    await finishedRun('during');
    await platform.restart();
    ({ channel, reporter } = await connected());
    try {
      await until(
        () => platform.runReports.length === 2,
        'the report of the run that finished while away',
      );
      expect(platform.runReports.map((r) => (r.request.run_data as { task: string }).task)).toEqual(
        ['before', 'during'],
      );
    } finally {
      await reporter.stop();
      await channel.stop();
    }
  });
});
