// Builds what a command needs, once, from the environment. Heavy packages are imported
// here lazily so `junction --help` never loads the database driver or the SDKs.
import path from 'node:path';
import { Writable } from 'node:stream';
import type { Pricing } from '@junction/agent-core/views';
import type { Config, WorkspacePaths, Workspace } from '@junction/config-templates';
import type { Store } from '@junction/store';
import type { LogLevel, RootLogger } from '@junction/telemetry';

export interface CliContext {
  paths: WorkspacePaths;
  config: Config;
  workspace: Workspace;
  /** Opens the store on first use; later calls return the same one. */
  store(): Promise<Store>;
  /** The service log: JSON lines in `<workspace>/logs/junction.log`, plus `stream` when given. */
  logger(stream?: NodeJS.WritableStream, options?: { level?: LogLevel }): Promise<RootLogger>;
  /** Throws ENVIRONMENT_NOT_FOUND (exit 4) unless the environment's folder exists. */
  requireEnvironment(name: string): Promise<void>;
  /** What runs cost: config.yaml's `pricing` over the built-in list prices. */
  pricing(): Promise<Pricing>;
  /** Where the service log is kept (read by `junction logs`). */
  logFile: string;
  close(): Promise<void>;
}

/** Resolves the workspace paths and the config; the store is opened on demand. */
export async function createContext(env: NodeJS.ProcessEnv = process.env): Promise<CliContext> {
  const ct = await import('@junction/config-templates');
  const paths = ct.resolvePaths(env);
  const config = ct.loadConfig({ paths, env });
  const workspace = new ct.Workspace(paths);
  let opened: Store | undefined;
  let logger: RootLogger | undefined;
  const logFile = path.join(paths.logsDir, 'junction.log');
  return {
    paths,
    config,
    workspace,
    logFile,
    async requireEnvironment(name: string): Promise<void> {
      if (await workspace.hasEnvironment(name)) return;
      const { AgentCoreError } = await import('@junction/agent-core');
      throw new AgentCoreError(
        'ENVIRONMENT_NOT_FOUND',
        `Environment "${name}" does not exist. \`junction env list\` shows the environments; \`junction env create ${name}\` makes it.`,
        { environment: name },
      );
    },
    async logger(
      stream?: NodeJS.WritableStream,
      options: { level?: LogLevel } = {},
    ): Promise<RootLogger> {
      if (!logger) {
        const { createLogger } = await import('@junction/telemetry');
        logger = createLogger({
          level: options.level ?? config.log_level,
          format: config.log_format,
          // Commands keep the terminal for their own output unless a stream is asked for.
          stream: stream ?? new Writable({ write: (_chunk, _enc, done): void => done() }),
          file: logFile,
          fileRotation: { maxBytes: config.log_file_max_bytes, keep: config.log_file_keep },
        });
      }
      return logger;
    },
    async pricing(): Promise<Pricing> {
      const { createPricing } = await import('@junction/agent-core/views');
      return createPricing(config.pricing);
    },
    async store(): Promise<Store> {
      if (!opened) {
        const { openStore } = await import('@junction/store');
        opened = await openStore(ct.storeOptionsOf(config));
      }
      return opened;
    },
    async close(): Promise<void> {
      await opened?.close();
      await logger?.close();
    },
  };
}
