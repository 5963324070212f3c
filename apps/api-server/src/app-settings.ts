// The settings only the api-server reads, from the environment (config.yaml keys and their
// JUNCTION_* overrides are read by @junction/config-templates; JUNCTION_DRAIN_SECONDS by
// @junction/service-kit). Documented in docs/deploy.md.
import { SERVICE_VARIABLES, drainSecondsOf } from '@junction/service-kit';

/** Variables read by the api-server itself, besides those of docs/configuration.md. */
export const APP_VARIABLES = [
  ...SERVICE_VARIABLES,
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
