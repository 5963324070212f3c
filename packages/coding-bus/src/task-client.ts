// Sending one coding task over the bus and following it to its result: listens on the task's
// stream and result subjects before it publishes, hands over progress events in `seq` order
// (each once), bounds the wait by the task's timeout, and sends the task again — at most
// `maxAttempts` sends in all — when no result came in time.
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Logger } from '@junction/telemetry';
import {
  parseResult,
  parseStreamEvent,
  type CodingResult,
  type CodingStreamEvent,
  type CodingTask,
} from './protocol.js';

export interface CodingSubjects {
  task: string;
  stream: string;
  result: string;
}

export interface SendTaskOptions {
  subjects: CodingSubjects;
  /** How long one send may go without a result (coding.task_timeout_min). */
  timeoutMs: number;
  /** Sends in all (coding.max_attempts). Default 1. */
  maxAttempts?: number;
  logger: Logger;
  /** Each progress event, in `seq` order, once. */
  onEvent?: (event: CodingStreamEvent) => void;
  /** Each send of the task, numbered from 1. */
  onAttempt?: (attempt: number) => void;
  signal?: AbortSignal;
}

/** A task without its callback (the client sets it from the subjects). */
export type CodingTaskInput = Omit<CodingTask, 'callback' | 'timeout'>;

/**
 * Sends `task` and resolves with its result. No result within `timeoutMs` after the last send
 * (and no send left): a `timeout` result Junction writes itself; an abort: `cancelled`.
 */
export async function sendCodingTask(
  connection: NatsConnection,
  input: CodingTaskInput,
  options: SendTaskOptions,
): Promise<CodingResult> {
  const { subjects, logger } = options;
  const streamSubject = `${subjects.stream}.${input.taskID}`;
  const resultSubject = `${subjects.result}.${input.taskID}`;
  const task: CodingTask = {
    ...input,
    timeout: options.timeoutMs,
    callback: { streamSubject, resultSubject },
  };
  const log = logger.child({ coding_task: input.taskID });
  // A backend numbers the events of each send from 1 (a send again starts over).
  let next = 1;
  const early = new Map<number, CodingStreamEvent>();
  const deliver = (event: CodingStreamEvent): void => {
    if (event.seq < next || early.has(event.seq)) return; // a repeat
    early.set(event.seq, event);
    // Out of order: later events wait for a missing one, but not forever (one may be lost).
    if (!early.has(next) && early.size > 32) next = Math.min(...early.keys());
    while (early.has(next)) {
      const due = early.get(next)!;
      early.delete(next);
      next += 1;
      options.onEvent?.(due);
    }
  };
  const flush = (): void => {
    for (const seq of [...early.keys()].sort((a, b) => a - b)) options.onEvent?.(early.get(seq)!);
    early.clear();
  };

  const subs: Subscription[] = [];
  try {
    const streamSub = connection.subscribe(streamSubject);
    const resultSub = connection.subscribe(resultSubject, { max: 1_000 });
    subs.push(streamSub, resultSub);
    void (async () => {
      for await (const message of streamSub) {
        let data: unknown;
        try {
          data = message.json();
        } catch {
          log.warn('a coding stream message that is not JSON was dropped');
          continue;
        }
        const parsed = parseStreamEvent(data, input.taskID);
        if (parsed.ok) deliver(parsed.event);
        else log.warn('a coding stream message was dropped', { reason: parsed.reason });
      }
    })();
    const result = new Promise<CodingResult>((resolve) => {
      void (async () => {
        for await (const message of resultSub) {
          let data: unknown;
          try {
            data = message.json();
          } catch {
            log.warn('a coding result that is not JSON was dropped');
            continue;
          }
          const parsed = parseResult(data, input.taskID);
          if (parsed.ok) {
            resolve(parsed.result);
            return;
          }
          log.warn('a coding result was dropped', { reason: parsed.reason });
        }
      })();
    });
    await connection.flush();

    const attempts = Math.max(1, options.maxAttempts ?? 1);
    for (let attempt = 1; ; attempt++) {
      if (attempt > 1) {
        flush();
        next = 1;
      }
      options.onAttempt?.(attempt);
      connection.publish(subjects.task, JSON.stringify(task));
      log.info('coding task sent', { attempt, subject: subjects.task });
      let timer: NodeJS.Timeout | undefined;
      let onAbort: (() => void) | undefined;
      const outcome = await Promise.race([
        result.then((r) => ({ kind: 'result' as const, result: r })),
        new Promise<{ kind: 'timeout' }>((resolve) => {
          timer = setTimeout(() => resolve({ kind: 'timeout' }), options.timeoutMs);
        }),
        new Promise<{ kind: 'aborted' }>((resolve) => {
          onAbort = () => resolve({ kind: 'aborted' });
          if (options.signal?.aborted) onAbort();
          else options.signal?.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
      clearTimeout(timer);
      if (onAbort) options.signal?.removeEventListener('abort', onAbort);
      if (outcome.kind === 'result') {
        await connection.flush().catch(() => undefined);
        flush();
        return outcome.result;
      }
      if (outcome.kind === 'aborted' || attempt >= attempts) {
        flush();
        const status = outcome.kind === 'aborted' ? 'cancelled' : 'timeout';
        return {
          taskID: input.taskID,
          status,
          error:
            status === 'cancelled'
              ? 'The coding task was cancelled.'
              : `No result from the coding backend within ${Math.round(options.timeoutMs / 1000)} s after ${attempts} ${attempts === 1 ? 'send' : 'sends'}; check that it runs and listens on ${subjects.task}.`,
          session: { name: input.session.name, opencodeID: '', messageCount: 0 },
          workspace: { name: input.workspace.name, path: '' },
          metrics: { duration: 0, toolCalls: 0 },
        };
      }
      log.warn('no coding result in time; sending the task again', {
        attempt,
        of: attempts,
      });
    }
  } finally {
    for (const sub of subs) sub.unsubscribe();
  }
}
