// Idempotency-Key on POST /execute: a repeat within the window returns the run the first
// request started instead of starting another. The key lives on the run row (unique column),
// so every process sharing the store sees it; an expired key is released from its old run
// (only while that run still holds it) and may then start a new one.
import type { AgentRef, Run, Store } from '@junction/store';
import { WebhookError } from './errors.js';

/** How long a key keeps returning the same run: 24 hours. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Longest accepted Idempotency-Key. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

// Keys of this surface are stored with a prefix so another surface's keys never collide with them.
const NAMESPACE = 'webhook:';

/** The Idempotency-Key header, checked and namespaced for the store; undefined when absent. */
export function storedIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const key = header.trim();
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw new WebhookError(
      'IDEMPOTENCY_KEY_INVALID',
      `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters without spaces (a UUID works well).`,
      { field: 'Idempotency-Key' },
    );
  }
  return `${NAMESPACE}${key}`;
}

/** What a repeat must match to count as the same request. */
export interface IdempotentRequest {
  agent: AgentRef;
  task: string;
  variables: Record<string, string>;
}

function sameVariables(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => b[k] === a[k]);
}

/** IDEMPOTENCY_KEY_REUSED unless `run` was started by the same request. */
export function assertSameRequest(run: Run, request: IdempotentRequest): void {
  const same =
    run.agentId === request.agent.id &&
    run.task === request.task &&
    sameVariables(run.variables, request.variables);
  if (!same) {
    throw new WebhookError(
      'IDEMPOTENCY_KEY_REUSED',
      `This Idempotency-Key already started run ${run.id} with a different agent, task or variables. Use a new key for a new request.`,
      { run_id: run.id },
    );
  }
}

/** True while `run` is within the idempotency window at `now`. */
export function withinWindow(run: Run, now: Date): boolean {
  return now.getTime() - run.queuedAt.getTime() < IDEMPOTENCY_WINDOW_MS;
}

/**
 * The run a key still points at, or undefined when the key is free (never used, or expired and
 * now released). Releasing is race-safe: it clears the key only on the run that holds it, so of
 * several callers seeing the same expired run each either frees it or finds it already freed.
 */
export async function findLiveRun(store: Store, key: string, now: Date): Promise<Run | undefined> {
  const existing = await store.runs.findByIdempotencyKey(key);
  if (!existing) return undefined;
  if (withinWindow(existing, now)) return existing;
  await store.runs.releaseIdempotencyKey(existing.id, key);
  return undefined;
}
