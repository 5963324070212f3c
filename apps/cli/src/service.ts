// Every command that runs agents (`serve`, `stdio`, `agent run`) builds its pieces through
// service-kit's one composition root, from the workspace's config, store and log.
import type { Composition } from '@junction/service-kit';
import type { CliContext } from './context.js';

/** The process's composition: the run door, and (here always) the runner, workers and notifier. */
export async function createService(
  ctx: CliContext,
  options: {
    logStream?: NodeJS.WritableStream;
    debug?: boolean;
    version: string;
    startedAt?: Date;
  },
): Promise<Composition> {
  const { composeService } = await import('@junction/service-kit');
  const store = await ctx.store();
  const logger = await ctx.logger(options.logStream, {
    ...(options.debug ? { level: 'debug' as const } : {}),
  });
  return composeService({
    config: ctx.config,
    store,
    logger,
    version: options.version,
    ...(options.startedAt ? { startedAt: options.startedAt } : {}),
    executes: true,
    workspace: ctx.workspace,
  });
}
