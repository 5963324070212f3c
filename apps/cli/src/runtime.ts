// The pieces that execute agents, built once per process from the context (agent-core's
// service runtime: MCP client pool, tracing, metrics, runner). `agent run` uses it directly;
// `serve` and `stdio` add the workers.
import type { ServiceRuntime } from '@junction/agent-core';
import type { LogLevel } from '@junction/telemetry';
import type { CliContext } from './context.js';

export type Runtime = ServiceRuntime;

/** Builds the runner and its collaborators; `close()` flushes traces and stops every tool server. */
export async function createRuntime(
  ctx: CliContext,
  options: {
    logStream?: NodeJS.WritableStream;
    level?: LogLevel;
    version?: string;
    startedAt?: Date;
  } = {},
): Promise<Runtime> {
  const core = await import('@junction/agent-core');
  const store = await ctx.store();
  const logger = await ctx.logger(options.logStream, {
    ...(options.level ? { level: options.level } : {}),
  });
  return core.createServiceRuntime({
    config: ctx.config,
    store,
    logger,
    ...(options.version ? { version: options.version } : {}),
    ...(options.startedAt ? { startedAt: options.startedAt } : {}),
  });
}
