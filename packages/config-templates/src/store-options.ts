import type { Config } from './config-schema.js';

/**
 * How every process opens the store the config names: its URL, for a server its token, and how
 * long a call may wait for the server.
 */
export function storeOptionsOf(
  config: Pick<Config, 'database_url' | 'database_auth_token' | 'database_timeout_ms'>,
): {
  url: string;
  authToken?: string;
  timeoutMs?: number;
} {
  return {
    url: config.database_url,
    ...(config.database_auth_token ? { authToken: config.database_auth_token } : {}),
    ...(config.database_timeout_ms === undefined ? {} : { timeoutMs: config.database_timeout_ms }),
  };
}
