import { retryWithBackoff } from '@junction/errors';
import { isStoreError, storeCallUnsent } from '@junction/store';

/** How a run waits out a store outage (`whileStoreAway`). */
export interface StoreWait {
  /** How long to keep trying from the first failure. */
  forMs: number;
  /** Stops the waiting (the run was cancelled, timed out or lost its lease). */
  signal?: AbortSignal;
  /** Told once per call, at its first failure, that the call waits for the store. */
  onWait?: (err: unknown) => void;
  /**
   * The call is not idempotent (it inserts): tried again only when the store says it was never
   * sent. A call that reached a server that then went away may have been applied there.
   */
  onlyUnsent?: boolean;
  /** Injectable for tests. */
  now?: () => number;
}

/** The first pause after a failure; each next one doubles, up to MAX_PAUSE_MS. */
const FIRST_PAUSE_MS = 100;
const MAX_PAUSE_MS = 2000;

/**
 * The part of a run's lease a store call may wait out: a worker renews its lease every third of
 * it, so when a call first fails the claim still holds for at least two thirds of the lease.
 */
export function storeWaitOf(leaseMs: number, options: Omit<StoreWait, 'forMs'> = {}): StoreWait {
  return { ...options, forMs: Math.floor((leaseMs * 2) / 3) };
}

/**
 * Runs `call`, and again with backoff while it fails because the store is unavailable (a
 * database server away or frozen: STORE_UNAVAILABLE) or stayed locked (STORE_BUSY), for
 * `wait.forMs` from the first failure:
 * an outage shorter than a run's lease costs the run only the wait (docs/deploy.md). Any other
 * failure, or the last one, is thrown as it is; so is one of a call that may have been applied
 * when `onlyUnsent` says repeating it would apply it twice.
 */
export async function whileStoreAway<T>(call: () => Promise<T>, wait: StoreWait): Promise<T> {
  return retryWithBackoff(call, {
    firstMs: FIRST_PAUSE_MS,
    maxMs: MAX_PAUSE_MS,
    forMs: wait.forMs,
    // Locked past the busy timeout (a loaded server, another process's long write): refused,
    // so nothing was written and it is tried again like an outage.
    retryable: (err) =>
      isStoreError(err, 'STORE_BUSY') ||
      (isStoreError(err, 'STORE_UNAVAILABLE') && (!wait.onlyUnsent || storeCallUnsent(err))),
    ...(wait.signal ? { signal: wait.signal } : {}),
    ...(wait.onWait ? { onFirstFailure: wait.onWait } : {}),
    ...(wait.now ? { now: wait.now } : {}),
  });
}
