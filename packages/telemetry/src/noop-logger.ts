import type { Logger } from './logger.js';

/** A Logger that writes nothing: for tests and for code paths that run before logging is configured. */
export function createNoopLogger(): Logger {
  const logger: Logger = {
    error: () => undefined,
    warn: () => undefined,
    info: () => undefined,
    debug: () => undefined,
    child: () => logger,
  };
  return logger;
}
