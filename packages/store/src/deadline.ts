import { storeDeadlineError, type StoreError } from './store-error.js';

/**
 * Default wait for a database server's answer before a call fails with STORE_UNAVAILABLE: twice
 * the busy timeout (a server waits for its own locks), well inside a run's 60 s lease.
 */
export const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * How long a store call may wait for the database before it fails as STORE_UNAVAILABLE: a
 * server that is frozen or cut off (no refusal, no answer) would otherwise hold every request
 * and every queued write behind it for good. Counted from the call, so the time a write waits
 * in the write queue counts too.
 */
export class Deadline {
  readonly #at: number;
  readonly #now: () => number;
  readonly #operation: string;
  readonly #timeoutMs: number;

  constructor(operation: string, timeoutMs: number, now: () => number = Date.now) {
    this.#now = now;
    this.#at = now() + timeoutMs;
    this.#operation = operation;
    this.#timeoutMs = timeoutMs;
  }

  /** What `work` answers, or STORE_UNAVAILABLE if it has not answered by the deadline. */
  race<T>(work: PromiseLike<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(this.#error(true)), Math.max(0, this.#at - this.#now()));
      timer.unref();
    });
    // Subscribed to once: a drizzle query is a lazy thenable that runs again on every then().
    const once = Promise.resolve(work);
    // The work may still settle after the deadline: its failure then is nobody's to handle.
    once.catch(() => undefined);
    return Promise.race([once, late]).finally(() => clearTimeout(timer));
  }

  /** Runs `task` unless the deadline has passed (a write that waited too long is not sent). */
  run<T>(task: () => PromiseLike<T>): Promise<T> {
    if (this.#now() >= this.#at) return Promise.reject(this.#error(false));
    return this.race(task());
  }

  #error(sent: boolean): StoreError {
    return storeDeadlineError(this.#operation, this.#timeoutMs, sent);
  }
}
