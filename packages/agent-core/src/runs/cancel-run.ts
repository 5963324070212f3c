// Cancelling a run, for every surface (CLI, REST, MCP, the workflow engine): one rule for what
// a cancel does, whichever process executes the run.
import { isStoreError, type Run, type Store } from '@junction/store';
import { AgentCoreError } from '../errors.js';
import type { RunEndings } from './dispatch.js';
import { CANCELLED_MESSAGE } from './lease.js';
import type { RunBus } from './run-bus.js';
import { isFinal } from './run-workers.js';
import { runNotFound, waitForRun } from './submit-run.js';

/** Runs of this process that can be told at once (RunWorkers). */
export interface RunCanceller {
  cancelLocal(runId: number): boolean;
}

export interface CancelRunOptions {
  /** Who asks (an API key's name, a user); recorded in the audit log. */
  actor?: string;
  /** The surface asking: `cli`, `api`, `mcp`, `workflow`. Default `api`. */
  source?: string;
  /** How long to wait for a running run to end before answering. Default 5000 ms. */
  waitMs?: number;
}

/** What a cancel answers. */
export interface CancelledRun {
  /** The run: `cancelled` once it ended, else still `running` with `cancelRequestedAt` set. */
  run: Run;
  /** False when its worker has not ended it yet (it will, at its next look). */
  ended: boolean;
}

export interface CancelRunDeps {
  store: Store;
  canceller?: RunCanceller;
  endings?: RunEndings;
  /** Tells the host executing the run at once, when it is another one. */
  bus?: RunBus;
}

/**
 * Cancels a run. A queued run ends `cancelled` at once. A running one is marked in the store
 * and, when it executes in this process, stopped at once; otherwise its host hears it over the
 * bus at once, or sees the mark within about a second (RunWorkers' cancelPollMs). Either way its model call stops, a tool
 * call in flight returns first, and it ends `cancelled`. Waits up to `waitMs` for that end.
 * RUN_NOT_FOUND for an unknown id; RUN_ENDED (details.status) for a run that already ended.
 */
export async function cancelRun(
  deps: CancelRunDeps,
  runId: number,
  options: CancelRunOptions = {},
): Promise<CancelledRun> {
  const { store } = deps;
  const audit = (outcome: 'success' | 'error', details: Record<string, unknown>): void => {
    void store.auditLog
      .record({
        actor: options.actor ?? null,
        source: options.source ?? 'api',
        action: 'cancel_run',
        arguments: { run_id: runId },
        outcome,
        details,
      })
      .catch(() => undefined);
  };
  let asked: { run: Run; ended: boolean };
  try {
    asked = await store.runs.requestCancel(runId, CANCELLED_MESSAGE);
  } catch (err) {
    if (isStoreError(err, 'NOT_FOUND')) {
      throw runNotFound(runId);
    }
    if (isStoreError(err, 'CONFLICT')) {
      const status = (err.details as { status?: string } | undefined)?.status ?? 'ended';
      audit('error', { reason: 'already ended', status });
      throw new AgentCoreError(
        'RUN_ENDED',
        `Run ${runId} already ended ${status}; only a queued or running run can be cancelled.`,
        { run_id: runId, status },
      );
    }
    throw err;
  }
  audit('success', { was: asked.ended ? 'queued' : 'running' });
  if (asked.ended) {
    deps.bus?.publishState({ runId, status: asked.run.status });
    return asked;
  }
  if (!deps.canceller?.cancelLocal(runId)) deps.bus?.requestCancel(runId);
  const run = await waitForRun(
    store,
    runId,
    { timeoutMs: options.waitMs ?? 5000, pollMs: 100, keepAlive: true },
    deps.endings,
  );
  return { run, ended: isFinal(run) };
}
