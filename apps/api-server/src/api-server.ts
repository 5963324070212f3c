// The api-server app: the REST API with /health and /metrics on api.port, MCP over HTTP on
// mcp.port, the workers that execute queued runs (whoever queued them: this process, a
// webhook-server, the CLI), and alert notifications. The same pieces as `junction serve`
// without the webhook routes, configured by environment variables.
import { envPortHint, listen, packageVersion, startApp } from '@junction/service-kit';
import { appSettingsOf, stopOnce } from './app-settings.js';

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

/** Builds everything from `env` (and config.yaml when present), binds both ports, starts the workers. */
export async function startApiServer(
  env: NodeJS.ProcessEnv = process.env,
  options: StartOptions = {},
): Promise<ApiServer> {
  const settings = appSettingsOf(env);
  const version = packageVersion(new URL('../package.json', import.meta.url));
  const start = { env, serviceName: SERVICE_NAME, version, executes: true, management: true };
  const logStream = options.logStream ? { logStream: options.logStream } : {};
  return startApp({ ...start, ...logStream }, async (service, onRollback, config) => {
    const { logger } = service;
    const host = config.api.host;
    const restApp = service.restApp();
    const mcp = service.mcpHttp(config.mcp.port);
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
    await service.start();
    const ports = { api: api.port, mcp: mcpHttp.port };
    logger.info('serving', {
      host,
      api_port: ports.api,
      mcp_port: ports.mcp,
      workers: config.workers.concurrency,
      rest_authentication: service.apiKeys.length > 0 ? 'bearer keys' : 'none',
      version,
    });

    return {
      host,
      ports,
      version,
      // Stop accepting first; MCP sessions hold streams open, so they are ended meanwhile.
      stop: stopOnce(service, settings.drainMs, async (drainMs) => {
        const [, , stopped] = await Promise.all([
          api.stop(drainMs),
          Promise.all([mcpHttp.stop(drainMs), mcp.close()]),
          service.stop(drainMs),
        ]);
        return stopped;
      }),
    };
  });
}
