// Trying again after an `unavailable` failure: the one backoff of every retry loop (the store
// waiting out a locked file, a run waiting for its store, the management channel's reconnects,
// the embedded nats-server's restarts, the model retries a run reports).

/** How the waits between tries grow. */
export interface Backoff {
  /** The wait before the first retry. */
  firstMs: number;
  /** No wait is longer. */
  maxMs: number;
  /** The share of each wait taken off at random, 0–1 (0.5: 50–100% of it). Default 0. */
  jitter?: number;
  /** A number in [0, 1); injectable for tests. Default Math.random. */
  random?: () => number;
}

/** The wait before retry `attempt` (0 for the first): `firstMs` doubled per retry, capped. */
export function backoffDelay(attempt: number, backoff: Backoff): number {
  const { firstMs, maxMs, jitter = 0 } = backoff;
  const capped = Math.min(maxMs, firstMs * 2 ** Math.min(attempt, 30));
  if (jitter === 0) return capped;
  return Math.round(capped * (1 - jitter + (backoff.random ?? Math.random)() * jitter));
}

/** What `retryWithBackoff` tries again, for how long, and what stops it. */
export interface RetryOptions extends Backoff {
  /** Whether a failure is tried again; any other is thrown as it is. */
  retryable: (err: unknown) => boolean;
  /** How long to keep trying from the first failure; then the last failure is thrown. */
  forMs: number;
  /** Stops the waiting: the failure it interrupted is thrown. */
  signal?: AbortSignal;
  /** Told once, at the first failure that will be tried again. */
  onFirstFailure?: (err: unknown) => void;
  /** The clock; injectable for tests. Default Date.now. */
  now?: () => number;
}

/**
 * Runs `call`, and again after each retryable failure with the backoff's waits, for `forMs` from
 * the first failure. A failure that is not retryable, or that comes when the time is up or the
 * signal has fired, is thrown as it is.
 */
export async function retryWithBackoff<T>(
  call: () => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const now = options.now ?? Date.now;
  let giveUpAt: number | undefined;
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await call();
    } catch (err) {
      if (!options.retryable(err) || options.signal?.aborted) throw err;
      if (giveUpAt === undefined) {
        giveUpAt = now() + options.forMs;
        options.onFirstFailure?.(err);
      }
      const left = giveUpAt - now();
      if (left <= 0) throw err;
      await pause(Math.min(backoffDelay(attempt, options), left), options.signal);
      if (options.signal?.aborted) throw err;
    }
  }
}

/** Resolves after `ms`, or at once when `signal` fires. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
