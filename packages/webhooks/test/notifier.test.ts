import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import express from 'express';
import { createRunDoor, RunWorkers } from '@junction/agent-core/runs';
import { createConfigSchema, resolvePaths } from '@junction/config-templates';
import type { Run, RunStatus } from '@junction/store';
import { createNotifier, createWebhookRouter, type Notifier } from '../src/index.js';
import {
  agentEventPayloadSchema,
  MAX_FINAL_RESPONSE_CHARS,
  schedulerErrorPayloadSchema,
} from '../src/notification-payloads.js';
import {
  listen,
  memoryLogger,
  openFixture,
  post,
  startSink,
  type Fixture,
  type Listening,
} from './helpers.js';

let fx: Fixture;
let notifier: Notifier | undefined;
const servers: Listening[] = [];

beforeEach(async () => {
  fx = await openFixture();
  notifier = undefined;
});
afterEach(async () => {
  await notifier?.close({ timeoutMs: 100 });
  for (const s of servers.splice(0)) await s.close();
  await fx.close();
});

async function sink(
  respond: (n: number) => number | 'hang' = () => 200,
): ReturnType<typeof startSink> {
  const s = await startSink(respond);
  servers.push(s);
  return s;
}

const FAST = { timeoutMs: 500, delaysMs: [0, 10, 20] };

/** A run of `assistant` that ended with `status`. */
async function finishedRun(
  status: Exclude<RunStatus, 'queued' | 'running'>,
  answer = 'All done.',
): Promise<Run> {
  const run = await fx.store.runs.create({
    agentId: fx.assistant.id,
    agentName: 'assistant',
    environmentId: fx.assistant.environmentId,
    task: 'Check the queue',
    source: 'webhook',
  });
  await fx.store.runs.claim(run.id, 'w1', 60_000);
  if (status === 'completed') {
    return fx.store.runs.markCompleted(run.id, {
      finalResponse: answer,
      stepsTaken: 3,
      inputTokens: 300,
      outputTokens: 40,
    });
  }
  return fx.store.runs.markFailed(run.id, { status, error: `run ended: ${status}`, stepsTaken: 1 });
}

function bodies(requests: { body: string }[]): Array<Record<string, unknown>> {
  return requests.map((r) => JSON.parse(r.body) as Record<string, unknown>);
}

