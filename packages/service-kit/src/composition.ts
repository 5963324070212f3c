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
import { rateLimitOf, type LimitedSurface } from './rate-limit.js';
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
  warnShortSecrets(config, env, logger);
  const metrics = createMetrics({ logger, startTime: startedAt });
  const checkModel = createModelCheck(modelSettingsOf(config), env);
  const bus = runBusOf(options);
  const runDoorFor = runDoorMaker(store, checkModel, bus);
  const configHome = options.workspace?.paths.configHome;
  // The doors and the executor need each other: the workflow door cancels through the run
  // door and wakes the workflow workers, which are made after it. `late` holds what is made
  // later; the door asks it each time.
  const late: LateParts = {};
  const workflows = workflowDoorOf({ config, store, bus, late, configHome });
  const executor = options.executes
    ? buildExecutor(options, env, metrics, runDoorFor, workflows, bus)
    : undefined;
  const runs = runDoorFor(executor?.workers);
  Object.assign(late, { executor, runs });
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
          ...(configHome !== undefined ? { configHome } : {}),
          mode: options.management === 'stdio' ? 'DEPLOYMENT_MODE_STDIO' : 'DEPLOYMENT_MODE_SERVE',
          activeRuns: () => executor.workers.inFlight(),
          tracer: executor.tracing.tracer,
        }
      : undefined,
  );
  if (executor) executor.finished.push((run) => management.runFinished(run));
  const parts: ServiceParts = {
    options,
    env,
    startedAt,
    apiKeys,
    keys,
    metrics,
    checkModel,
    bus,
    executor,
    runs,
    workflows,
    management,
    configHome,
    late,
    lifetime: { started: false },
    http: httpGuardsOf(config, env, keys),
  };
  const restDeps = restDepsOf(parts, () => tracesHealthOf(parts, traces));
  const traces = tracesOf(parts, restDeps);
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
    tracesHealth: () => tracesHealthOf(parts, traces),
    ...httpSurfacesOf(parts, restDeps, () => tracesHealthOf(parts, traces)),
    start: () => startService(parts, traces),
    stop: (drainMs = 10_000) => stopService(parts, traces, drainMs),
  };
}

/** What a process makes after the doors that use it: the workflow door reads it when called. */
interface LateParts {
  executor?: Executor | undefined;
  runs?: RunDoor;
  /** The webhook port, once bound in this process (webhookListening). */
  webhookPort?: number;
}

/** The pieces of one process, as the parts below need them. */
interface ServiceParts {
  options: ComposeOptions;
  env: NodeJS.ProcessEnv;
  startedAt: Date;
  apiKeys: string[];
  keys: ReturnType<typeof keyRing>;
  metrics: Metrics;
  checkModel: ModelCheck;
  bus: NatsRunBus | undefined;
  executor: Executor | undefined;
  runs: RunDoor;
  workflows: WorkflowDoor;
  management: ReturnType<typeof managementPart>;
  configHome: string | undefined;
  late: LateParts;
  /** Whether start() has run, and the one stop in progress or done. */
  lifetime: { started: boolean; stopped?: Promise<{ requeued: number }> };
  http: HttpGuards;
}

/** Short keys are not redacted (they would rewrite ordinary text): the operator is told once. */
function warnShortSecrets(config: Config, env: NodeJS.ProcessEnv, logger: RootLogger): void {
  const tooShort = shortSecretsOf(config, env);
  if (tooShort.length === 0) return;
  logger.warn(
    `${tooShort.join(', ')} ${tooShort.length === 1 ? 'is' : 'are'} shorter than ${MIN_SECRET_LENGTH} characters, so ${tooShort.length === 1 ? 'it is' : 'they are'} not redacted from logs and run records (a value that short would rewrite ordinary text). Use longer keys.`,
    { settings: tooShort },
  );
}

/** The bus to the other hosts of the store, when they share a NATS server. */
function runBusOf(options: ComposeOptions): NatsRunBus | undefined {
  const url = runBusUrlOf(options.config);
  return url
    ? new NatsRunBus({
        url,
        logger: options.logger,
        name: options.serviceName ?? 'junction',
        storeId: () => storeIdOf(options.store),
      })
    : undefined;
}

/** Makes the run door, given the workers of this process (none: it only accepts runs). */
function runDoorMaker(
  store: Store,
  checkModel: ModelCheck,
  bus: NatsRunBus | undefined,
): (workers?: RunWorkers) => RunDoor {
  // A process without workers (the webhook-server) announces the runs it accepts.
  const announcing: RunDispatch | undefined = bus && {
    reserve: () => undefined,
    queued: (run) => announceQueued(bus, run),
  };
  return (workers) =>
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
}

