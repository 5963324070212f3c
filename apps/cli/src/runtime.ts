// The pieces that execute agents, built once per process from the context: the MCP client
// pool, tracing, metrics and the runner. `agent run` uses it directly; `serve` adds the queue.
import type { AgentRunner, McpClientPool, ModelSettings } from '@junction/agent-core';
import type { LogLevel, Metrics, RootLogger } from '@junction/telemetry';
import type { Store } from '@junction/store';
import type { CliContext } from './context.js';

export interface Runtime {
  store: Store;
  logger: RootLogger;
  pool: McpClientPool;
  metrics: Metrics;
  runner: AgentRunner;
  /** The model settings from the config, for checks before a run starts. */
  runnerSettings: ModelSettings;
  close(): Promise<void>;
}

/** Builds the runner and its collaborators; `close()` flushes traces and stops every tool server. */
export async function createRuntime(
  ctx: CliContext,
  options: { logStream?: NodeJS.WritableStream; level?: LogLevel } = {},
): Promise<Runtime> {
  const core = await import('@junction/agent-core');
  const telemetry = await import('@junction/telemetry');
  const { config } = ctx;
  const store = await ctx.store();
  const logger = await ctx.logger(options.logStream, {
    ...(options.level ? { level: options.level } : {}),
  });
  const tracing = telemetry.createTracing({
    serviceName: 'junction',
    ...(config.otel_endpoint
      ? { endpoint: config.otel_endpoint, exporter: 'otlp' as const }
      : { exporter: 'none' as const }),
    headers: config.telemetry.headers,
    ...(config.telemetry.certificate ? { certificatePath: config.telemetry.certificate } : {}),
    sampler: config.telemetry.sampler,
    samplerArg: config.telemetry.sampler_arg,
    logger,
  });
  const metrics = telemetry.createMetrics({ logger });
  const pool = new core.McpClientPool({ logger, clientName: 'junction' });
  const runnerSettings: ModelSettings = {
    ai_provider: config.ai_provider,
    ai_model: config.ai_model,
    ...(config.ai_base_url ? { ai_base_url: config.ai_base_url } : {}),
    ...(config.ai_api_key ? { ai_api_key: config.ai_api_key } : {}),
  };
  const runner = new core.AgentRunner({
    store,
    pool,
    logger,
    tracer: tracing.tracer,
    metrics,
    modelSettings: runnerSettings,
    defaultTimeoutMs: config.runs.timeout_seconds * 1000,
  });
  return {
    store,
    logger,
    pool,
    metrics,
    runner,
    runnerSettings,
    async close(): Promise<void> {
      await pool.closeAll();
      await tracing.shutdown();
      await metrics.shutdown();
    },
  };
}
