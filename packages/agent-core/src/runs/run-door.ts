// The one door for runs as surfaces hold it: submit (submit-run.ts), wait, and cancel
// (cancel-run.ts), bound to one process's store, model check and workers.
import type { Run } from '@junction/store';
import {
  cancelRun,
  type CancelledRun,
  type CancelRunOptions,
  type RunCanceller,
} from './cancel-run.js';
import type { RunEndings } from './dispatch.js';
import { followRun, type FollowOptions } from './follow-run.js';
import type { RunBus } from './run-bus.js';
import type { RunRequestInput } from './run-request.js';
import {
  submitRun,
  waitForRun,
  type SubmitOptions,
  type SubmitRunDeps,
  type SubmittedRun,
  type WaitOptions,
} from './submit-run.js';

/** The door as an object for surfaces: submit runs, wait for them, cancel them. */
export interface RunDoor {
  submit(input: RunRequestInput, options?: SubmitOptions): Promise<SubmittedRun>;
  waitFor(runId: number, options: WaitOptions): Promise<Run>;
  /** A run's events as they happen, from any host (see followRun); resolves with its end. */
  follow(runId: number, options: FollowOptions): Promise<Run>;
  cancel(runId: number, options?: CancelRunOptions): Promise<CancelledRun>;
}

/** Binds `submitRun`, `waitForRun` and `cancelRun` to one process's store, model check and workers. */
export function createRunDoor(
  deps: SubmitRunDeps & { endings?: RunEndings; canceller?: RunCanceller; bus?: RunBus },
): RunDoor {
  return {
    submit: (input, options) => submitRun(deps, input, options),
    waitFor: (runId, options) => waitForRun(deps.store, runId, options, deps.endings),
    follow: (runId, options) => followRun(deps, runId, options),
    cancel: (runId, options) => cancelRun(deps, runId, options),
  };
}