/** The workflow door: a workflow run started or an approval decided here wakes this process's workflow workers. */
function workflowDoorOf(input: {
  config: Config;
  store: Store;
  bus: NatsRunBus | undefined;
  late: LateParts;
  configHome: string | undefined;
}): WorkflowDoor {
  const { config, store, bus, late, configHome } = input;
  return createWorkflowDoor({
    store,
    // A process that executes runs records a root span for each workflow run it starts.
    tracer: () => late.executor?.tracing.tracer,
    // Asked each time: the webhook port may be bound after the door is made (webhookListening).
    publicUrl: () =>
      approvalBaseUrl(config, {
        ...(late.webhookPort !== undefined ? { listeningPort: late.webhookPort } : {}),
        ...(configHome !== undefined ? { configHome } : {}),
      }),
    due: () => (late.executor ? late.executor.workflowWorkers.due() : bus?.announce('workflows')),
    reserve: () => late.executor?.workflowWorkers.reserve(),
    // Cancelling a workflow run cancels its agent runs through the run door.
    cancelRun: (runId, cancelOptions) => {
      if (!late.runs) throw new Error('the run door is made before any workflow run is cancelled');
      return late.runs.cancel(runId, cancelOptions);
    },
  });
}

/** What every HTTP surface of the process runs before its routes. */
interface HttpGuards {
  /** Bound to loopback, REST and the webhook port answer only names of this machine (DNS rebinding); /mcp has its own check. */
  guard: express.RequestHandler | undefined;
  /** The webhook port's key (webhook.api_key), Bearer only. */
  webhookKeys: ReturnType<typeof keyRing>;
  /** One count per surface for the whole process, however many apps it builds. */
  limits: Record<LimitedSurface, express.RequestHandler | undefined>;
}

function httpGuardsOf(
  config: Config,
  env: NodeJS.ProcessEnv,
  keys: ReturnType<typeof keyRing>,
): HttpGuards {
  const webhookKeys = keyRing(config.webhook.api_key ? [config.webhook.api_key] : [], {
    xApiKey: false,
  });
  return {
    guard: isLoopback(config.api.host) ? hostGuard(env) : undefined,
    webhookKeys,
    limits: {
      rest: rateLimitOf(config.rate_limit, 'rest', keys),
      mcp: rateLimitOf(config.rate_limit, 'mcp', keys),
      execute: rateLimitOf(config.rate_limit, 'execute', webhookKeys),
    },
  };
}

/** What the REST API reads of the process. */
function restDepsOf(parts: ServiceParts, tracesHealth: () => TracesHealth): RestDeps {
  const { config, store, logger, version } = parts.options;
  const { bus, executor, lifetime } = parts;
  return {
    store,
    runs: parts.runs,
    logger,
    metrics: parts.metrics,
    version,
    startedAt: parts.startedAt,
    keys: parts.keys,
    secrets: secretsOf(config, parts.env),
    workflows: parts.workflows,
    pricing: createPricing(config.pricing),
    management: () => parts.management.health(),
    traces: tracesHealth,
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
          workersRunning: () => lifetime.started && lifetime.stopped === undefined,
          scheduler: executor.scheduler,
          mcpServersActive: () => executor.pool.activeKeys().length,
          workers: () => ({
            runs: lifetime.started ? runSlotsOf(config) : 0,
            in_flight: executor.workers.inFlight(),
            workflows: lifetime.started && config.workers.workflows,
          }),
        }
      : {}),
  };
}

/** The receiver and viewer of a process that keeps traces (ComposeOptions.traces). */
function tracesOf(parts: ServiceParts, restDeps: RestDeps): TracesPart | undefined {
  const { config, store, logger, version } = parts.options;
  const { guard } = parts.http;
  if (parts.options.traces !== true || !config.traces.enabled) return undefined;
  return tracesPart({
    config,
    store,
    logger,
    keys: parts.keys,
    ...(guard ? { guard } : {}),
    ...(parts.configHome !== undefined ? { configHome: parts.configHome } : {}),
    version,
    viewerApi: () =>
      createRestApp(restDeps, { operations: TRACE_OPERATIONS, ...(guard ? { guard } : {}) }),
  });
}

function tracesHealthOf(parts: ServiceParts, traces: TracesPart | undefined): TracesHealth {
  const exportTo = parts.executor?.tracing.destination ?? 'nowhere';
  return traces?.health(exportTo) ?? { export: exportTo, receiver: null, viewer: null };
}

