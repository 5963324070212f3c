// The worker of the api-server image: only works runs — claims and executes the agent runs any
// process sharing the store queued, advances workflow runs, fires schedules (as
// JUNCTION_WORKFLOW_ENGINE / JUNCTION_SCHEDULER allow), taking announced runs at once when
// JUNCTION_QUEUE_NATS_URL is set. Its one port (JUNCTION_API_PORT) serves /health and /metrics.
import { envPortHint, listen, packageVersion, runSlotsOf, startApp } from '@junction/service-kit';
import type { ApiServer, StartOptions } from './api-server.js';
import { appSettingsOf, stopOnce } from './app-settings.js';

/** Service name of a worker on traces and in every log record. */
export const WORKER_SERVICE_NAME = 'junction-worker';

/** A running worker: its probe port, and the same stop as the api-server's. */
export type Worker = Omit<ApiServer, 'ports'> & { ports: { health: number } };

/** Builds everything from `env`, binds the probe port, starts the workers. */
export async function startWorker(
  env: NodeJS.ProcessEnv = process.env,
  options: StartOptions = {},
): Promise<Worker> {
  const settings = appSettingsOf(env);
  const version = packageVersion(new URL('../package.json', import.meta.url));
  const start = { env, serviceName: WORKER_SERVICE_NAME, version, executes: true };
  const logStream = options.logStream ? { logStream: options.logStream } : {};
  return startApp({ ...start, ...logStream }, async (service, onRollback, config) => {
    const { logger } = service;
    const host = config.api.host;
    const probe = await listen(service.probeApp(), {
      host,
      port: config.api.port,
      what: 'health port',
      hint: envPortHint('JUNCTION_API_PORT'),
    });
    onRollback(() => probe.stop(0));
    await service.start();
    logger.info('working', {
      host,
      health_port: probe.port,
      concurrency: runSlotsOf(config),
      workflows: config.workers.workflows,
      scheduler: config.workers.scheduler,
      bus: service.bus?.url ?? null,
      version,
    });
    return {
      host,
      ports: { health: probe.port },
      version,
      stop: stopOnce(service, settings.drainMs, async (drainMs) => {
        const [, stopped] = await Promise.all([probe.stop(drainMs), service.stop(drainMs)]);
        return stopped;
      }),
    };
  });
}
