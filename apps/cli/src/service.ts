// The long-running service pieces shared by `junction serve` and `junction stdio`: the
// runtime (runner, pool, telemetry), the run queue's workers, and a clean, bounded stop.
import type { RunQueue } from '@junction/agent-core';
import type { Agent } from '@junction/store';
import type { CliContext } from './context.js';
import type { Runtime } from './runtime.js';

export interface Service {
  runtime: Runtime;
  queue: RunQueue;
  /** Recovers runs of dead workers and starts the workers. */
  start(): Promise<void>;
  /** Throws the model's configuration error (missing key, unknown provider) before a run is queued. */
  checkAgent(agent: Agent): void;
  /** Stops the workers (in-flight runs get `drainMs`, then go back to the queue) and the runtime. */
  stop(drainMs?: number): Promise<{ requeued: number }>;
}

/** Builds the runtime and a queue of `workers.concurrency` workers (started by `start()`). */
export async function createService(
  ctx: CliContext,
  options: { logStream?: NodeJS.WritableStream; debug?: boolean } = {},
): Promise<Service> {
  const core = await import('@junction/agent-core');
  const { createRuntime } = await import('./runtime.js');
  const runtime = await createRuntime(ctx, {
    ...(options.logStream ? { logStream: options.logStream } : {}),
    ...(options.debug ? { level: 'debug' as const } : {}),
  });
  const queue = new core.RunQueue({
    store: runtime.store,
    runner: runtime.runner,
    logger: runtime.logger,
    concurrency: ctx.config.workers.concurrency,
  });
  let started = false;
  let stopped: Promise<{ requeued: number }> | undefined;
  return {
    runtime,
    queue,
    async start(): Promise<void> {
      const recovered = await queue.start();
      started = true;
      runtime.logger.info('workers started', {
        worker_id: queue.workerId,
        concurrency: ctx.config.workers.concurrency,
        recovered: recovered.failed.length,
      });
    },
    checkAgent(agent: Agent): void {
      core.resolveModel(agent.model ?? undefined, runtime.runnerSettings, process.env);
    },
    stop(drainMs = 10_000): Promise<{ requeued: number }> {
      stopped ??= (async () => {
        const result = started ? await queue.stop({ drainMs }) : { requeued: 0 };
        runtime.logger.info('workers stopped', { requeued: result.requeued });
        await runtime.close();
        return result;
      })();
      return stopped;
    },
  };
}
