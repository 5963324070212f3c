// Everything a surface does with workflows, bound to one process's store, workers and public
// address: the CLI, REST, MCP and the webhook port all take a WorkflowDoor, so they start,
// decide, cancel and follow workflow runs the same way.
import type { Approval, RunReader, Store, WorkflowRun, WorkflowStep } from '@junction/store';
import { isStoreError, WORKFLOW_RUN_ENDED } from '@junction/store';
import {
  approvalLinks,
  approvalSigningKey,
  approvalToken,
  decideApproval,
  verifyApprovalToken,
  type DecisionInput,
} from './approvals.js';
import { WorkflowError } from './errors.js';
import {
  startWorkflowRun,
  type StartWorkflowRequest,
  type StartWorkflowStore,
} from './start-run.js';
import type { RandomBytes, WorkflowReservation } from './workflow-workers.js';
import type { Tracer } from '@junction/telemetry';

export interface WorkflowDoor {
  start(request: StartWorkflowRequest): Promise<{ run: WorkflowRun; replayed: boolean }>;
  /** The run, or WORKFLOW_RUN_NOT_FOUND. */
  get(runId: number): Promise<WorkflowRun>;
  /** The run with its step attempts, in the order they began. */
  inspect(
    runId: number,
  ): Promise<{ run: WorkflowRun; steps: WorkflowStep[]; approvals: Approval[] }>;
  /**
   * Cancels a run that has not ended (WORKFLOW_RUN_ENDED otherwise), withdraws its pending
   * approvals (deciding one then answers APPROVAL_WITHDRAWN), and cancels the agent runs it
   * started that have not ended (they stop as any cancelled run does).
   */
  cancel(runId: number, options?: { actor?: string; source?: string }): Promise<WorkflowRun>;
  decide(approvalId: string, input: DecisionInput): Promise<Approval>;
  /** The signed view/approve/reject URLs of an approval on the webhook port. */
  links(approvalId: string): Promise<{ view_url: string; approve_url: string; reject_url: string }>;
  /** True when `token` is the signed token of exactly this approval. */
  verifyToken(approvalId: string, token: string): Promise<boolean>;
  /**
   * Resolves with the run once it has ended or waits for a person, or with its current state
   * at `timeoutMs`; `onStep` hears of each step attempt as it begins and ends.
   */
  follow(
    runId: number,
    options: {
      timeoutMs: number;
      signal?: AbortSignal;
      onStep?: (step: WorkflowStep) => void;
      /**
       * The status of each step attempt `onStep` was told of: hand the same map to the next
       * `follow` of the run (after an approval wait) and it tells only what changed since.
       */
      seen?: Map<number, string>;
      pollMs?: number;
    },
  ): Promise<WorkflowRun>;
}

/**
 * What the workflow door reads and writes: workflow runs and what starting, inspecting and
 * deciding them use, and the approval links' key in the settings. Of agent runs it only finds the
 * ones a workflow run started that have not ended, to cancel them through `cancelRun`.
 */
export type WorkflowDoorStore = StartWorkflowStore &
  Pick<Store, 'workflowSteps' | 'approvals' | 'auditLog' | 'settings'> & {
    readonly runs: RunReader;
  };

export interface WorkflowDoorDeps {
  store: WorkflowDoorStore;
  /**
   * The address approval links point at: webhook.public_url, or the webhook port as this
   * process (or a running serve) listens on it; asked each time links are made.
   */
  publicUrl: string | (() => string);
  /** Told that a run is due (started, or an approval decided): wakes a worker of this process. */
  due?: () => void;
  /** An idle worker of this process to hand a run to as it is written. */
  reserve?: () => WorkflowReservation | undefined;
  /** Cancels an agent run (the run door's cancel); without it a cancel leaves them running. */
  cancelRun?: (
    runId: number,
    options: { actor?: string; source?: string; waitMs: number },
  ) => Promise<unknown>;
  now?: () => Date;
  /** Draws the ids of new runs' traces when there is no tracer (crypto's randomBytes by default). */
  random?: RandomBytes;
  /**
   * Records the root span (`workflow.start`) of a run started outside any trace; asked at each
   * start (a process's tracer may be made after its door).
   */
  tracer?: () => Tracer | undefined;
}

