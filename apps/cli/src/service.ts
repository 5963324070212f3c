// The long-running service pieces shared by `junction serve` and `junction stdio`: the
// runtime (runner, pool, telemetry), the workers of the run queue, the alert notifier, and a
// clean, bounded stop.
import type { RunQueue, WorkerPool } from '@junction/agent-core';
import type { Notifier } from '@junction/webhooks';
import type { CliContext } from './context.js';
import type { Runtime } from './runtime.js';

export interface Service {
  runtime: Runtime;
  workers: WorkerPool;
  queue: RunQueue;
  notifier: Notifier;
  /** Recovers runs of dead workers and starts the workers. */
  start(): Promise<void>;
  /** Stops the workers (in-flight runs get `drainMs`, then go back to the queue), sends what is pending, closes the runtime. */
  stop(drainMs?: number): Promise<{ requeued: number }>;
}

/** Builds the runtime, the notifier and `workers.concurrency` workers (started by `start()`). */
export async function createService(
  ctx: CliContext,
  options: {
    logStream?: NodeJS.WritableStream;
    debug?: boolean;
    version: string;
    startedAt?: Date;
  },
): Promise<Service> {
  const core = await import('@junction/agent-core');
  const webhooks = await import('@junction/webhooks');
  const { createRuntime } = await import('./runtime.js');
  const { config } = ctx;
  const runtime = await createRuntime(ctx, {
    ...(options.logStream ? { logStream: options.logStream } : {}),
    ...(options.debug ? { level: 'debug' as const } : {}),
    version: options.version,
    ...(options.startedAt ? { startedAt: options.startedAt } : {}),
  });
  const notifier = webhooks.createNotifier({
    store: runtime.store,
    logger: runtime.logger,
    ...(config.notifications.webhook_url ? { url: config.notifications.webhook_url } : {}),
    events: config.notifications.webhook_events,
    version: options.version,
  });
  const workers = core.createWorkerPool({
    runtime,
    concurrency: config.workers.concurrency,
    onFinished: (run) => notifier.runFinished(run),
  });
  let stopped: Promise<{ requeued: number }> | undefined;
  return {
    runtime,
    workers,
    queue: workers.queue,
    notifier,
    start: () => workers.start(),
    stop(drainMs = 10_000): Promise<{ requeued: number }> {
      stopped ??= (async () => {
        const result = await workers.stop(drainMs);
        await notifier.close();
        await runtime.close();
        return result;
      })();
      return stopped;
    },
  };
}
