/** How long a worker's claim on a run holds without renewal; renewed every third of it. */
export const DEFAULT_LEASE_MS = 60_000;

/**
 * The rule for a run whose process stopped under it (a crash, or a graceful stop that ran out of
 * time): once it has started a tool call or a sub-agent it is ended with this reason, never run
 * again on its own, because those calls may already have had effects.
 */
export const RECOVERY_REASON =
  'interrupted: the process running it stopped before it finished. It was not retried automatically because its tool calls may already have had effects; run it again if needed.';

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
