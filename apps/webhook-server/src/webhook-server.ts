// The webhook-server app: POST /execute (when webhook.enabled) and GET /runs/:run_id on
// webhook.port, plus GET /health for probes. It runs no workers: a run it accepts is written
// `queued` to the shared store, and an api-server's workers (or `junction serve`) execute it.
import {
  createHealthRoute,
  drainSecondsOf,
  envPortHint,
  listen,
  packageVersion,
  startApp,
} from '@junction/service-kit';

/** Service name in every log record. */
export const SERVICE_NAME = 'junction-webhook-server';

export interface StartOptions {
  /** Where JSON log lines go. Default process.stdout. */
  logStream?: NodeJS.WritableStream;
}

export interface WebhookServer {
  /** The address the server is bound to (JUNCTION_HOST). */
  host: string;
  ports: { webhook: number };
  version: string;
  /** Stops accepting, lets in-flight requests finish (at most JUNCTION_DRAIN_SECONDS), closes the store. Idempotent. */
  stop(): Promise<void>;
}

/** Builds everything from `env` (and config.yaml when present) and binds webhook.port. */
export async function startWebhookServer(
  env: NodeJS.ProcessEnv = process.env,
  options: StartOptions = {},
): Promise<WebhookServer> {
  const drainMs = drainSecondsOf(env) * 1000;
  const version = packageVersion(new URL('../package.json', import.meta.url));
  const start = { env, serviceName: SERVICE_NAME, version, executes: false };
  const logStream = options.logStream ? { logStream: options.logStream } : {};
  return startApp({ ...start, ...logStream }, async (service, _onRollback, config) => {
    const { store, logger, startedAt } = service;
    const host = config.api.host;
    const apiKey = config.webhook.api_key;
    // Probes need no key, and /health is not a webhook route.
    const app = service.webhookApp({
      health: createHealthRoute({ store, version, startedAt, logger, redactor: logger.redactor }),
    });
    const http = await listen(app, {
      host,
      port: config.webhook.port,
      what: 'webhook routes',
      hint: envPortHint('JUNCTION_WEBHOOK_PORT'),
    });
    // Approval links name the port the routes listen on.
    service.webhookListening(http.port);
    const ports = { webhook: http.port };
    logger.info('serving', {
      host,
      webhook_port: ports.webhook,
      execute: config.webhook.enabled ? 'enabled' : 'disabled (JUNCTION_WEBHOOK_ENABLED)',
      authentication: apiKey ? 'bearer key' : 'none',
      version,
    });
    if (!config.webhook.enabled) {
      logger.warn('POST /execute is disabled: set JUNCTION_WEBHOOK_ENABLED=true to accept runs');
    }

    let stopping: Promise<void> | undefined;
    return {
      host,
      ports,
      version,
      stop(): Promise<void> {
        stopping ??= (async () => {
          logger.info('shutting down', { drain_seconds: drainMs / 1000 });
          await http.stop(drainMs);
          await service.stop(0);
          await store.close();
          logger.info('stopped');
          await logger.close();
        })();
        return stopping;
      },
    };
  });
}
