// The one composition root of every Junction process: `junction serve`, `junction stdio`,
// `junction agent run`, the api-server and the webhook-server all build their pieces here, so
// a setting cannot reach one process and miss another.
import { randomBytes } from 'node:crypto';
import type { Config, Workspace } from '@junction/config-templates';
import {
  AgentRunner,
  announceQueued,
  createRunDoor,
  RunWorkers,
  type RunBus,
  type RunDispatch,
  type RunDoor,
} from '@junction/agent-core/runs';
import { NatsRunBus } from '@junction/run-bus';
import { McpClientPool } from '@junction/agent-core/mcp';
import {
  createModelCheck,
  createPricing,
  type ModelCheck,
  type ModelSettings,
} from '@junction/agent-core/models';
import { createMcpHttpHandler, createMcpServer, type McpHttpHandler } from '@junction/mcp-server';
import {
  createRestApp,
  PROBE_OPERATIONS,
  TRACE_OPERATIONS,
  type RestDeps,
} from '@junction/rest-api';
import type { Run, Store } from '@junction/store';
import {
  MIN_SECRET_LENGTH,
  createMetrics,
  createTracing,
  type Metrics,
  type RootLogger,
  type Tracing,
} from '@junction/telemetry';
import { createNotifier, createWebhookApp, type Notifier } from '@junction/webhooks';
import { Scheduler } from '@junction/scheduler';
import {
  approvalRequestedPayload,
  createWorkflowDoor,
  WorkflowWorkers,
  type WorkflowDoor,
} from '@junction/workflows';
import type express from 'express';
import { keyRing } from './api-keys.js';
import { codingPart, type CodingPart } from './coding.js';
import { managementPart, type ManagementHealth } from './management.js';
import {
  traceExportOf,
  tracesPart,
  uiHandler,
  type TracesHealth,
  type TracesPart,
} from './traces.js';
import { hostGuard, isLoopback } from './host-guard.js';
import { rateLimitOf } from './rate-limit.js';
import { approvalBaseUrl, leaveWebhookNote, removeWebhookNote } from './webhook-address.js';
import {
  apiKeysOf,
  mcpAllowedOf,
  mcpOAuthOf,
  secretsOf,
  shortSecretsOf,
} from './service-settings.js';

export interface ComposeOptions {
  config: Config;
  store: Store;
  logger: RootLogger;
  /** Where model keys and service variables are read from. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Service name on traces and MCP clients. Default `junction`. */
  serviceName?: string;
  version: string;
  /** Start of the process (uptime, station_uptime_seconds). Default now. */
  startedAt?: Date;
  /**
   * Whether this process executes runs: the MCP client pool, tracing, the runner, the workers
   * and the notifier. The webhook-server only accepts runs and builds none of it.
   */
  executes: boolean;
  /** Workspace on disk, for the MCP tools that read or write it. */
  workspace?: Workspace;
  /**
   * This process holds the management channel when `management.enabled` (serve, stdio and the
   * api-server; a one-off `agent run` does not): `serve` or `stdio`, as reported to the platform.
   */
  management?: 'serve' | 'stdio';
  /**
   * This process keeps traces (`serve`, `junction traces`) when `traces.enabled`: its receiver
   * and viewer apps exist, retention runs, and its own spans go to the store unless
   * `otel_endpoint` sends them elsewhere. Another process exports to a running receiver it finds.
   */
  traces?: boolean;
}

/** What executes runs in a process. */
export interface Executor {
  pool: McpClientPool;
  tracing: Tracing;
  runner: AgentRunner;
  workers: RunWorkers;
  notifier: Notifier;
  /** Advance workflow runs; their agent steps go through the run door. */
  workflowWorkers: WorkflowWorkers;
  /** Fires due schedules while this process holds the scheduler lease. */
  scheduler: Scheduler;
  /** Coding tools and the coding backend (the bus) they work through. */
  coding: CodingPart;
  /** Told of every run this process finishes, after the notifier. */
  finished: Array<(run: Run) => void>;
}

/**
 * The NATS server the hosts of one store share (queue.nats.url), else the coding bus's when
 * coding works over one; undefined: workers poll the store.
 */