/** What MCP serves from: a process that executes runs, and a workspace. */
function mcpDepsOf(parts: ServiceParts): Omit<Parameters<typeof createMcpServer>[0], 'transport'> {
  const { executor } = parts;
  const { store, logger, version, workspace } = parts.options;
  if (!executor || !workspace) {
    throw new Error('MCP needs a process that executes runs and a workspace');
  }
  return {
    store,
    workspace,
    pool: executor.pool,
    runs: parts.runs,
    logger,
    version,
    processEnv: parts.env,
    workflows: parts.workflows,
    scheduler: executor.scheduler,
  };
}

/** The process's HTTP apps (REST, probe, MCP, webhook) and stdio MCP server, each made on demand. */
function httpSurfacesOf(
  parts: ServiceParts,
  restDeps: RestDeps,
  tracesHealth: () => TracesHealth,
): Pick<
  Composition,
  'restApp' | 'probeApp' | 'mcpHttp' | 'mcpStdio' | 'webhookApp' | 'webhookListening'
> {
  const { config, store, logger, version } = parts.options;
  const { guard, limits, webhookKeys } = parts.http;
  const oauth = mcpOAuthOf(config);
  return {
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
        keys: parts.keys,
        ...(oauth ? { oauth } : {}),
        ...mcpAllowedOf(config.api.host, port, parts.env),
        ...(limits.mcp ? { limit: limits.mcp } : {}),
        deps: mcpDepsOf(parts),
      }),
    mcpStdio: () => createMcpServer({ ...mcpDepsOf(parts), transport: 'stdio' }),
    webhookApp: (extra = {}) =>
      createWebhookApp(
        {
          store,
          runs: parts.runs,
          logger,
          enabled: config.webhook.enabled,
          keys: webhookKeys,
          maxBodyBytes: config.webhook.max_body_bytes,
          workflows: parts.workflows,
        },
        {
          ...extra,
          ...(guard ? { guard } : {}),
          ...(limits.execute ? { limit: limits.execute } : {}),
        },
      ),
    webhookListening(port: number): void {
      parts.late.webhookPort = port;
      const { configHome } = parts;
      if (configHome === undefined) return;
      if (!leaveWebhookNote(configHome, approvalBaseUrl(config, { listeningPort: port }))) {
        logger.warn(
          'could not leave the webhook address note; approval links of other commands name webhook.port',
          { port },
        );
      }
    },
  };
}

/** Recovers runs of dead workers and starts what this process works (Composition.start). */
async function startService(parts: ServiceParts, traces: TracesPart | undefined): Promise<void> {
  const { config, logger } = parts.options;
  const { executor, bus, lifetime } = parts;
  traces?.start();
  if (lifetime.started) return;
  if (!executor) {
    await bus?.open();
    lifetime.started = true;
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
  await parts.management.start();
  lifetime.started = true;
  logger.info(works ? 'workers started' : 'workers off: runs are left to other processes', {
    worker_id: executor.workers.workerId,
    concurrency: runSlotsOf(config),
    workflows: advances,
    scheduler: fires,
    ...(bus ? { bus: bus.url } : {}),
    recovered_requeued: recovered.requeued.length,
    recovered_failed: recovered.failed.length,
  });
}

/** Stops what start() started, newest first (Composition.stop). Idempotent. */
function stopService(
  parts: ServiceParts,
  traces: TracesPart | undefined,
  drainMs: number,
): Promise<{ requeued: number }> {
  const { lifetime } = parts;
  lifetime.stopped ??= (async () => {
    const { executor, bus, configHome } = parts;
    const requeued = executor ? await stopExecutor(parts, executor, drainMs) : 0;
    if (!executor) await bus?.close();
    traces?.stop();
    if (parts.late.webhookPort !== undefined && configHome !== undefined) {
      removeWebhookNote(configHome);
    }
    await parts.metrics.shutdown();
    return { requeued };
  })();
  return lifetime.stopped;
}

/** Stops the executor's parts in the reverse of their start; the runs it requeued. */
async function stopExecutor(
  parts: ServiceParts,
  executor: Executor,
  drainMs: number,
): Promise<number> {
  let requeued = 0;
  // The platform sees the station go before its runs are drained.
  await parts.management.stop();
  if (parts.lifetime.started) {
    // The scheduler first (its lease goes to another process at once), then workflow
    // steps: an agent step's run is then drained like any other.
    await executor.scheduler.stop();
    await executor.workflowWorkers.stop({ drainMs: Math.min(drainMs, 2_000) });
    ({ requeued } = await executor.workers.stop({ drainMs }));
    parts.options.logger.info('workers stopped', { requeued });
  }
  await executor.notifier.close();
  await parts.bus?.close();
  await executor.coding.stop();
  await executor.pool.closeAll();
  await executor.tracing.shutdown();
  return requeued;
}
