// The one door for runs. Every caller — CLI, MCP call_agent, REST queue, POST /execute, workflow
// steps, the scheduler, the management platform and a sub-agent's call — starts a run here: one
// request schema, one rule for finding the agent, one model check, one idempotency rule. Nothing
// else writes a run row (`pnpm lint` refuses runs.create elsewhere).
import { isStoreError, type AgentRef, type Run, type RunOrigin, type Store } from '@junction/store';
import { activeTraceParent } from '@junction/telemetry';
import { findAgent } from '../agents/find-agent.js';
import { AgentCoreError } from '../errors.js';
import type { ModelCheck } from '../models/model-check.js';
import type { RunDispatch, RunEndings } from './dispatch.js';
import { parseRunRequest, type RunRequest, type RunRequestInput } from './run-request.js';
import { isFinal } from './run-workers.js';

/**
 * An idempotency key as it is stored: namespaced by the source that sent it, so keys of
 * different sources never collide. Workflow runs use the same rule for theirs.
 */
export function storedIdempotencyKey(source: string, key: string): string {
  return `${source}:${key}`;
}

/** RUN_NOT_FOUND for a run id no run has, saying where valid ids are. */
export function runNotFound(runId: number): AgentCoreError {
  return new AgentCoreError(
    'RUN_NOT_FOUND',
    `No run has id ${runId}. List runs with \`junction runs list\` (or list_runs) for valid ids.`,
    { run_id: runId },
  );
}

/** How long an idempotency key keeps returning the same run: 24 hours. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface SubmitRunDeps {
  store: Store;
  /** Throws the coded reason an agent's model cannot run (missing key, unknown provider). */
  checkModel: ModelCheck;
  /** Workers of this process that take a run as it is written; without them it waits in the store. */
  dispatch?: RunDispatch;
  /** Clock of the idempotency window. Default `() => new Date()`. */
  now?: () => Date;
}

/** How a run is written beyond its request. */
export interface SubmitOptions {
  /**
   * Written already claimed by this worker, which executes it itself (a sub-agent's run, by its
   * parent's worker): no other worker can take it, and no slot of `dispatch` is needed.
   */
  claimedBy?: { workerId: string; leaseMs: number };
  /**
   * What started it, kept on the run (a workflow run's step, a schedule, the management
   * platform's run): given by the callers that are those things, never taken from a request.
   */
  origin?: RunOrigin;
}

/** What `submitRun` answers. */
export interface SubmittedRun {
  /** The run as written (`queued`, or `running` when a worker here took it at once). */
  run: Run;
  agent: AgentRef;
  /** True when an idempotency key returned the run an earlier request started. */
  replayed: boolean;
  /** The request as checked. */
  request: RunRequest;
}

function sameVariables(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => b[k] === a[k]);
}

/** The earlier run of a key, if it was started by the same request; IDEMPOTENCY_KEY_REUSED otherwise. */
function replayOf(run: Run, agent: AgentRef, request: RunRequest): Run {
  const same =
    run.agentId === agent.id &&
    run.task === request.task &&
    sameVariables(run.variables, request.variables ?? {});
  if (!same) {
    throw new AgentCoreError(
      'IDEMPOTENCY_KEY_REUSED',
      `This idempotency key already started run ${run.id} with a different agent, task or variables. Use a new key for a new request.`,
      { run_id: run.id },
    );
  }
  return run;
}

/**
 * The run a key still points at, or undefined when the key is free (never used, or expired
 * and now released). Releasing clears the key only on the run that holds it, so of several
 * callers seeing the same expired run each either frees it or finds it already freed.
 */
async function liveRunOf(store: Store, key: string, now: Date): Promise<Run | undefined> {
  const existing = await store.runs.findByIdempotencyKey(key);
  if (!existing) return undefined;
  if (now.getTime() - existing.queuedAt.getTime() < IDEMPOTENCY_WINDOW_MS) return existing;
  await store.runs.releaseIdempotencyKey(existing.id, key);
  return undefined;
}

/**
 * Starts a run: checks the request, finds the agent, checks its model can run, and writes the
 * run (`queued`, or claimed by an idle worker here). Nothing is written when a check fails.
 * A repeat of an idempotency key within 24 hours answers the first run (`replayed`).
 *
 * A keyed request is written first and looked up only when its key is taken: the store
 * refuses a second run of a key (CONFLICT), so the common case — a new key — costs no read.
 */
