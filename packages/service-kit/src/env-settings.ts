// Settings a serving process reads from the environment itself (config.yaml keys and their
// JUNCTION_* overrides are read by @junction/config-templates). Documented in docs/deploy.md.
import { readFileSync } from 'node:fs';
import type { LogFormat } from '@junction/telemetry';
import { ServiceError } from './service-error.js';

/** Default of JUNCTION_DRAIN_SECONDS: how long in-flight work may finish on SIGTERM. */
export const DEFAULT_DRAIN_SECONDS = 10;
/** Largest JUNCTION_DRAIN_SECONDS accepted: one hour. */
export const MAX_DRAIN_SECONDS = 3600;

/** Variables read by service-kit, besides those of docs/configuration.md. */
export const SERVICE_VARIABLES = [
  'JUNCTION_DRAIN_SECONDS',
  'JUNCTION_MCP_ALLOWED_HOSTS',
  'JUNCTION_MCP_ALLOWED_ORIGINS',
  'JUNCTION_ALLOWED_HOSTS',
  'JUNCTION_ALLOWED_ORIGINS',
] as const;

/** JUNCTION_DRAIN_SECONDS, a whole number from 0 to 3600; unset or empty = 10. A bad value is SETTING_INVALID naming the variable. */
export function drainSecondsOf(env: NodeJS.ProcessEnv): number {
  const text = env.JUNCTION_DRAIN_SECONDS?.trim();
  if (text === undefined || text === '') return DEFAULT_DRAIN_SECONDS;
  const seconds = /^\d{1,4}$/.test(text) ? Number(text) : Number.NaN;
  if (!(seconds <= MAX_DRAIN_SECONDS)) {
    throw new ServiceError(
      'SETTING_INVALID',
      `JUNCTION_DRAIN_SECONDS must be a whole number of seconds from 0 to ${MAX_DRAIN_SECONDS}; got ${JSON.stringify(text.slice(0, 40))}.`,
      { variable: 'JUNCTION_DRAIN_SECONDS' },
    );
  }
  return seconds;
}

/** Containers want JSON lines; JUNCTION_LOG_FORMAT=text still gets text. config.yaml's log_format is the CLI's. */
export function logFormatOf(env: NodeJS.ProcessEnv, config: { log_format: LogFormat }): LogFormat {
  return env.JUNCTION_LOG_FORMAT?.trim() ? config.log_format : 'json';
}

/** The version in the package.json at `manifest` (`new URL('../package.json', import.meta.url)`); 0.0.0 when it has none. */
export function packageVersion(manifest: URL): string {
  const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: unknown };
  return typeof parsed.version === 'string' ? parsed.version : '0.0.0';
}
