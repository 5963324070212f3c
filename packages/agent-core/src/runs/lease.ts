import type { RecoveryPolicy } from '@junction/store';

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
