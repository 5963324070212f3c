// Idempotency-Key on POST /execute: a repeat within the window returns the run the first
// request started instead of starting another. The rule itself (window, namespace, replay)
// is the run door's (agent-core submitRun); this reads and checks the header.
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '@junction/agent-core/runs';
import { WebhookError } from './errors.js';

/** The Idempotency-Key header, checked; undefined when absent. */
export function idempotencyKeyOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const key = header.trim();
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw new WebhookError(
      'IDEMPOTENCY_KEY_INVALID',
      `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters without spaces (a UUID works well).`,
      { field: 'Idempotency-Key' },
    );
  }
  return key;
}
