// How a container app starts: config from the environment (and config.yaml when present), a
// JSON-lines logger that redacts the process's secrets, the store, and the one composition —
// each closed again if a later step of start-up fails. api-server and webhook-server both
// start here, so neither can read a setting the other ignores.
import {
  loadConfig,
  resolvePaths,
  storeOptionsOf,
  Workspace,
  type Config,
} from '@junction/config-templates';
import { openStore } from '@junction/store';
import { createLogger } from '@junction/telemetry';
import { composeService, type Composition } from './composition.js';
import { logFormatOf } from './env-settings.js';
import { secretsOf } from './service-settings.js';
import { startWithRollback, type OnRollback } from './start-with-rollback.js';

export interface StartAppOptions {
  env: NodeJS.ProcessEnv;
  /** Service name on every log record and on traces. */
  serviceName: string;
  version: string;
  /** Whether the process executes runs (see `ComposeOptions.executes`). */
  executes: boolean;
  /** Where JSON log lines go. Default process.stdout. */
  logStream?: NodeJS.WritableStream;
  /** This process holds the management channel when management.enabled (the api-server). */
  management?: boolean;
}

/**
 * Builds config, logger, store and composition, then runs `mount` (listeners and the rest).
 * When any step throws, everything opened so far — `mount`'s own via `onRollback` — is closed
 * newest first and the error is rethrown after "start-up failed" is logged.
 */
export async function startApp<T>(
  options: StartAppOptions,
  mount: (service: Composition, onRollback: OnRollback, config: Config) => Promise<T>,
): Promise<T> {
  const { env } = options;
  const paths = resolvePaths(env);
  const config = loadConfig({ paths, env });
  const logger = createLogger({
    level: config.log_level,
    format: logFormatOf(env, config),
    stream: options.logStream ?? process.stdout,
    env,
    secrets: secretsOf(config, env),
    base: { service: options.serviceName },
  });
  return startWithRollback(logger, async (onRollback) => {
    // Registered first so it is closed last, after the failure is logged.
    onRollback(() => logger.close());
    const store = await openStore(storeOptionsOf(config));
    onRollback(() => store.close());
    const service = composeService({
      config,
      store,
      logger,
      env,
      serviceName: options.serviceName,
      version: options.version,
      executes: options.executes,
      workspace: new Workspace(paths),
      ...(options.management ? { management: 'serve' as const } : {}),
    });
    onRollback(() => service.stop(0));
    return mount(service, onRollback, config);
  });
}
