// Where a run starts (submit-run.ts, the one door), how it is worked (run-workers.ts) and
// executed (agent-runner.ts: the lease and span; run-attempt.ts: one attempt's model loop), and
// how a run looks on every surface (run-view.ts).
export { createRunDoor } from './run-door.js';
export type { RunDoor } from './run-door.js';
export { IDEMPOTENCY_WINDOW_MS, storedIdempotencyKey, submitRun } from './submit-run.js';
export type { SubmitOptions, SubmitRunDeps, SubmittedRun, WaitOptions } from './submit-run.js';
export {
  MAX_IDEMPOTENCY_KEY_LENGTH,
  refusingReservedKeys,
  runRequestFields,
  runRequestSchema,
} from './run-request.js';
export type { RunRequest, RunRequestInput } from './run-request.js';
export type { RunDispatch, RunEndings, RunReservation } from './dispatch.js';
export { cancelRun } from './cancel-run.js';
export type { CancelledRun, CancelRunDeps, CancelRunOptions, RunCanceller } from './cancel-run.js';
export {
  announceQueued,
  deadOnThisHost,
  isFinal,
  newWorkerId,
  processAlive,
  RunWorkers,
} from './run-workers.js';
export { AnnouncementTaker } from './run-bus.js';
export type { Announcement, RunBus, RunStateMessage, WorkKind } from './run-bus.js';
export { followRun } from './follow-run.js';
export type { FollowedEvent, FollowOptions } from './follow-run.js';
export type { RecoveryReport, RunExecutor, RunWorkersOptions } from './run-workers.js';
export { DEFAULT_LEASE_MS } from './lease.js';
export { AgentRunner } from './agent-runner.js';
export type {
  AgentRunnerDeps,
  ExecuteOptions,
  RunProgressEvent,
  RunToolContext,
  RunToolProvider,
} from './agent-runner.js';
export type { LocalTool } from './run-tools.js';
export { attemptViews, isoOrNull, runAttempts, runView } from './run-view.js';
export { exportedTask } from './task-redaction.js';
export { summarizeEvent } from './event-summary.js';
export type { AttemptView, RunOriginView, RunView } from './run-view.js';
// The run view's `cost_usd` comes from these; surfaces build theirs from config.yaml's `pricing`.
export { createPricing } from '../models/pricing.js';
export type { ModelPrice, ModelRate, Pricing } from '../models/pricing.js';