describe('createNotifier', () => {
  it('sends agent.completed, agent.failed (error, cancelled) and agent.timeout with the documented payload', async () => {
    const receiver = await sink();
    notifier = createNotifier({
      store: fx.store,
      logger: memoryLogger().logger,
      url: `${receiver.url}/alerts`,
      events: ['agent.completed', 'agent.failed', 'agent.timeout'],
      version: '1.2.3',
      ...FAST,
    });
    const runs = [
      await finishedRun('completed'),
      await finishedRun('error'),
      await finishedRun('cancelled'),
      await finishedRun('timeout'),
    ];
    for (const run of runs) await notifier.runFinished(run);
    await notifier.close();

    const sent = bodies(receiver.requests).sort((a, b) => Number(a.run_id) - Number(b.run_id));
    expect(sent.map((b) => [b.event, b.status])).toEqual([
      ['agent.completed', 'completed'],
      ['agent.failed', 'error'],
      ['agent.failed', 'cancelled'],
      ['agent.timeout', 'timeout'],
    ]);
    for (const body of sent) expect(agentEventPayloadSchema.safeParse(body).success).toBe(true);
    expect(sent[0]).toEqual({
      event: 'agent.completed',
      occurred_at: runs[0]!.completedAt!.toISOString(),
      run_id: runs[0]!.id,
      agent: { id: fx.assistant.id, name: 'assistant', environment: 'default' },
      status: 'completed',
      source: 'webhook',
      steps_taken: 3,
      error: null,
      final_response: 'All done.',
      final_response_truncated: false,
      duration_ms: expect.any(Number),
      input_tokens: 300,
      output_tokens: 40,
      service: { name: 'junction', version: '1.2.3' },
    });
    expect(sent[1]).toMatchObject({
      error: 'run ended: error',
      steps_taken: 1,
      final_response: null,
    });
    for (const r of receiver.requests) expect(r.headers['user-agent']).toBe('Svc-Webhook/1.0');
    const rows = await fx.store.notificationLogs.list();
    expect(rows).toHaveLength(4);
    expect(rows.every((r) => r.eventType === 'webhook_sent' && r.responseStatus === 200)).toBe(
      true,
    );
  });

  it('sends nothing for an event that is not selected', async () => {
    const receiver = await sink();
    notifier = createNotifier({
      store: fx.store,
      logger: memoryLogger().logger,
      url: receiver.url,
      events: ['agent.failed', 'scheduler.error'],
      version: '1.0.0',
      ...FAST,
    });
    await notifier.runFinished(await finishedRun('completed'));
    await notifier.runFinished(await finishedRun('timeout'));
    await notifier.close();
    expect(receiver.requests).toHaveLength(0);
    expect(await fx.store.notificationLogs.list()).toHaveLength(0);
  });

  it('with the config default selection, sends failures but not completions', async () => {
    const config = createConfigSchema(resolvePaths({ XDG_CONFIG_HOME: fx.dir })).parse({});
    expect(config.notifications.webhook_events).toEqual([
      'agent.failed',
      'agent.timeout',
      'scheduler.error',
    ]);
    const receiver = await sink();
    notifier = createNotifier({
      store: fx.store,
      logger: memoryLogger().logger,
      url: receiver.url,
      events: config.notifications.webhook_events,
      version: '1.0.0',
      ...FAST,
    });
    await notifier.runFinished(await finishedRun('completed'));
    await notifier.runFinished(await finishedRun('error'));
    await notifier.close();
    expect(bodies(receiver.requests).map((b) => b.event)).toEqual(['agent.failed']);
  });

  it('sends workflow.failed for a failed or timed-out workflow run, only when selected', async () => {
    const receiver = await sink();
    notifier = createNotifier({
      store: fx.store,
      logger: memoryLogger().logger,
      url: receiver.url,
      events: ['workflow.failed'],
      version: '1.0.0',
      ...FAST,
    });
    const ended = async (status: 'completed' | 'failed' | 'timed_out') => {
      const run = await fx.store.workflowRuns.create({ workflowKey: 'ship', workflowName: 'Ship' });
      return fx.store.workflowRuns.update(run.id, {
        status,
        ...(status === 'completed' ? {} : { error: `state "deploy": ${status}` }),
      });
    };
    await notifier.workflowFinished(await ended('completed'));
    const failed = await ended('failed');
    await notifier.workflowFinished(failed);
    await notifier.workflowFinished(await ended('timed_out'));
    await notifier.close();
    const sent = bodies(receiver.requests);
    expect(sent.map((b) => [b.event, b.status])).toEqual([
      ['workflow.failed', 'failed'],
      ['workflow.failed', 'timed_out'],
    ]);
    expect(sent[0]).toMatchObject({
      workflow_run_id: failed.id,
      workflow_id: 'ship',
      workflow_name: 'Ship',
      error: 'state "deploy": failed',
      service: { name: 'junction', version: '1.0.0' },
    });
    // Not selected: nothing.
    const quiet = await sink();
    const other = createNotifier({
      store: fx.store,
      logger: memoryLogger().logger,
      url: quiet.url,
      events: ['agent.failed'],
      version: '1.0.0',
      ...FAST,
    });
    await other.workflowFinished(await ended('failed'));
    await other.close();
    expect(quiet.requests).toHaveLength(0);
  });

  it('sends nothing without a URL, and nothing for a run that has not ended', async () => {
    notifier = createNotifier({
      store: fx.store,
      logger: memoryLogger().logger,
      events: ['agent.completed', 'agent.failed'],
      version: '1.0.0',
    });
    await notifier.runFinished(await finishedRun('error'));
    const receiver = await sink();
    const withUrl = createNotifier({
      store: fx.store,
      logger: memoryLogger().logger,
      url: receiver.url,
      events: ['agent.completed', 'agent.failed'],
      version: '1.0.0',
    });
    const queued = await fx.store.runs.create({ agentName: 'assistant', task: 't', source: 'api' });
    await withUrl.runFinished(queued);
    await withUrl.close();
    await notifier.close();
    expect(receiver.requests).toHaveLength(0);
    expect(await fx.store.notificationLogs.list()).toHaveLength(0);
  });

  it('cuts a long final_response and says so', async () => {
    const receiver = await sink();
    notifier = createNotifier({
      store: fx.store,
      logger: memoryLogger().logger,
      url: receiver.url,
      events: ['agent.completed'],
      version: '1.0.0',
      ...FAST,
    });
    await notifier.runFinished(
      await finishedRun('completed', 'x'.repeat(MAX_FINAL_RESPONSE_CHARS + 500)),
    );
    await notifier.close();
    const [body] = bodies(receiver.requests);
    expect(String(body!.final_response)).toHaveLength(MAX_FINAL_RESPONSE_CHARS);
    expect(body!.final_response_truncated).toBe(true);
  });

  it('sends scheduler.error with the agent and schedule', async () => {
    const receiver = await sink();
    notifier = createNotifier({
      store: fx.store,
      logger: memoryLogger().logger,
      url: receiver.url,
      events: ['scheduler.error'],
      version: '2.0.0',
      now: () => new Date('2025-03-04T05:06:07.000Z'),
      ...FAST,
    });
    await notifier.schedulerError({
      error: 'Could not queue the scheduled run: the store is busy.',
      agent: { id: fx.assistant.id, name: 'assistant', environment: 'default' },
      schedule: { id: 3, cron: '*/5 * * * *' },
    });
    await notifier.close();
    const [body] = bodies(receiver.requests);
    expect(schedulerErrorPayloadSchema.safeParse(body).success).toBe(true);
    expect(body).toEqual({
      event: 'scheduler.error',
      occurred_at: '2025-03-04T05:06:07.000Z',
      error: 'Could not queue the scheduled run: the store is busy.',
      agent: { id: fx.assistant.id, name: 'assistant', environment: 'default' },
      schedule: { id: 3, cron: '*/5 * * * *' },
      service: { name: 'junction', version: '2.0.0' },
    });
  });

  it('never blocks the run: runFinished resolves at once, close() waits for the delivery', async () => {
    let answer: (() => void) | undefined;
    const receiver = await listen((req, res) => {
      req.resume();
      answer = () => res.writeHead(200).end();
    });
    servers.push(receiver);
    notifier = createNotifier({
      store: fx.store,
      logger: memoryLogger().logger,
      url: receiver.url,
      events: ['agent.failed'],
      version: '1.0.0',
      timeoutMs: 5000,
    });
    const run = await finishedRun('error');
    const started = performance.now();
    await notifier.runFinished(run);
    expect(performance.now() - started).toBeLessThan(50);
    expect(await fx.store.notificationLogs.list()).toHaveLength(0);

    setTimeout(() => answer?.(), 300);
    await notifier.close();
    const rows = await fx.store.notificationLogs.list();
    expect(rows.map((r) => r.responseStatus)).toEqual([200]);
  });

  it('bounds close(): deliveries still hanging are abandoned, and later events are dropped', async () => {
    const receiver = await sink(() => 'hang');
    const { logger, lines } = memoryLogger();
    notifier = createNotifier({
      store: fx.store,
      logger,
      url: receiver.url,
      events: ['agent.failed'],
      version: '1.0.0',
      timeoutMs: 10_000,
    });
    await notifier.runFinished(await finishedRun('error'));
    const started = performance.now();
    await notifier.close({ timeoutMs: 200 });
    expect(performance.now() - started).toBeLessThan(1500);
    expect(lines().map((l) => l.msg)).toEqual(
      expect.arrayContaining([
        'abandoning notifications still in flight at shutdown',
        'webhook delivery abandoned at shutdown',
      ]),
    );
    await notifier.runFinished(await finishedRun('error'));
    expect(receiver.requests).toHaveLength(1);
    expect(lines().some((l) => l.msg === 'notification dropped: the notifier is closed')).toBe(
      true,
    );
  });

  it('refuses unknown events and a non-HTTP URL', () => {
    const base = { store: fx.store, logger: memoryLogger().logger, version: '1.0.0' };
    expect(() => createNotifier({ ...base, events: ['agent.exploded'] })).toThrow(
      /events \(notifications\.webhook_events\) may only hold agent\.completed, agent\.failed, agent\.timeout, scheduler\.error/,
    );
    expect(() => createNotifier({ ...base, url: 'mailto:ops@example.test', events: [] })).toThrow(
      /must be an http:\/\/ or https:\/\/ URL/,
    );
  });

  it('reports a run started by POST /execute once a worker finishes it', async () => {
    const receiver = await sink();
    const { logger } = memoryLogger();
    notifier = createNotifier({
      store: fx.store,
      logger,
      url: receiver.url,
      events: ['agent.completed'],
      version: '1.0.0',
      ...FAST,
    });
    const n = notifier;
    const workers = new RunWorkers({
      store: fx.store,
      logger,
      pollMs: 20,
      concurrency: 1,
      runner: {
        execute: (run) =>
          fx.store.runs.markCompleted(run.id, { finalResponse: 'Ticket opened.', stepsTaken: 1 }),
      },
      onFinished: (run) => n.runFinished(run),
    });
    await workers.start();
    const runs = createRunDoor({
      store: fx.store,
      checkModel: () => undefined,
      dispatch: workers,
      endings: workers,
    });
    const app = express();
    app.use(createWebhookRouter({ store: fx.store, runs, logger, enabled: true }));
    const server = await listen(app);
    servers.push(server);
    try {
      const accepted = (await (
        await post(`${server.url}/execute`, { agent_name: 'assistant', task: 'Open a ticket' })
      ).json()) as { run_id: number };
      await runs.waitFor(accepted.run_id, { timeoutMs: 5000 });
    } finally {
      await workers.stop({ drainMs: 1000 });
    }
    await notifier.close();
    expect(bodies(receiver.requests)).toEqual([
      expect.objectContaining({
        event: 'agent.completed',
        status: 'completed',
        source: 'webhook',
        final_response: 'Ticket opened.',
        steps_taken: 1,
      }),
    ]);
  });
});
