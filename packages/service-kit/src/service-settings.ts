// Settings every serving process derives the same way from the config and the environment.
import { WEBHOOK_SECRET_PREFIX, type Config } from '@junction/config-templates';
import type { McpOAuthOptions } from '@junction/mcp-server';
import { PROVIDER_KEY_ENV } from '@junction/agent-core/models';
import { MIN_SECRET_LENGTH } from '@junction/telemetry';

/** REST and MCP keys: config `api.keys` plus `JUNCTION_API_KEY` when set; blanks dropped. */
export function apiKeysOf(config: Config, env: NodeJS.ProcessEnv = process.env): string[] {
  const extra = env.JUNCTION_API_KEY?.trim();
  return [...config.api.keys, ...(extra ? [extra] : [])].filter((key) => key.trim() !== '');
}

/** The secrets a process's log redacts besides the environment's: API keys, the webhook key, the model key, the registration key, the store's token, the webhook signing secret (whole and its base64 part). */
export function secretsOf(config: Config, env: NodeJS.ProcessEnv = process.env): string[] {
  return [
    ...apiKeysOf(config, env),
    ...(config.webhook.api_key ? [config.webhook.api_key] : []),
    ...(config.ai_api_key ? [config.ai_api_key] : []),
    ...(config.management.registration_key ? [config.management.registration_key] : []),
    ...(config.database_auth_token ? [config.database_auth_token] : []),
    ...signingSecretOf(config),
  ];
}

/** notifications.signing_secret as written and without its `whsec_` prefix: either may be quoted. */
function signingSecretOf(config: Config): string[] {
  const secret = config.notifications.signing_secret?.trim();
  return secret ? [secret, secret.slice(WEBHOOK_SECRET_PREFIX.length)] : [];
}

function list(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/**
 * Host and Origin values an MCP client may send on `port`: loopback, the bound address, and
 * the operator's extras from JUNCTION_MCP_ALLOWED_HOSTS / JUNCTION_MCP_ALLOWED_ORIGINS.
 */
export function mcpAllowedOf(
  host: string,
  port: number,
  env: NodeJS.ProcessEnv = process.env,
): { allowedHosts: string[]; allowedOrigins: string[] } {
  const names = ['127.0.0.1', 'localhost', '[::1]'];
  if (!['0.0.0.0', '::', '127.0.0.1', 'localhost', '::1'].includes(host)) {
    names.push(host.includes(':') ? `[${host}]` : host);
  }
  return {
    allowedHosts: [
      ...names.map((name) => `${name}:${port}`),
      ...list(env.JUNCTION_MCP_ALLOWED_HOSTS),
    ],
    allowedOrigins: [
      ...names.map((name) => `http://${name}:${port}`),
      ...list(env.JUNCTION_MCP_ALLOWED_ORIGINS),
    ],
  };
}

/**
 * The names of configured secrets too short to be redacted safely (under MIN_SECRET_LENGTH):
 * they are never redacted, so a process warns about them at start-up. Values never leave here.
 */
export function shortSecretsOf(config: Config, env: NodeJS.ProcessEnv = process.env): string[] {
  const named: Array<[string, string | undefined]> = [
    ...config.api.keys.map((key, i): [string, string] => [`api.keys[${i}]`, key]),
    ['JUNCTION_API_KEY', env.JUNCTION_API_KEY],
    ['webhook.api_key', config.webhook.api_key ?? undefined],
    ['ai_api_key', config.ai_api_key ?? undefined],
    ...Object.values(PROVIDER_KEY_ENV)
      .flat()
      .map((name): [string, string | undefined] => [name, env[name]]),
  ];
  return named
    .filter(([, value]) => value !== undefined && value.trim() !== '')
    .filter(([, value]) => (value ?? '').trim().length < MIN_SECRET_LENGTH)
    .map(([name]) => name);
}

/**
 * The OAuth guard of MCP over HTTP when `management.oauth.enabled`: the platform (base_url, else
 * the origin of introspect_url) is the authorization server; its URLs are the config's, derived
 * from it where unset.
 */
export function mcpOAuthOf(config: Config): McpOAuthOptions | undefined {
  const oauth = config.management.oauth;
  if (!oauth.enabled || oauth.introspect_url === undefined) return undefined;
  const issuer = (config.management.base_url ?? new URL(oauth.introspect_url).origin).replace(
    /\/+$/,
    '',
  );
  return {
    issuer,
    authUrl: oauth.auth_url ?? `${issuer}/oauth/authorize/`,
    tokenUrl: oauth.token_url ?? `${issuer}/oauth/token/`,
    introspectUrl: oauth.introspect_url,
    clientId: oauth.client_id,
    scopes: oauth.scopes,
    ...(oauth.audience !== undefined ? { audience: oauth.audience } : {}),
  };
}