export async function submitRun(
  deps: SubmitRunDeps,
  input: RunRequestInput,
  options: SubmitOptions = {},
): Promise<SubmittedRun> {
  const request = parseRunRequest(input);
  const { store } = deps;
  const agent = await findAgent(store, request);
  const key =
    request.idempotency_key === undefined
      ? undefined
      : storedIdempotencyKey(request.source, request.idempotency_key);
  const now = (): Date => (deps.now ?? (() => new Date()))();
  const traceParent = request.trace_parent ?? activeTraceParent();
  try {
    deps.checkModel(agent);
  } catch (err) {
    // A repeat answers its first run even when the model could not start a new one now.
    const live = key ? await liveRunOf(store, key, now()) : undefined;
    if (live) return { run: replayOf(live, agent, request), agent, replayed: true, request };
    throw err;
  }
  // Twice at most: a key held by a run past its window is freed, then written again.
  for (let attempt = 0; ; attempt++) {
    const reservation = options.claimedBy ? undefined : deps.dispatch?.reserve();
    const claim = options.claimedBy ?? reservation?.claim;
    let run: Run;
    try {
      run = await store.runs.create({
        agentId: agent.id,
        agentName: agent.name,
        environmentId: agent.environmentId,
        task: request.task,
        variables: request.variables ?? {},
        source: request.source,
        ...(request.parent_run_id !== undefined ? { parentRunId: request.parent_run_id } : {}),
        // The caller's span (a schedule's fire, a platform request, a parent run) is the run's
        // parent when the request names none, so the run's trace nests under what started it.
        ...(traceParent !== undefined ? { traceParent } : {}),
        ...(key !== undefined ? { idempotencyKey: key } : {}),
        ...(request.timeout_seconds !== undefined
          ? { timeoutMs: Math.round(request.timeout_seconds * 1000) }
          : {}),
        ...(claim ? { claimedBy: claim } : {}),
        ...(options.origin ? { origin: options.origin } : {}),
      });
    } catch (err) {
      reservation?.release();
      if (!key || !isStoreError(err, 'CONFLICT')) throw err;
      // The key is taken: by a run in its window (answer it), or an expired one (now freed).
      const live = await liveRunOf(store, key, now());
      if (live) return { run: replayOf(live, agent, request), agent, replayed: true, request };
      if (attempt > 0) throw err;
      continue;
    }
    if (reservation) run = await reservation.take(run);
    else if (!options.claimedBy) deps.dispatch?.queued(run);
    return { run, agent, replayed: false, request };
  }
}

export interface WaitOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** How often the store is asked about a run executed by another process. Default 250 ms. */
  pollMs?: number;
  /**
   * Keep the process alive while waiting (a CLI command whose only work is this wait). Default
   * false: a wait never holds a process that is otherwise done.
   */
  keepAlive?: boolean;
}

/**
 * Resolves with the run once it has ended, or with its current state (still queued or
 * running) when `timeoutMs` passes or `signal` aborts. Runs this process executes are seen as
 * they end (through `endings`); runs executed elsewhere, by polling the store.
 * RUN_NOT_FOUND when no run has this id.
 */
export async function waitForRun(
  store: Store,
  runId: number,
  options: WaitOptions,
  endings?: RunEndings,
): Promise<Run> {
  const first = await store.runs.get(runId);
  if (!first) {
    throw runNotFound(runId);
  }
  if (isFinal(first) || options.signal?.aborted || options.timeoutMs <= 0) return first;
  return new Promise<Run>((resolve) => {
    let settled = false;
    const finish = (run: Run): void => {
      if (settled) return;
      settled = true;
      clearInterval(poll);
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      unsubscribe?.();
      resolve(run);
    };
    const current = (): void => {
      void store.runs.get(runId).then(
        (run) => finish(run ?? first),
        () => finish(first),
      );
    };
    const onAbort = (): void => current();
    const unsubscribe = endings?.onEnd(runId, finish);
    const poll = setInterval(() => {
      void store.runs.get(runId).then(
        (run) => {
          if (run && isFinal(run)) finish(run);
        },
        () => undefined,
      );
    }, options.pollMs ?? 250);
    const timer = setTimeout(current, options.timeoutMs);
    if (!options.keepAlive) {
      poll.unref();
      timer.unref();
    }
    options.signal?.addEventListener('abort', onAbort, { once: true });
  });
}
