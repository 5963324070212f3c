// The management platform in a long-running process (serve, stdio, api-server): the channel,
// the station it describes and serves (executions go through this process's run door), and the
// run reports. @junction/management-client (and gRPC with it) is imported only when
// `management.enabled` is true: a process without it pays nothing.
import type { RunDoor } from '@junction/agent-core/runs';
import { secretRedactor } from '@junction/agent-core/models';
import { resolvePaths, type Config } from '@junction/config-templates';
import type { Run, Store } from '@junction/store';
import { collectSecretValues, type Logger, type Tracer } from '@junction/telemetry';
import type * as ManagementClient from '@junction/management-client';

/** What /health says of the management channel. */
export type ManagementHealth = 'connected' | 'connecting' | 'disabled' | 'error';

export interface ManagementPart {
  health(): ManagementHealth;
  /** A run finished in this process: report it now rather than at the next look. */
  runFinished(run: Run): void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface ManagementPartOptions {
  config: Config;
  store: Store;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  runs: RunDoor;
  version: string;
  startedAt: Date;
  configHome?: string;
  mode: 'DEPLOYMENT_MODE_SERVE' | 'DEPLOYMENT_MODE_STDIO';
  activeRuns: () => number;
  /** Platform requests become `management.request` spans with the runs they start beneath. */
  tracer?: Tracer;
}

const DISABLED: ManagementPart = {
  health: () => 'disabled',
  runFinished: () => undefined,
  start: async () => undefined,
  stop: async () => undefined,
};

export function managementPart(options: ManagementPartOptions | undefined): ManagementPart {
  if (!options?.config.management.enabled) return DISABLED;
  const { config, store, logger, env } = options;
  let parts:
    | { channel: ManagementClient.ManagementChannel; reporter: ManagementClient.RunReporter }
    | undefined;
  let failed = false;
  return {
    health() {
      if (failed) return 'error';
      const state = parts?.channel.status().state ?? 'connecting';
      return state === 'disabled' ? 'disabled' : state;
    },
    runFinished() {
      parts?.reporter.wake();
    },
    async start() {
      const m = await import('@junction/management-client');
      const configHome = options.configHome ?? resolvePaths(env).configHome;
      let settings: ManagementClient.ManagementSettings;
      try {
        settings = m.managementSettings(config, { configHome });
      } catch (err) {
        // Junction goes on serving everything else; /health says `error`.
        failed = true;
        logger.error(
          `failed to connect to the management platform: ${err instanceof Error ? err.message : String(err)}`,
        );
        return;
      }
      const redactor = secretRedactor([
        ...collectSecretValues(env),
        ...(settings.key !== undefined ? [settings.key] : []),
      ]);
      const channel = new m.ManagementChannel({
        settings,
        station: m.createStation({
          store,
          runs: options.runs,
          logger,
          redactor,
          runTimeoutMs: config.runs.timeout_seconds * 1000,
          ...(options.tracer ? { tracer: options.tracer } : {}),
        }),
        logger,
        version: options.version,
        startedAt: options.startedAt,
        activeRuns: options.activeRuns,
      });
      const reporter = new m.RunReporter({
        store,
        channel,
        logger,
        version: options.version,
        stationName: settings.name,
        environment: settings.environment,
        mode: options.mode,
        redactor,
      });
      parts = { channel, reporter };
      reporter.start();
      channel.start();
    },
    async stop() {
      if (!parts) return;
      await parts.reporter.stop();
      await parts.channel.stop();
    },
  };
}
