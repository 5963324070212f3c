import type { RecoveryPolicy, Store } from '@junction/store';

/** How long a worker's claim on a run holds without renewal; renewed every third of it. */
export const DEFAULT_LEASE_MS = 60_000;

/** Attempts a run gets when `runs.max_attempts` does not say (see recoveryPolicy). */
export const DEFAULT_MAX_ATTEMPTS = 3;

/**
 * The rule for runs whose process stopped under them (a crash, a lost lease): each goes back to
 * the queue and is resumed from its journal, until it has used `maxAttempts` attempts. A
 * sub-agent's run too: it resumes on its own, and its parent's resumed attempt waits for it.
 */
export function recoveryPolicy(maxAttempts: number = DEFAULT_MAX_ATTEMPTS): RecoveryPolicy {
  return {
    maxAttempts,
    exhausted: `interrupted: it used all {attempts} of its attempts (runs.max_attempts is ${maxAttempts}; each ended with its process stopped, its lease lost or a graceful hand-over) without finishing, so it was not resumed again. \`junction runs inspect\` shows its attempts; run it again once the cause is fixed.`,
  };
}

/** What the error of a cancelled run says. */
export const CANCELLED_MESSAGE = 'Run cancelled.';

/**
 * Abort reason of a run someone asked to stop (`AgentRunner.cancel`): its model call stops, a
 * tool call in flight does not (run-tools lets it return).
 */
export class RunCancelled extends Error {
  constructor(message = 'the run was cancelled') {
    super(message);
    this.name = 'RunCancelled';
  }
}

/**
 * Abort reason meaning "stop, but put the run back in the queue" (a graceful stop): a tool call
 * under way returns first, and the run is resumed from its journal by another attempt.
 */
export class RunInterrupted extends Error {
  constructor(message = 'the worker is shutting down') {
    super(message);
    this.name = 'RunInterrupted';
  }
}

/** Abort reason of a run whose lease this worker no longer holds. */
export class LeaseLost extends Error {
  readonly runId: number;
  constructor(runId: number, workerId: string) {
    super(
      `worker ${workerId} no longer holds run ${runId}; another worker or recovery took it over`,
    );
    this.name = 'LeaseLost';
    this.runId = runId;
  }
}

/**
 * Keeps `workerId`'s lease on a run while it executes: renewed every third of the lease (at
 * least every second); `halt` is aborted with LeaseLost once a renewal is refused (the run
 * stalled past its lease and another worker took it over, or recovery failed it). Returns how
 * to stop renewing.
 */
export function holdLease(
  store: Pick<Store, 'runs'>,
  run: { id: number },
  workerId: string,
  leaseMs: number,
  halt: AbortController,
): () => void {
  const renew = setInterval(
    () => {
      void store.runs.renewLease(run.id, workerId, leaseMs).then(
        (held) => {
          if (!held) halt.abort(new LeaseLost(run.id, workerId));
        },
        () => undefined,
      );
    },
    Math.max(1000, leaseMs / 3),
  );
  renew.unref();
  return () => clearInterval(renew);
}
