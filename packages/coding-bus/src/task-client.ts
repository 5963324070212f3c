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
  const events = new EventsInOrder((event) => options.onEvent?.(event));

  const subs: Subscription[] = [];
  try {
    const streamSub = connection.subscribe(streamSubject);
    const resultSub = connection.subscribe(resultSubject, { max: 1_000 });
    subs.push(streamSub, resultSub);
    followStream(streamSub, input.taskID, log, events);
    const result = firstResult(resultSub, input.taskID, log);
    await connection.flush();

    const attempts = Math.max(1, options.maxAttempts ?? 1);
    for (let attempt = 1; ; attempt++) {
      if (attempt > 1) events.restart();
      options.onAttempt?.(attempt);
      connection.publish(subjects.task, JSON.stringify(task));
      log.info('coding task sent', { attempt, subject: subjects.task });
      const outcome = await resultWithin(result, options.timeoutMs, options.signal);
      if (outcome.kind === 'result') {
        await connection.flush().catch(() => undefined);
        events.flush();
        return outcome.result;
      }
      if (outcome.kind === 'aborted' || attempt >= attempts) {
        events.flush();
        const status = outcome.kind === 'aborted' ? 'cancelled' : 'timeout';
        return unanswered(input, status, options, attempts);
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

/** Hands progress events on in `seq` order, each once. */
class EventsInOrder {
  // A backend numbers the events of each send from 1 (a send again starts over).
  #next = 1;
  readonly #early = new Map<number, CodingStreamEvent>();
  readonly #hand: (event: CodingStreamEvent) => void;

  constructor(hand: (event: CodingStreamEvent) => void) {
    this.#hand = hand;
  }

  /** Takes one event: hands it on once it is due, with any later ones that waited for it. */
  deliver(event: CodingStreamEvent): void {
    if (event.seq < this.#next || this.#early.has(event.seq)) return; // a repeat
    this.#early.set(event.seq, event);
    // Out of order: later events wait for a missing one, but not forever (one may be lost).
    if (!this.#early.has(this.#next) && this.#early.size > 32)
      this.#next = Math.min(...this.#early.keys());
    while (this.#early.has(this.#next)) {
      const due = this.#early.get(this.#next)!;
      this.#early.delete(this.#next);
      this.#next += 1;
      this.#hand(due);
    }
  }

  /** Hands on every event still waiting, in `seq` order. */
  flush(): void {
    for (const seq of [...this.#early.keys()].sort((a, b) => a - b))
      this.#hand(this.#early.get(seq)!);
    this.#early.clear();
  }

  /** Before the task is sent again: what waits is handed on, and numbering starts over. */
  restart(): void {
    this.flush();
    this.#next = 1;
  }
}

/** The JSON of each message of `sub` until it is unsubscribed; one that is not JSON is logged and dropped. */
async function* jsonOf(sub: Subscription, what: string, log: Logger): AsyncGenerator<unknown> {
  for await (const message of sub) {
    try {
      yield message.json();
    } catch {
      log.warn(`a coding ${what} that is not JSON was dropped`);
    }
  }
}

/** Reads the task's stream subject until it is unsubscribed; bad messages are logged and dropped. */
function followStream(sub: Subscription, taskID: string, log: Logger, events: EventsInOrder): void {
  void (async () => {
    for await (const data of jsonOf(sub, 'stream message', log)) {
      const parsed = parseStreamEvent(data, taskID);
      if (parsed.ok) events.deliver(parsed.event);
      else log.warn('a coding stream message was dropped', { reason: parsed.reason });
    }
  })();
}

/** The first valid result on the task's result subject (never settles when none comes). */
function firstResult(sub: Subscription, taskID: string, log: Logger): Promise<CodingResult> {
  return new Promise<CodingResult>((resolve) => {
    void (async () => {
      for await (const data of jsonOf(sub, 'result', log)) {
        const parsed = parseResult(data, taskID);
        if (parsed.ok) {
          resolve(parsed.result);
          return;
        }
        log.warn('a coding result was dropped', { reason: parsed.reason });
      }
    })();
  });
}

/** How one send ended. */
type SendOutcome =
  | { kind: 'result'; result: CodingResult }
  | { kind: 'timeout' }
  | { kind: 'aborted' };

/** Waits for `result`, at most `timeoutMs` and not past an abort; leaves no timer or listener. */
async function resultWithin(
  result: Promise<CodingResult>,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<SendOutcome> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const outcome = await Promise.race([
    result.then((r) => ({ kind: 'result' as const, result: r })),
    new Promise<{ kind: 'timeout' }>((resolve) => {
      timer = setTimeout(() => resolve({ kind: 'timeout' }), timeoutMs);
    }),
    new Promise<{ kind: 'aborted' }>((resolve) => {
      onAbort = () => resolve({ kind: 'aborted' });
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    }),
  ]);
  clearTimeout(timer);
  if (onAbort) signal?.removeEventListener('abort', onAbort);
  return outcome;
}

/** The result Junction writes itself when none came: the task was cancelled or timed out. */
function unanswered(
  input: CodingTaskInput,
  status: 'cancelled' | 'timeout',
  options: SendTaskOptions,
  attempts: number,
): CodingResult {
  return {
    taskID: input.taskID,
    status,
    error:
      status === 'cancelled'
        ? 'The coding task was cancelled.'
        : `No result from the coding backend within ${Math.round(options.timeoutMs / 1000)} s after ${attempts} ${attempts === 1 ? 'send' : 'sends'}; check that it runs and listens on ${options.subjects.task}.`,
    session: { name: input.session.name, opencodeID: '', messageCount: 0 },
    workspace: { name: input.workspace.name, path: '' },
    metrics: { duration: 0, toolCalls: 0 },
  };
}
