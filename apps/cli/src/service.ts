// Every command that runs agents (`serve`, `stdio`, `agent run`) builds its pieces through
// service-kit's one composition root, from the workspace's config, store and log.
import type { Composition } from '@junction/service-kit';
import type { CliContext } from './context.js';

/**
 * The process's composition: the run door, and the runner, workers and notifier unless
 * `executes` is false (a command that only queues runs for a `junction serve` to execute).
 */
export async function createService(
  ctx: CliContext,
  options: {
    logStream?: NodeJS.WritableStream;
    debug?: boolean;
    version: string;
    startedAt?: Date;
    /** Whether this process executes runs. Default true. */
    executes?: boolean;
    /** This process holds the management channel (serve, stdio). */
    management?: 'serve' | 'stdio';
    /** This process keeps traces: receiver, viewer, retention (serve, traces). */
    traces?: boolean;
    /** What this process works on, over config.yaml's `workers` (serve --no-workers, worker --concurrency). */
    workers?: Partial<CliContext['config']['workers']>;
  },
): Promise<Composition> {
  const { composeService } = await import('@junction/service-kit');
  const store = await ctx.store();
  const logger = await ctx.logger(options.logStream, {
    ...(options.debug ? { level: 'debug' as const } : {}),
  });
  return composeService({
    config: options.workers
      ? { ...ctx.config, workers: { ...ctx.config.workers, ...options.workers } }
      : ctx.config,
    store,
    logger,
    version: options.version,
    ...(options.startedAt ? { startedAt: options.startedAt } : {}),
    executes: options.executes ?? true,
    workspace: ctx.workspace,
    ...(options.management ? { management: options.management } : {}),
    ...(options.traces ? { traces: true } : {}),
  });
}
