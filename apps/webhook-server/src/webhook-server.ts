// The webhook-server app: POST /execute (when webhook.enabled) and GET /runs/:run_id on
// webhook.port, plus GET /health for probes. It runs no workers: a run it accepts is written
// `queued` to the shared store, and an api-server's workers (or `junction serve`) execute it.
import { loadConfig, resolvePaths } from '@junction/config-templates';
import { openStore } from '@junction/store';
import { createLogger } from '@junction/telemetry';
import {
  composeService,
  createHealthRoute,
  drainSecondsOf,
  envPortHint,
  listen,
  logFormatOf,
  packageVersion,
  secretsOf,
  startWithRollback,
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
  const paths = resolvePaths(env);
  const config = loadConfig({ paths, env });
  const version = packageVersion(new URL('../package.json', import.meta.url));
  const startedAt = new Date();
  const host = config.api.host;
  const apiKey = config.webhook.api_key;
  const logger = createLogger({
    level: config.log_level,
    format: logFormatOf(env, config),
    stream: options.logStream ?? process.stdout,
    env,
    secrets: secretsOf(config, env),
    base: { service: SERVICE_NAME },
  });
  return startWithRollback(logger, async (onRollback) => {
    // Registered first so it is closed last, after the failure is logged.
    onRollback(() => logger.close());
    const store = await openStore({ url: config.database_url });
    onRollback(() => store.close());
    const service = composeService({
      config,
      store,
      logger,
      env,
      serviceName: SERVICE_NAME,
      version,
      startedAt,
      executes: false,
    });
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
          await store.close();
          logger.info('stopped');
          await logger.close();
        })();
        return stopping;
      },
    };
  });
}
