// The pieces that execute agents, built once per process from the config: the MCP client
// pool, tracing, metrics, the runner and (for services) the run queue and its workers. Every
// app (CLI, api-server, webhook-server) composes the same way from here.
import type { Config } from '@junction/config-templates';
import type { Agent, Run, Store } from '@junction/store';
import {
  createMetrics,
  createTracing,
  type Metrics,
  type RootLogger,
  type Tracing,
} from '@junction/telemetry';
import { AgentRunner } from './agent-runner.js';
import { McpClientPool } from './mcp-client-pool.js';
import { resolveModel, type ModelSettings } from './model-factory.js';
import { RunQueue } from './run-queue.js';

export interface ServiceRuntimeOptions {
  config: Config;
  store: Store;
  logger: RootLogger;
  /** Service name and version on traces. */
  serviceName?: string;
  version?: string;
  /** Where model keys are read from. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Start of station_uptime_seconds. Default now. */
  startedAt?: Date;
}

export interface ServiceRuntime {
  store: Store;
  logger: RootLogger;
  pool: McpClientPool;
  tracing: Tracing;
  metrics: Metrics;
  runner: AgentRunner;
  /** ai_provider, ai_model, ai_base_url, ai_api_key from the config. */
  modelSettings: ModelSettings;
  /** Throws the model's configuration error (missing key, unknown provider) before a run is queued. */
  checkAgent(agent: Pick<Agent, 'name' | 'model'>): void;
  /** Flushes traces and metrics and stops every tool server. */
  close(): Promise<void>;
}

/** The model settings of a config. */
export function modelSettingsOf(config: Config): ModelSettings {
  return {
    ai_provider: config.ai_provider,
    ai_model: config.ai_model,
    ...(config.ai_base_url ? { ai_base_url: config.ai_base_url } : {}),
    ...(config.ai_api_key ? { ai_api_key: config.ai_api_key } : {}),
  };
}

/** Builds the runner and its collaborators from the config. */
export function createServiceRuntime(options: ServiceRuntimeOptions): ServiceRuntime {
  const { config, store, logger } = options;
  const env = options.env ?? process.env;
  const tracing = createTracing({
    serviceName: options.serviceName ?? 'junction',
    ...(options.version ? { serviceVersion: options.version } : {}),
    ...(config.otel_endpoint
      ? { endpoint: config.otel_endpoint, exporter: 'otlp' as const }
      : { exporter: 'none' as const }),
    headers: config.telemetry.headers,
    ...(config.telemetry.certificate ? { certificatePath: config.telemetry.certificate } : {}),
    sampler: config.telemetry.sampler,
    samplerArg: config.telemetry.sampler_arg,
    logger,
  });
  const metrics = createMetrics({ logger, startTime: options.startedAt ?? new Date() });
  const pool = new McpClientPool({ logger, clientName: options.serviceName ?? 'junction' });
  const modelSettings = modelSettingsOf(config);
  const runner = new AgentRunner({
    store,
    pool,
    logger,
    tracer: tracing.tracer,
    metrics,
    modelSettings,
    env,
    defaultTimeoutMs: config.runs.timeout_seconds * 1000,
  });
  return {
    store,
    logger,
    pool,
    tracing,
    metrics,
    runner,
    modelSettings,
    checkAgent(agent: Pick<Agent, 'name' | 'model'>): void {
      resolveModel(agent.model ?? undefined, modelSettings, env);
    },
    async close(): Promise<void> {
      await pool.closeAll();
      await tracing.shutdown();
      await metrics.shutdown();
    },
  };
}

export interface WorkerPoolOptions {
  runtime: ServiceRuntime;
  /** Default config workers.concurrency. */
  concurrency: number;
  /** Called for every run this process finishes (the notifier). */
  onFinished?: (run: Run) => void | Promise<void>;
}

export interface WorkerPool {
  queue: RunQueue;
  running(): boolean;
  start(): Promise<void>;
  /** In-flight runs get `drainMs` to finish, then go back to the queue. Idempotent. */
  stop(drainMs?: number): Promise<{ requeued: number }>;
}

/** The run queue's workers for a service process. */
export function createWorkerPool(options: WorkerPoolOptions): WorkerPool {
  const { runtime } = options;
  const queue = new RunQueue({
    store: runtime.store,
    runner: runtime.runner,
    logger: runtime.logger,
    concurrency: options.concurrency,
    ...(options.onFinished ? { onFinished: options.onFinished } : {}),
  });
  let started = false;
  let stopped: Promise<{ requeued: number }> | undefined;
  return {
    queue,
    running: () => started && stopped === undefined,
    async start(): Promise<void> {
      const recovered = await queue.start();
      started = true;
      runtime.logger.info('workers started', {
        worker_id: queue.workerId,
        concurrency: options.concurrency,
        recovered: recovered.failed.length,
      });
    },
    stop(drainMs = 10_000): Promise<{ requeued: number }> {
      stopped ??= (async () => {
        if (!started) return { requeued: 0 };
        const result = await queue.stop({ drainMs });
        runtime.logger.info('workers stopped', { requeued: result.requeued });
        return result;
      })();
      return stopped;
    },
  };
}

/** REST keys: config `api.keys` plus `JUNCTION_API_KEY` when set; blanks dropped. */
export function apiKeysOf(config: Config, env: NodeJS.ProcessEnv = process.env): string[] {
  const extra = env.JUNCTION_API_KEY?.trim();
  return [...config.api.keys, ...(extra ? [extra] : [])].filter((key) => key.trim() !== '');
}
