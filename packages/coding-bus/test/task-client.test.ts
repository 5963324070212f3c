// Sending a coding task over a real nats-server to a backend that speaks the opencode plugin's
// protocol (a fake in this test, answering on the callback subjects the task names): events in
// seq order and once each, the result, sends again on a timeout, cancel, dropped garbage.
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { createNoopLogger, type Logger } from '@junction/telemetry';
import { EmbeddedNats } from '../src/embedded-nats.js';
import type { CodingStreamEvent, CodingTask } from '../src/protocol.js';
import { sendCodingTask } from '../src/nats.js';

const SUBJECTS = {
  task: 'svc.coding.task',
  stream: 'svc.coding.stream',
  result: 'svc.coding.result',
};
let nats: EmbeddedNats;
let junction: NatsConnection;
let backend: NatsConnection;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'junction-coding-'));
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  nats = new EmbeddedNats({ port, storeDir: dir, logger: createNoopLogger() });
  await nats.start();
  junction = await connect({ servers: nats.url });
  backend = await connect({ servers: nats.url });
}, 180_000);

afterAll(async () => {
  await junction?.close();
  await backend?.close();
  await nats?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Serves tasks as the plugin does: `answer` decides what each received task gets. Resolves once
 * the server knows of the subscription (a task sent before that would reach nobody).
 */
async function serve(
  answer: (task: CodingTask, send: number) => Promise<void> | void,
): Promise<() => void> {
  const sub = backend.subscribe(SUBJECTS.task);
  await backend.flush();
  let sends = 0;
  void (async () => {
    for await (const message of sub) await answer(message.json<CodingTask>(), ++sends);
  })();
  return () => sub.unsubscribe();
}

function event(task: CodingTask, seq: number, type: string, content?: string): string {
  return JSON.stringify({
    taskID: task.taskID,
    seq,
    timestamp: new Date().toISOString(),
    type,
    ...(content !== undefined ? { content } : {}),
  });
}

function result(task: CodingTask, text: string): string {
  return JSON.stringify({
    taskID: task.taskID,
    status: 'completed',
    result: text,
    session: { name: task.session.name, opencodeID: 'ses_1', messageCount: 1 },
    workspace: {
      name: task.workspace.name,
      path: '/work/ws',
      git: { branch: 'main', commit: 'abc123', dirty: true },
    },
    metrics: {
      duration: 1200,
      promptTokens: 50,
      completionTokens: 20,
      toolCalls: 2,
      streamEvents: 4,
    },
  });
}

function keepingLogger(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const logger: Logger = {
    ...createNoopLogger(),
    warn: (msg: string, fields?: Record<string, unknown>) =>
      void warnings.push(`${msg} ${JSON.stringify(fields ?? {})}`),
    child: () => logger,
  };
  return { logger, warnings };
}

const input = (taskID: string) => ({
  taskID,
  session: { name: 'agent-run-7', continue: true },
  workspace: { name: 'ws-7', git: { url: 'https://example.invalid/repo.git', branch: 'main' } },
  prompt: 'Add a README',
});

describe('sendCodingTask', () => {
  it('publishes the task with its callbacks, hands over events in seq order once, and returns the result', async () => {
    let seen: CodingTask | undefined;
    const stop = await serve(async (task) => {
      seen = task;
      // Out of order, with a repeat and a message for another task.
      backend.publish(task.callback.streamSubject, event(task, 2, 'prompt_sent'));
      backend.publish(task.callback.streamSubject, event(task, 1, 'session_created'));
      backend.publish(task.callback.streamSubject, event(task, 1, 'session_created'));
      backend.publish(
        task.callback.streamSubject,
        event({ ...task, taskID: 'other' }, 3, 'text', 'x'),
      );
      backend.publish(task.callback.streamSubject, 'not json');
      backend.publish(task.callback.streamSubject, event(task, 3, 'text', 'Writing README.md'));
      await backend.flush();
      backend.publish(task.callback.resultSubject, result(task, 'Added README.md'));
    });
    const { logger, warnings } = keepingLogger();
    const events: CodingStreamEvent[] = [];
    try {
      const done = await sendCodingTask(junction, input('t-1'), {
        subjects: SUBJECTS,
        timeoutMs: 5000,
        logger,
        onEvent: (e) => events.push(e),
      });
      expect(done).toMatchObject({
        taskID: 't-1',
        status: 'completed',
        result: 'Added README.md',
        workspace: { git: { commit: 'abc123', dirty: true } },
        metrics: { toolCalls: 2 },
      });
      expect(seen).toMatchObject({
        taskID: 't-1',
        prompt: 'Add a README',
        timeout: 5000,
        callback: {
          streamSubject: 'svc.coding.stream.t-1',
          resultSubject: 'svc.coding.result.t-1',
        },
      });
      expect(events.map((e) => [e.seq, e.type])).toEqual([
        [1, 'session_created'],
        [2, 'prompt_sent'],
        [3, 'text'],
      ]);
      expect(warnings.some((w) => w.includes('it is for task other'))).toBe(true);
      expect(warnings.some((w) => w.includes('not JSON'))).toBe(true);
    } finally {
      stop();
    }
  });

  it('sends the task again when no result comes in time, up to maxAttempts', async () => {
    const stop = await serve((task, send) => {
      if (send === 2) backend.publish(task.callback.resultSubject, result(task, 'second time'));
    });
    try {
      const done = await sendCodingTask(junction, input('t-2'), {
        subjects: SUBJECTS,
        timeoutMs: 300,
        maxAttempts: 3,
        logger: createNoopLogger(),
      });
      expect(done).toMatchObject({ status: 'completed', result: 'second time' });
    } finally {
      stop();
    }
  });

  it('with nobody answering: a timeout result that says what to check', async () => {
    const done = await sendCodingTask(junction, input('t-3'), {
      subjects: SUBJECTS,
      timeoutMs: 200,
      maxAttempts: 2,
      logger: createNoopLogger(),
    });
    expect(done.status).toBe('timeout');
    expect(done.error).toContain('after 2 sends');
    expect(done.error).toContain('svc.coding.task');
  });

  it('cancelled: answers cancelled at once', async () => {
    const controller = new AbortController();
    const pending = sendCodingTask(junction, input('t-4'), {
      subjects: SUBJECTS,
      timeoutMs: 30_000,
      logger: createNoopLogger(),
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 100);
    const t0 = Date.now();
    expect(await pending).toMatchObject({ status: 'cancelled' });
    // Far sooner than the task's 30 s time-out.
    expect(Date.now() - t0).toBeLessThan(15_000);
  });

  it('drops a result that does not fit the protocol and keeps waiting for one that does', async () => {
    const stop = await serve(async (task) => {
      backend.publish(
        task.callback.resultSubject,
        JSON.stringify({ taskID: task.taskID, status: 'done?' }),
      );
      await backend.flush();
      backend.publish(task.callback.resultSubject, result(task, 'valid'));
    });
    const { logger, warnings } = keepingLogger();
    try {
      const done = await sendCodingTask(junction, input('t-5'), {
        subjects: SUBJECTS,
        timeoutMs: 5000,
        logger,
      });
      expect(done.result).toBe('valid');
      expect(
        warnings.some((w) => w.includes('a coding result was dropped') && w.includes('status')),
      ).toBe(true);
    } finally {
      stop();
    }
  });
});
