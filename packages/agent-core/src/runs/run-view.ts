// A run as the surfaces show it (CLI --json, REST): snake_case keys, ISO dates, `run_id` as
// in spec §2.2. One shape, built in one place.
import type { Run, RunEvent, RunSource, RunStatus, Store } from '@junction/store';
import { runDurationMs } from '@junction/store';
import { createPricing, type Pricing } from '../models/pricing.js';

/** The built-in list prices, for callers that have no config.yaml `pricing` to pass. */
const BUILT_IN_PRICING: Pricing = createPricing();

export interface RunView {
  run_id: number;
  agent_id: number | null;
  agent_name: string;
  environment_id: number | null;
  status: RunStatus;
  source: RunSource;
  parent_run_id: number | null;
  model: string | null;
  steps_taken: number;
  input_tokens: number;
  output_tokens: number;
  /** USD of the run's tokens at its model's price; null when the model has no known price. */
  cost_usd: number | null;
  duration_ms: number | null;
  task: string;
  final_response: string | null;
  error: string | null;
  trace_id: string | null;
  queued_at: string;
  started_at: string | null;
  completed_at: string | null;
  /** When someone asked it to stop (a running run ends `cancelled` soon after). */
  cancel_requested_at: string | null;
  /** Attempts started: 1 for a run that was never interrupted (0 while queued the first time). */
  attempt: number;
  /** What started it when that was not its caller alone (docs/runs.md); null for none. */
  origin: RunOriginView | null;
}

/**
 * Where a run came from: the workflow run and step, the schedule, or the management platform's
 * run that started it. A sub-agent's run says its parent in `parent_run_id` instead.
 */
export interface RunOriginView {
  workflow_run_id: number | null;
  workflow_step: string | null;
  schedule_id: number | null;
  platform_run_id: string | null;
}

/**
 * One attempt of a run (docs/runs.md): which worker ran it, from which step, and when and why it
 * ended when that was not the run's end (`process lost`, `lease lost`, `graceful stop`).
 */
export interface AttemptView {
  attempt: number;
  worker_id: string | null;
  started_at: string | null;
  /** The first step this attempt asked the model (the steps before came from the journal). */
  resumed_from_step: number | null;
  ended_at: string | null;
  end_reason: string | null;
}

/** A time as every surface shows it: ISO 8601, or null when there is none. */
export function isoOrNull(date: Date | null | undefined): string | null {
  return date ? date.toISOString() : null;
}

/** Shapes a run for output; `pricing` (config.yaml's, from createPricing) prices its tokens. */
export function runView(run: Run, pricing: Pricing = BUILT_IN_PRICING): RunView {
  return {
    run_id: run.id,
    agent_id: run.agentId,
    agent_name: run.agentName,
    environment_id: run.environmentId,
    status: run.status,
    source: run.source,
    parent_run_id: run.parentRunId,
    model: run.model,
    steps_taken: run.stepsTaken,
    input_tokens: run.inputTokens,
    output_tokens: run.outputTokens,
    cost_usd: pricing.costOf(run.model, run.inputTokens, run.outputTokens),
    duration_ms: runDurationMs(run),
    task: run.task,
    final_response: run.finalResponse,
    error: run.error,
    trace_id: run.traceId,
    queued_at: run.queuedAt.toISOString(),
    started_at: isoOrNull(run.startedAt),
    completed_at: isoOrNull(run.completedAt),
    cancel_requested_at: isoOrNull(run.cancelRequestedAt),
    attempt: run.attempt,
    origin: originView(run),
  };
}

function originView(run: Run): RunOriginView | null {
  const origin = {
    workflow_run_id: run.originWorkflowRunId,
    workflow_step: run.originWorkflowStep,
    schedule_id: run.originScheduleId,
    platform_run_id: run.originPlatformRunId,
  };
  return Object.values(origin).every((value) => value === null) ? null : origin;
}

/** The attempts of a run, from its `attempt_ended` and `resumed` events and the run itself. */
export function attemptViews(
  run: Run,
  ended: readonly RunEvent[],
  resumed: readonly RunEvent[],
): AttemptView[] {
  const views: AttemptView[] = [];
  const of = (events: readonly RunEvent[], n: number): RunEvent | undefined =>
    events.find((e) => (e.payload as { attempt?: unknown } | null)?.attempt === n);
  for (let n = 1; n <= run.attempt; n += 1) {
    const end = of(ended, n);
    const start = of(resumed, n);
    const endPayload = (end?.payload ?? {}) as Record<string, unknown>;
    const startPayload = (start?.payload ?? {}) as Record<string, unknown>;
    const last = n === run.attempt;
    views.push({
      attempt: n,
      worker_id:
        (startPayload.worker_id as string | undefined) ??
        (endPayload.worker_id as string | undefined) ??
        (last ? run.workerId : null),
      started_at: start
        ? start.createdAt.toISOString()
        : ((endPayload.started_at as string | undefined) ??
          (last ? isoOrNull(run.startedAt) : null)),
      resumed_from_step: (startPayload.from_step as number | undefined) ?? null,
      ended_at: end ? end.createdAt.toISOString() : last ? isoOrNull(run.completedAt) : null,
      end_reason: (endPayload.reason as string | undefined) ?? null,
    });
  }
  return views;
}

/** The attempts of a run, read from the store (two short reads of its events). */
export async function runAttempts(
  store: Pick<Store, 'runEvents'>,
  run: Run,
): Promise<AttemptView[]> {
  if (run.attempt <= 1) return attemptViews(run, [], []);
  const [ended, resumed] = await Promise.all([
    store.runEvents.list(run.id, { type: 'attempt_ended' }),
    store.runEvents.list(run.id, { type: 'resumed' }),
  ]);
  return attemptViews(run, ended, resumed);
}