/** The tracer to start a run with, if the process has one now. */
function tracerOf(deps: WorkflowDoorDeps): { tracer?: Tracer } {
  const tracer = deps.tracer?.();
  return tracer ? { tracer } : {};
}

/** The workflow door: starts, inspects, cancels and decides workflow runs. */
export function createWorkflowDoor(deps: WorkflowDoorDeps): WorkflowDoor {
  const { store } = deps;
  let key: Promise<Buffer> | undefined;
  const signingKey = (): Promise<Buffer> => (key ??= approvalSigningKey(store));
  const get = async (runId: number): Promise<WorkflowRun> => {
    const run = await store.workflowRuns.get(runId);
    if (!run) {
      throw new WorkflowError(
        'WORKFLOW_RUN_NOT_FOUND',
        `No workflow run has id ${runId}; list them with \`junction workflow runs\`.`,
        { workflow_run_id: runId },
      );
    }
    return run;
  };
  return {
    start: (request) =>
      startWorkflowRun(
        {
          store,
          ...(deps.due ? { due: deps.due } : {}),
          ...(deps.reserve ? { reserve: deps.reserve } : {}),
          ...(deps.now ? { now: deps.now } : {}),
          ...(deps.random ? { random: deps.random } : {}),
          ...tracerOf(deps),
        },
        request,
      ),
    get,
    async inspect(runId) {
      const run = await get(runId);
      const [steps, approvals] = await Promise.all([
        store.workflowSteps.list(runId),
        store.approvals.list({ workflowRunId: runId, limit: 500 }),
      ]);
      return { run, steps, approvals };
    },
    async cancel(runId, options = {}) {
      await get(runId);
      try {
        const cancelled = await store.workflowRuns.cancel(runId);
        // Its agent runs still going stop too (found by their origin: a step's record may not
        // be written yet while its run goes). One that ended meanwhile is left as it ended.
        if (deps.cancelRun) {
          for (const id of await store.runs.activeIdsOfWorkflowRun(runId)) {
            await deps.cancelRun(id, { ...options, waitMs: 0 }).catch(() => undefined);
          }
        }
        return cancelled;
      } catch (err) {
        if (!isStoreError(err, 'CONFLICT')) throw err;
        const run = await get(runId);
        throw new WorkflowError(
          'WORKFLOW_RUN_ENDED',
          `Workflow run ${runId} already ended ${run.status}; only a run that has not ended can be cancelled.`,
          { workflow_run_id: runId, status: run.status },
        );
      }
    },
    decide: (approvalId, input) =>
      decideApproval(
        { store, ...(deps.due ? { due: deps.due } : {}), ...(deps.now ? { now: deps.now } : {}) },
        approvalId,
        input,
      ),
    async links(approvalId) {
      const { publicUrl } = deps;
      return approvalLinks(
        typeof publicUrl === 'string' ? publicUrl : publicUrl(),
        approvalId,
        approvalToken(await signingKey(), approvalId),
      );
    },
    async verifyToken(approvalId, token) {
      return verifyApprovalToken(await signingKey(), approvalId, token);
    },
    async follow(runId, options) {
      const until = Date.now() + options.timeoutMs;
      const seen = options.seen ?? new Map<number, string>();
      for (;;) {
        const run = await get(runId);
        if (options.onStep) {
          for (const step of await store.workflowSteps.list(runId)) {
            if (seen.get(step.id) !== step.status) {
              seen.set(step.id, step.status);
              options.onStep(step);
            }
          }
        }
        if (WORKFLOW_RUN_ENDED.includes(run.status) || run.status === 'waiting_approval')
          return run;
        if (Date.now() >= until || options.signal?.aborted) return run;
        await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 200));
      }
    },
  };
}
