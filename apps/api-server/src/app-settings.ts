// The settings the api-server reads from the environment besides config.yaml's keys (read by
// @junction/config-templates): JUNCTION_DRAIN_SECONDS and JUNCTION_MCP_ALLOWED_HOSTS /
// JUNCTION_MCP_ALLOWED_ORIGINS, all read by @junction/service-kit. Documented in docs/deploy.md.
import { SERVICE_VARIABLES, drainSecondsOf, type Composition } from '@junction/service-kit';

/** Variables read by the api-server itself, besides those of docs/configuration.md. */
export const APP_VARIABLES = SERVICE_VARIABLES;

export interface AppSettings {
  /** JUNCTION_DRAIN_SECONDS in milliseconds. */
  drainMs: number;
}

/** Reads the app's own variables; a bad value is SETTING_INVALID naming the variable. */
export function appSettingsOf(env: NodeJS.ProcessEnv): AppSettings {
  return { drainMs: drainSecondsOf(env) * 1000 };
}

/**
 * The stop of a container app, made once however often it is called: `stopParts` (listeners and
 * the composition, given the drain time) together, then the store and the logger.
 */
export function stopOnce(
  service: Pick<Composition, 'store' | 'logger'>,
  drainMs: number,
  stopParts: (drainMs: number) => Promise<{ requeued: number }>,
): () => Promise<{ requeued: number }> {
  let stopping: Promise<{ requeued: number }> | undefined;
  return () =>
    (stopping ??= (async () => {
      service.logger.info('shutting down', { drain_seconds: drainMs / 1000 });
      const { requeued } = await stopParts(drainMs);
      await service.store.close();
      service.logger.info('stopped', { requeued });
      await service.logger.close();
      return { requeued };
    })());
}
