// Keeps the spans table within its age and size: a prune at start and on every interval.
import type { Logger } from '@junction/telemetry';
import type { TraceStore } from './trace-store.js';

/** How often retention prunes by default: every 10 minutes. */
export const DEFAULT_RETENTION_INTERVAL_MS = 10 * 60 * 1000;

/** What retention keeps, and how often it looks. */
export interface TraceRetentionOptions {
  store: TraceStore;
  logger: Logger;
  /** Spans started longer ago than this are deleted. */
  retentionMs: number;
  /** Above this many bytes of spans, whole oldest traces are deleted; Infinity for no cap. */
  maxBytes: number;
  /** Default 10 minutes. */
  intervalMs?: number;
  /** The clock; injectable so tests are deterministic. */
  now?: () => Date;
}

/** A running retention: `runOnce` prunes now and answers how many spans went. */
export interface TraceRetention {
  stop(): void;
  runOnce(): Promise<number>;
}

function checkDuration(name: string, value: number, min: number): void {
  if (typeof value !== 'number' || Number.isNaN(value) || value < min) {
    throw new RangeError(`${name} must be a number of at least ${min}; got ${String(value)}.`);
  }
}

/**
 * Prunes `store.spans` now and every `intervalMs` (the timer never keeps the process alive):
 * spans older than `retentionMs`, then whole oldest traces over `maxBytes`. A prune that
 * deletes something is logged (info); one that fails is logged (warn) and tried again at
 * the next interval. Prunes never overlap: a call while one runs shares it.
 */
export function startTraceRetention(options: TraceRetentionOptions): TraceRetention {
  const { store, logger, retentionMs, maxBytes } = options;
  const intervalMs = options.intervalMs ?? DEFAULT_RETENTION_INTERVAL_MS;
  const now = options.now ?? ((): Date => new Date());
  checkDuration('retentionMs', retentionMs, 0);
  checkDuration('maxBytes', maxBytes, 0);
  checkDuration('intervalMs', intervalMs, 1);

  let running: Promise<number> | undefined;
  const prune = async (): Promise<number> => {
    const before = new Date(now().getTime() - retentionMs);
    const deleted = await store.spans.prune({ before, maxBytes });
    if (deleted > 0) {
      const kept = await store.spans.stats();
      logger.info('pruned trace spans', {
        deleted,
        kept: kept.spans,
        kept_bytes: kept.bytes,
        retention_ms: retentionMs,
        max_bytes: maxBytes,
      });
    }
    return deleted;
  };
  const runOnce = (): Promise<number> => {
    running ??= prune().finally(() => {
      running = undefined;
    });
    return running;
  };
  const tick = (): void => {
    runOnce().catch((err: unknown) => {
      logger.warn('pruning trace spans failed; trying again at the next interval', {
        error: err instanceof Error ? err.message : String(err),
      });
    });
  };

  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return {
    stop: () => clearInterval(timer),
    runOnce,
  };
}
