import type { Config } from './config-schema.js';

/** How every process opens the store the config names: its URL and, for a server, its token. */
export function storeOptionsOf(config: Pick<Config, 'database_url' | 'database_auth_token'>): {
  url: string;
  authToken?: string;
} {
  return {
    url: config.database_url,
    ...(config.database_auth_token ? { authToken: config.database_auth_token } : {}),
  };
}