export function runBusUrlOf(config: Config): string | undefined {
  if (config.queue.nats.url) return config.queue.nats.url;
  return config.coding.enabled && config.coding.backend === 'opencode-nats'
    ? config.coding.nats.url
    : undefined;
}

export interface Composition {
  config: Config;
  store: Store;
  logger: RootLogger;
  version: string;
  startedAt: Date;
  /** REST and MCP keys: config api.keys plus JUNCTION_API_KEY. */
  apiKeys: string[];
  metrics: Metrics;
  /** The model check every run passes before it is written. */
  checkModel: ModelCheck;
  /** The one door for runs of this process. */
  runs: RunDoor;
  /** The one door for workflow runs and approvals of this process. */
  workflows: WorkflowDoor;
  /** What this process tells the other hosts of its store, when they share a NATS server. */
  bus: NatsRunBus | undefined;
  /** Present when the process executes runs. */
  executor: Executor | undefined;
  /** The management channel's state, as /health reports it. */
  managementHealth(): ManagementHealth;
  /** The REST API with /health and /metrics, and the dashboard at /ui. */
  restApp(): express.Express;
  /** Only /health and /metrics: the port of a process that only works runs (`junction worker`). */
  probeApp(): express.Express;
  /** The receiver and viewer of a process that keeps traces (ComposeOptions.traces). */
  traces: TracesPart | undefined;
  /** Where traces go and where to look at them, as /health and the start-up line say. */
  tracesHealth(): TracesHealth;
  /** MCP over HTTP on `port` (Host and Origin checks for the bound address and JUNCTION_MCP_ALLOWED_*). */
  mcpHttp(port: number): McpHttpHandler;
  /** One MCP server for stdio. */
  mcpStdio(): ReturnType<typeof createMcpServer>;
  /** POST /execute and GET /runs/:id, plus `health` when given. */
  webhookApp(options?: { health?: express.RequestHandler }): express.Express;
  /**
   * The webhook routes listen on `port` in this process: approval links name it (unless
   * webhook.public_url is set), and other commands of this workspace find it until stop.
   */
  webhookListening(port: number): void;
  /** Recovers runs of dead workers and starts the workers (when the process executes runs). */
  start(): Promise<void>;
  /** Stops the workers (in-flight runs get `drainMs`, then go back to the queue), sends pending notifications, flushes traces and stops tool servers. Idempotent. */
  stop(drainMs?: number): Promise<{ requeued: number }>;
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

function buildExecutor(
  options: ComposeOptions,
  env: NodeJS.ProcessEnv,
  metrics: Metrics,
  runDoor: (workers: RunWorkers) => RunDoor,
  workflowDoor: WorkflowDoor,
  bus: RunBus | undefined,
): Executor {
  const { config, store, logger } = options;
  const serviceName = options.serviceName ?? 'junction';
  const tracing = createTracing({
    serviceName,
    serviceVersion: options.version,
    ...traceExportOf(
      config,
      store,
      logger,
      options.traces === true && config.traces.enabled,
      options.workspace?.paths.configHome,
    ).options,
    headers: config.telemetry.headers,
    ...(config.telemetry.certificate ? { certificatePath: config.telemetry.certificate } : {}),
    sampler: config.telemetry.sampler,
    samplerArg: config.telemetry.sampler_arg,
    logger,
  });
  const pool = new McpClientPool({ logger, clientName: serviceName });
  const coding = codingPart({
    config,
    store,
    logger,
    env,
    ...(options.workspace ? { configHome: options.workspace.paths.configHome } : {}),
  });
  const runner = new AgentRunner({
    toolProviders: [coding.provider],
    store,
    pool,
    logger,
    tracer: tracing.tracer,
    metrics,
    modelSettings: modelSettingsOf(config),
    env,
    defaultTimeoutMs: config.runs.timeout_seconds * 1000,
    leaseMs: config.runs.lease_seconds * 1000,
    resume: { onUnknownOutcome: config.runs.on_unknown_outcome, tools: config.runs.tools },
  });
  const notifier = createNotifier({
    store,
    logger,
    ...(config.notifications.webhook_url ? { url: config.notifications.webhook_url } : {}),
    events: config.notifications.webhook_events,
    version: options.version,
    ...(config.notifications.approval_webhook_url
      ? { approvalUrl: config.notifications.approval_webhook_url }
      : {}),
    approvalTimeoutMs: config.notifications.approval_webhook_timeout * 1000,
    ...(config.notifications.signing_secret
      ? { signingSecret: config.notifications.signing_secret }
      : {}),
  });
  // Every run this process finishes reaches the notifier, whoever submitted it.
  const finished: Array<(run: Run) => void> = [];
  const workers = new RunWorkers({
    store,
    runner,
    logger,
    concurrency: config.workers.concurrency,
    leaseMs: config.runs.lease_seconds * 1000,
    maxAttempts: config.runs.max_attempts,
    ...(bus ? { bus, busPollMs: config.queue.nats.poll_seconds * 1000 } : {}),
    onFinished: (run) => {
      for (const listener of finished) listener(run);
      return notifier.runFinished(run);
    },
  });
  const workflowWorkers = new WorkflowWorkers({
    store,
    ...(bus ? { bus } : {}),
    runs: runDoor(workers),
    logger,
    tracer: tracing.tracer,
    metrics,
    onApprovalRequested: async (approval, run) => {
      const links = await workflowDoor.links(approval.approvalId);
      await notifier.approvalRequested(approvalRequestedPayload(approval, run, links));
    },
    onFinished: (run) => void notifier.workflowFinished(run),
  });
  const scheduler = new Scheduler({
    store,
    runs: runDoor(workers),
    startWorkflow: (request) => workflowDoor.start(request),
    logger,
    tracer: tracing.tracer,
    onError: (error) =>
      void notifier.schedulerError({
        error: error.error,
        ...(error.kind === 'agent' ? { agent: { id: error.agentId, name: error.target } } : {}),
        schedule: { id: error.scheduleId, cron: error.cron },
        occurredAt: error.firedAt,
      }),
  });
  return {
    pool,
    tracing,
    runner,
    workers,
    notifier,
    workflowWorkers,
    scheduler,
    coding,
    finished,
  };
}

/**
 * The id of the store the process works on, made once by the first process (settings
 * `store_id`): hosts of one store share the bus's subjects, hosts of another never hear them.
 */
export async function storeIdOf(store: Store): Promise<string> {
  const id = await store.settings.getOrSet('store_id', randomBytes(6).toString('hex'));
  return String(id);
}

/** Runs a process with this config executes at once: 0 when it only accepts them (`workers.runs` off). */
export function runSlotsOf(config: Config): number {
  return config.workers.runs ? config.workers.concurrency : 0;
}

/** Builds a process's pieces once from its config. */
export function composeService(options: ComposeOptions): Composition {
  const { config, store, logger, version } = options;
  const env = options.env ?? process.env;
  const startedAt = options.startedAt ?? new Date();
  const apiKeys = apiKeysOf(config, env);
  const keys = keyRing(apiKeys);
  const secrets = secretsOf(config, env);
  const tooShort = shortSecretsOf(config, env);
  if (tooShort.length > 0) {
    logger.warn(
      `${tooShort.join(', ')} ${tooShort.length === 1 ? 'is' : 'are'} shorter than ${MIN_SECRET_LENGTH} characters, so ${tooShort.length === 1 ? 'it is' : 'they are'} not redacted from logs and run records (a value that short would rewrite ordinary text). Use longer keys.`,
      { settings: tooShort },
    );
  }
  const metrics = createMetrics({ logger, startTime: startedAt });
  const checkModel = createModelCheck(modelSettingsOf(config), env);
  const busUrl = runBusUrlOf(config);
  const bus = busUrl
    ? new NatsRunBus({
        url: busUrl,
        logger,
        name: options.serviceName ?? 'junction',
        storeId: () => storeIdOf(store),
      })
    : undefined;
  // A process without workers (the webhook-server) announces the runs it accepts.
  const announcing: RunDispatch | undefined = bus && {
    reserve: () => undefined,
    queued: (run) => announceQueued(bus, run),
  };
  const runDoorFor = (workers?: RunWorkers): RunDoor =>
    createRunDoor({
      store,
      checkModel,
      ...(bus ? { bus } : {}),
      ...(workers
        ? { dispatch: workers, endings: workers, canceller: workers }
        : announcing
          ? { dispatch: announcing }
          : {}),
    });
  // A workflow run started or an approval decided here wakes this process's workflow workers.
  // The door is made before the workers that advance its runs: it reaches them through here.
  const local: { workers?: WorkflowWorkers; webhookPort?: number } = {};
  const configHome = options.workspace?.paths.configHome;
  const workflows = createWorkflowDoor({
    store,
    // A process that executes runs records a root span for each workflow run it starts.
    tracer: () => executor?.tracing.tracer,
    // Asked each time: the webhook port may be bound after the door is made (webhookListening).
    publicUrl: () =>
      approvalBaseUrl(config, {
        ...(local.webhookPort !== undefined ? { listeningPort: local.webhookPort } : {}),
        ...(configHome !== undefined ? { configHome } : {}),
      }),
    due: () => (local.workers ? local.workers.due() : bus?.announce('workflows')),
    reserve: () => local.workers?.reserve(),
    // Cancelling a workflow run cancels its agent runs through the run door (made below).
    cancelRun: (runId, cancelOptions) => runs.cancel(runId, cancelOptions),
  });
  const executor = options.executes
    ? buildExecutor(options, env, metrics, runDoorFor, workflows, bus)
    : undefined;
  if (executor) local.workers = executor.workflowWorkers;
  // Bound to loopback, the REST and webhook ports answer only names of this machine (DNS
  // rebinding); /mcp has its own Host and Origin check.
  const guard = isLoopback(config.api.host) ? hostGuard(env) : undefined;
  const webhookKeys = keyRing(config.webhook.api_key ? [config.webhook.api_key] : [], {
    xApiKey: false,
  });
  // One count per surface for the whole process, however many apps it builds.
  const limits = {
    rest: rateLimitOf(config.rate_limit, 'rest', keys),
    mcp: rateLimitOf(config.rate_limit, 'mcp', keys),
    execute: rateLimitOf(config.rate_limit, 'execute', webhookKeys),
  };
  const runs = runDoorFor(executor?.workers);
  const oauth = mcpOAuthOf(config);
  const management = managementPart(
    executor && options.management
      ? {
          config,
          store,
          logger,
          env,
          runs,
          version,
          startedAt,
          ...(options.workspace ? { configHome: options.workspace.paths.configHome } : {}),
          mode: options.management === 'stdio' ? 'DEPLOYMENT_MODE_STDIO' : 'DEPLOYMENT_MODE_SERVE',
          activeRuns: () => executor.workers.inFlight(),
          tracer: executor.tracing.tracer,
        }
      : undefined,
  );
  if (executor) executor.finished.push((run) => management.runFinished(run));
  let started = false;
  let stopped: Promise<{ requeued: number }> | undefined;
  const mcpDeps = (): Omit<Parameters<typeof createMcpServer>[0], 'transport'> => {
    if (!executor || !options.workspace) {
      throw new Error('MCP needs a process that executes runs and a workspace');
    }
    return {
      store,
      workspace: options.workspace,
      pool: executor.pool,
      runs,
      logger,
      version,
      processEnv: env,
      workflows,
      scheduler: executor.scheduler,
    };
  };
  const restDeps: RestDeps = {
    store,
    runs,
    logger,
    metrics,
    version,
    startedAt,
    keys,
    secrets,
    workflows,
    pricing: createPricing(config.pricing),
    management: () => management.health(),
    traces: () => tracesHealth(),
    queue: () => ({ bus: bus?.url ?? null, connected: bus?.connected() ?? false }),
    ...(bus
      ? {
          runChanges: {
            connected: () => bus.connected(),
            subscribe: (listener: () => void) => bus.onState('*', listener),
          },
        }
      : {}),
    ...(executor
      ? {
          workersRunning: () => started && stopped === undefined,
          scheduler: executor.scheduler,
          mcpServersActive: () => executor.pool.activeKeys().length,
          workers: () => ({
            runs: started ? runSlotsOf(config) : 0,
            in_flight: executor.workers.inFlight(),
            workflows: started && config.workers.workflows,
          }),
        }
      : {}),
  };
  const traces =
    options.traces === true && config.traces.enabled
      ? tracesPart({
          config,
          store,
          logger,
          keys,
          ...(guard ? { guard } : {}),
          ...(options.workspace ? { configHome: options.workspace.paths.configHome } : {}),
          version,
          viewerApi: () =>
            createRestApp(restDeps, { operations: TRACE_OPERATIONS, ...(guard ? { guard } : {}) }),
        })
      : undefined;
  const tracesHealth = (): TracesHealth => {
    const exportTo = executor?.tracing.destination ?? 'nowhere';
    return traces?.health(exportTo) ?? { export: exportTo, receiver: null, viewer: null };
  };
  return {
    config,
    store,
    logger,
    version,
    startedAt,
    apiKeys,
    metrics,
    checkModel,
    runs,
    workflows,
    bus,
    executor,
    managementHealth: () => management.health(),
    traces,
    tracesHealth,
    restApp: () =>
      createRestApp(restDeps, {
        ...(guard ? { guard } : {}),
        ...(limits.rest ? { limit: limits.rest } : {}),
        ui: uiHandler(() => ({
          mode: 'dashboard',
          viewer_url: tracesHealth().viewer,
          dashboard_url: null,
          version,
        })),
      }),
    probeApp: () =>
      createRestApp(restDeps, { operations: PROBE_OPERATIONS, ...(guard ? { guard } : {}) }),
    mcpHttp: (port) =>
      createMcpHttpHandler({
        port,
        keys,
        ...(oauth ? { oauth } : {}),
        ...mcpAllowedOf(config.api.host, port, env),
        ...(limits.mcp ? { limit: limits.mcp } : {}),
        deps: mcpDeps(),
      }),
    mcpStdio: () => createMcpServer({ ...mcpDeps(), transport: 'stdio' }),
    webhookApp: (extra = {}) =>
      createWebhookApp(
        {
          store,
          runs,
          logger,
          enabled: config.webhook.enabled,
          keys: webhookKeys,
          maxBodyBytes: config.webhook.max_body_bytes,
          workflows,
        },
        {
          ...extra,
          ...(guard ? { guard } : {}),
          ...(limits.execute ? { limit: limits.execute } : {}),
        },
      ),
    webhookListening(port: number): void {
      local.webhookPort = port;
      if (configHome === undefined) return;
      if (!leaveWebhookNote(configHome, approvalBaseUrl(config, { listeningPort: port }))) {
        logger.warn(
          'could not leave the webhook address note; approval links of other commands name webhook.port',
          { port },
        );
      }
    },
    async start(): Promise<void> {
      traces?.start();
      if (started) return;
      if (!executor) {
        await bus?.open();
        started = true;
        return;
      }
      // The coding backend (an embedded bus) is up before the first run can want it, and
      // before the run bus that may use its server.
      await executor.coding.start();
      await bus?.open();
      const { runs: works, workflows: advances, scheduler: fires } = config.workers;
      const recovered = works
        ? await executor.workers.start()
        : { requeued: [] as number[], failed: [] as number[] };
      if (advances) executor.workflowWorkers.start();
      if (fires) await executor.scheduler.start();
      // Registered once this process can take the executions the platform may send at once.
      await management.start();
      started = true;
      logger.info(works ? 'workers started' : 'workers off: runs are left to other processes', {
        worker_id: executor.workers.workerId,
        concurrency: runSlotsOf(config),
        workflows: advances,
        scheduler: fires,
        ...(bus ? { bus: bus.url } : {}),
        recovered_requeued: recovered.requeued.length,
        recovered_failed: recovered.failed.length,
      });
    },
    stop(drainMs = 10_000): Promise<{ requeued: number }> {
      stopped ??= (async () => {
        let requeued = 0;
        if (executor) {
          // The platform sees the station go before its runs are drained.
          await management.stop();
          if (started) {
            // The scheduler first (its lease goes to another process at once), then workflow
            // steps: an agent step's run is then drained like any other.
            await executor.scheduler.stop();
            await executor.workflowWorkers.stop({ drainMs: Math.min(drainMs, 2_000) });
            ({ requeued } = await executor.workers.stop({ drainMs }));
            logger.info('workers stopped', { requeued });
          }
          await executor.notifier.close();
          await bus?.close();
          await executor.coding.stop();
          await executor.pool.closeAll();
          await executor.tracing.shutdown();
        }
        if (!executor) await bus?.close();
        traces?.stop();
        if (local.webhookPort !== undefined && configHome !== undefined)
          removeWebhookNote(configHome);
        await metrics.shutdown();
        return { requeued };
      })();
      return stopped;
    },
  };
}
