import type { Run } from '@junction/store';

/** A worker set aside for a run about to be written: the run is created already claimed for it. */
export interface RunReservation {
  claim: { workerId: string; leaseMs: number };
  /** The run was written claimed: hand it to the worker. Answers the record to report. */
  take(run: Run): Promise<Run>;
  /** The write failed: the worker goes back to waiting. */
  release(): void;
}

/** How submitted runs reach workers of this process; without one they wait in the store. */
export interface RunDispatch {
  /** A worker that can take the next run at once, or undefined when none is idle. */
  reserve(): RunReservation | undefined;
  /** A run was written `queued` (not claimed): wake a worker to look for it. */
  queued(run: Run): void;
}

/** Callbacks of runs ending in this process, by run id (waiters of `waitFor`). */
export interface RunEndings {
  /** Calls `listener` when this process sees run `runId` end; returns the unsubscribe. */
  onEnd(runId: number, listener: (run: Run) => void): () => void;
}
