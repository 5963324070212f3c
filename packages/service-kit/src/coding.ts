// The coding tools of a process that executes runs. The coding package (and the NATS client it
// loads for the bus) is imported only when config.yaml has a coding section or an agent's
// prompt file asks for coding: a process without either pays nothing for it.
import path from 'node:path';
import type { RunToolProvider } from '@junction/agent-core/runs';
import { resolvePaths, type Config } from '@junction/config-templates';
import type { Store } from '@junction/store';
import type { Logger } from '@junction/telemetry';
import type * as CodingBus from '@junction/coding-bus';

type CodingModule = typeof CodingBus;
type Backends = CodingBus.CodingBackends;

export interface CodingPart {
  /** Gives coding-enabled agents their tools (and says why an agent has none). */
  provider: RunToolProvider;
  /** Starts the config's coding backend (an embedded bus too) when config.yaml has a coding section. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function codingPart(options: {
  config: Config;
  store: Store;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  /** The workspace's folder; the embedded bus keeps its JetStream data under it. */
  configHome?: string;
}): CodingPart {
  const { config, store, logger, env } = options;
  let mod: Promise<CodingModule> | undefined;
  let backends: Promise<Backends> | undefined;
  let provider: RunToolProvider | undefined;
  const load = (): Promise<CodingModule> => (mod ??= import('@junction/coding-bus'));
  const settingsOf = async () => (await load()).codingSettings(config, env);
  const started = (): Promise<Backends> =>
    (backends ??= (async () => {
      const m = await load();
      const configHome = options.configHome ?? resolvePaths(env).configHome;
      return m.startCodingBackends({
        settings: await settingsOf(),
        logger,
        storeDir: path.join(configHome, 'nats'),
      });
    })());
  return {
    provider: {
      async tools(ctx) {
        if (!config.coding.enabled && ctx.definition.coding?.enabled !== true) return [];
        if (!provider) {
          const m = await load();
          provider = m.createCodingTools({
            settings: await settingsOf(),
            store,
            logger,
            backend: async (kind) => (await started()).backend(kind),
          });
        }
        return provider.tools(ctx);
      },
    },
    async start() {
      if (config.coding.enabled) await started();
    },
    async stop() {
      const b = backends;
      backends = undefined;
      if (b) await (await b).stop();
    },
  };
}
