// The api-server app: the REST API with /health and /metrics on api.port, MCP over HTTP on
// mcp.port, the workers that execute queued runs (whoever queued them: this process, a
// webhook-server, the CLI), and alert notifications. The same pieces as `junction serve`
// without the webhook routes, configured by environment variables.
import { apiKeysOf, createServiceRuntime, createWorkerPool } from '@junction/agent-core';
import { loadConfig, resolvePaths, Workspace } from '@junction/config-templates';
import { createMcpHttpHandler } from '@junction/mcp-server';
import { createRestApp } from '@junction/rest-api';
import { openStore, type Agent } from '@junction/store';
import { createLogger } from '@junction/telemetry';
import {
  envPortHint,
  listen,
  logFormatOf,
  packageVersion,
  startWithRollback,
} from '@junction/service-kit';
import { createNotifier } from '@junction/webhooks';
import { appSettingsOf } from './app-settings.js';

/** Service name on traces and in every log record. */
export const SERVICE_NAME = 'junction-api-server';

export interface StartOptions {
  /** Where JSON log lines go. Default process.stdout. */
  logStream?: NodeJS.WritableStream;
}

export interface ApiServer {
  /** The address the servers are bound to (JUNCTION_HOST). */
  host: string;
  ports: { api: number; mcp: number };
  version: string;
  /**
   * Stops accepting, ends MCP sessions, gives in-flight runs JUNCTION_DRAIN_SECONDS to finish
   * (the rest go back to the queue), sends pending notifications, closes the store. Idempotent.
   */
  stop(): Promise<{ requeued: number }>;
}

/** Host header values an MCP client may send: loopback, the bound address, and the operator's extras. */
function mcpAllowed(
  host: string,
  port: number,
  extra: { hosts: string[]; origins: string[] },
): { allowedHosts: string[]; allowedOrigins: string[] } {
  const names = ['127.0.0.1', 'localhost', '[::1]'];
  if (!['0.0.0.0', '::', '127.0.0.1', 'localhost', '::1'].includes(host)) {
    names.push(host.includes(':') ? `[${host}]` : host);
  }
  return {
    allowedHosts: [...names.map((name) => `${name}:${port}`), ...extra.hosts],
    allowedOrigins: [...names.map((name) => `http://${name}:${port}`), ...extra.origins],
  };
}

/** Builds everything from `env` (and config.yaml when present), binds both ports, starts the workers. */
export async function startApiServer(
  env: NodeJS.ProcessEnv = process.env,
  options: StartOptions = {},
): Promise<ApiServer> {
  const settings = appSettingsOf(env);
  const paths = resolvePaths(env);
  const config = loadConfig({ paths, env });
  const version = packageVersion(new URL('../package.json', import.meta.url));
  const startedAt = new Date();
  const host = config.api.host;
  const apiKeys = apiKeysOf(config, env);
  const logger = createLogger({
    level: config.log_level,
    format: logFormatOf(env, config),
    stream: options.logStream ?? process.stdout,
    env,
    secrets: [
      ...apiKeys,
      ...(config.webhook.api_key ? [config.webhook.api_key] : []),
      ...(config.ai_api_key ? [config.ai_api_key] : []),
    ],
    base: { service: SERVICE_NAME },
  });
  return startWithRollback(logger, async (onRollback) => {
    // Registered first so it is closed last, after the failure is logged.
    onRollback(() => logger.close());
    const store = await openStore({ url: config.database_url });
    onRollback(() => store.close());
    const runtime = createServiceRuntime({
      config,
      store,
      logger,
      serviceName: SERVICE_NAME,
      version,
      env,
      startedAt,
    });
    onRollback(() => runtime.close());
    const notifier = createNotifier({
      store,
      logger,
      ...(config.notifications.webhook_url ? { url: config.notifications.webhook_url } : {}),
      events: config.notifications.webhook_events,
      version,
    });
    onRollback(() => notifier.close());
    const workers = createWorkerPool({
      runtime,
      concurrency: config.workers.concurrency,
      onFinished: (run) => notifier.runFinished(run),
    });
    const checkAgent = (agent: Agent): void => runtime.checkAgent(agent);
    const restApp = createRestApp({
      store,
      queue: workers.queue,
      logger,
      metrics: runtime.metrics,
      version,
      startedAt,
      apiKeys,
      checkAgent,
      workersRunning: () => workers.running(),
      mcpServersActive: () => runtime.pool.activeKeys().length,
    });
    const mcp = createMcpHttpHandler({
      port: config.mcp.port,
      apiKeys,
      ...mcpAllowed(host, config.mcp.port, {
        hosts: settings.mcpAllowedHosts,
        origins: settings.mcpAllowedOrigins,
      }),
      deps: {
        store,
        workspace: new Workspace(paths),
        pool: runtime.pool,
        queue: workers.queue,
        logger,
        version,
        checkAgent,
        processEnv: env,
      },
    });
    onRollback(() => mcp.close());
    // Both ports are bound before the workers start: a port in use leaves nothing running.
    const api = await listen(restApp, {
      host,
      port: config.api.port,
      what: 'REST API',
      hint: envPortHint('JUNCTION_API_PORT'),
    });
    onRollback(() => api.stop(0));
    const mcpHttp = await listen(mcp.app, {
      host,
      port: config.mcp.port,
      what: 'MCP over HTTP',
      hint: envPortHint('JUNCTION_MCP_PORT'),
    });
    onRollback(() => mcpHttp.stop(0));
    onRollback(() => workers.stop(0));
    await workers.start();
    const ports = { api: api.port, mcp: mcpHttp.port };
    logger.info('serving', {
      host,
      api_port: ports.api,
      mcp_port: ports.mcp,
      workers: config.workers.concurrency,
      rest_authentication: apiKeys.length > 0 ? 'bearer keys' : 'none',
      version,
    });

    let stopping: Promise<{ requeued: number }> | undefined;
    return {
      host,
      ports,
      version,
      stop(): Promise<{ requeued: number }> {
        stopping ??= (async () => {
          logger.info('shutting down', { drain_seconds: settings.drainMs / 1000 });
          // Stop accepting first; MCP sessions hold streams open, so they are ended meanwhile.
          const [, , { requeued }] = await Promise.all([
            api.stop(settings.drainMs),
            Promise.all([mcpHttp.stop(settings.drainMs), mcp.close()]),
            workers.stop(settings.drainMs),
          ]);
          await notifier.close();
          await runtime.close();
          await store.close();
          logger.info('stopped', { requeued });
          await logger.close();
          return { requeued };
        })();
        return stopping;
      },
    };
  });
}
