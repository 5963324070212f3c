// The coding backends of a process: the config's own started with it (so an embedded bus is up
// before the first run), another kind (an agent's coding.backend) made on first use, all
// stopped on shutdown. The NATS client is loaded only when a bus backend is made.
import type { Logger } from '@junction/telemetry';
import type { CodingBackend, CodingBackendKind } from './backend.js';
import type { CodingSettings } from './settings.js';

export interface CodingBackends {
  backend(kind: CodingBackendKind): Promise<CodingBackend>;
  stop(): Promise<void>;
}

export interface CodingBackendsOptions {
  settings: CodingSettings;
  logger: Logger;
  /** JetStream storage of an embedded bus. */
  storeDir: string;
}

async function make(kind: CodingBackendKind, o: CodingBackendsOptions): Promise<CodingBackend> {
  if (kind === 'opencode') {
    const { HttpCodingBackend } = await import('./http-backend.js');
    return new HttpCodingBackend({ settings: o.settings, logger: o.logger });
  }
  const { NatsCodingBackend } = await import('./nats-backend.js');
  const backend = new NatsCodingBackend(o);
  await backend.start();
  return backend;
}

/** Starts the config's backend (when coding is on) and returns every backend on demand. */
export async function startCodingBackends(options: CodingBackendsOptions): Promise<CodingBackends> {
  const made = new Map<CodingBackendKind, Promise<CodingBackend>>();
  const backend = (kind: CodingBackendKind): Promise<CodingBackend> => {
    let b = made.get(kind);
    if (!b) {
      b = make(kind, options);
      made.set(kind, b);
    }
    return b;
  };
  if (options.settings.enabled) {
    for (const warning of options.settings.warnings) options.logger.warn(warning);
    const started = await backend(options.settings.backend);
    const problem = await started.problem();
    if (problem === undefined)
      options.logger.info('coding backend ready', {
        backend: options.settings.backend,
        ...(options.settings.backend === 'opencode'
          ? { url: options.settings.opencodeUrl }
          : { subject: options.settings.nats.subjects.task }),
      });
    else if (options.settings.backend === 'opencode')
      // The bus logs its own failure (`Failed to create NATS backend`); a server may come later.
      options.logger.warn('coding server not reachable yet; coding tools will say so until it is', {
        reason: problem,
      });
  }
  return {
    backend,
    async stop() {
      const all = await Promise.allSettled([...made.values()]);
      made.clear();
      await Promise.all(
        all.map((r) =>
          r.status === 'fulfilled' ? r.value.stop().catch(() => undefined) : undefined,
        ),
      );
    },
  };
}
