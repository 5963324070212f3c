// Start-up opens things one after another (the store, the runtime, listeners); when a later step
// fails, what was opened must be closed again, or a port or a database handle stays held.
import type { Logger } from '@junction/telemetry';

/** Registers how to close something start-up just opened. */
export type OnRollback = (close: () => Promise<unknown>) => void;

/**
 * Runs `steps`; if they throw, logs "start-up failed" with the error's code and message, closes
 * what they registered newest first (a close that fails is ignored), and rethrows.
 */
export async function startWithRollback<T>(
  logger: Pick<Logger, 'error'>,
  steps: (onRollback: OnRollback) => Promise<T>,
): Promise<T> {
  const undo: Array<() => Promise<unknown>> = [];
  try {
    return await steps((close) => undo.unshift(close));
  } catch (err) {
    logger.error('start-up failed', {
      code: (err as { code?: unknown } | undefined)?.code,
      error: err instanceof Error ? err.message : String(err),
    });
    for (const close of undo) await close().catch(() => undefined);
    throw err;
  }
}
