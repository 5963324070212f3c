// The settings only the apps read, from the environment (config.yaml keys and their JUNCTION_*
// overrides are read by @junction/config-templates). Documented in docs/deploy.md.
import { readFileSync } from 'node:fs';
import type { Config } from '@junction/config-templates';
import type { LogFormat } from '@junction/telemetry';
import { ApiServerError } from './api-server-error.js';

/** Default of JUNCTION_DRAIN_SECONDS: how long in-flight runs may finish on SIGTERM. */
export const DEFAULT_DRAIN_SECONDS = 10;
/** Largest JUNCTION_DRAIN_SECONDS accepted: one hour. */
export const MAX_DRAIN_SECONDS = 3600;

/** Variables read by the api-server itself, besides those of docs/configuration.md. */
export const APP_VARIABLES = [
  'JUNCTION_DRAIN_SECONDS',
  'JUNCTION_MCP_ALLOWED_HOSTS',
  'JUNCTION_MCP_ALLOWED_ORIGINS',
] as const;

export interface AppSettings {
  /** JUNCTION_DRAIN_SECONDS in milliseconds. */
  drainMs: number;
  /** JUNCTION_MCP_ALLOWED_HOSTS: Host header values accepted on /mcp besides the loopback ones. */
  mcpAllowedHosts: string[];
  /** JUNCTION_MCP_ALLOWED_ORIGINS: Origin values accepted on /mcp besides the loopback ones. */
  mcpAllowedOrigins: string[];
}

function list(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** Reads the app's own variables; a bad value is SETTING_INVALID naming the variable. */
export function appSettingsOf(env: NodeJS.ProcessEnv): AppSettings {
  return {
    drainMs: drainSecondsOf(env) * 1000,
    mcpAllowedHosts: list(env.JUNCTION_MCP_ALLOWED_HOSTS),
    mcpAllowedOrigins: list(env.JUNCTION_MCP_ALLOWED_ORIGINS),
  };
}

/** JUNCTION_DRAIN_SECONDS, a whole number from 0 to 3600; unset or empty = 10. */
export function drainSecondsOf(env: NodeJS.ProcessEnv): number {
  const text = env.JUNCTION_DRAIN_SECONDS?.trim();
  if (text === undefined || text === '') return DEFAULT_DRAIN_SECONDS;
  const seconds = /^\d{1,4}$/.test(text) ? Number(text) : Number.NaN;
  if (!(seconds <= MAX_DRAIN_SECONDS)) {
    throw new ApiServerError(
      'SETTING_INVALID',
      `JUNCTION_DRAIN_SECONDS must be a whole number of seconds from 0 to ${MAX_DRAIN_SECONDS}; got ${JSON.stringify(text.slice(0, 40))}.`,
      { variable: 'JUNCTION_DRAIN_SECONDS' },
    );
  }
  return seconds;
}

/** Containers want JSON lines; JUNCTION_LOG_FORMAT=text still gets text. config.yaml's log_format is the CLI's. */
export function logFormatOf(env: NodeJS.ProcessEnv, config: Config): LogFormat {
  return env.JUNCTION_LOG_FORMAT?.trim() ? config.log_format : 'json';
}

/** The version in this app's package.json (beside dist/ and src/ alike). */
export function appVersion(): string {
  const manifest = JSON.parse(
    readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
  ) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : '0.0.0';
}
