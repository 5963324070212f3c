// The settings the api-server reads from the environment besides config.yaml's keys (read by
// @junction/config-templates): JUNCTION_DRAIN_SECONDS and JUNCTION_MCP_ALLOWED_HOSTS /
// JUNCTION_MCP_ALLOWED_ORIGINS, all read by @junction/service-kit. Documented in docs/deploy.md.
import { SERVICE_VARIABLES, drainSecondsOf } from '@junction/service-kit';

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
