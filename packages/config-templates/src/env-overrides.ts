// Environment variables that override config.yaml. One table, so loadConfig, defaultConfigYaml()
// and docs/configuration.md all name the same variables.
import { ConfigError } from './errors.js';

/** How an environment variable's text becomes a config value. */
export type EnvOverrideKind = 'string' | 'boolean' | 'integer' | 'number' | 'headers';

/** One environment variable and the config key it overrides. */
export interface EnvOverride {
  variable: string;
  key: string;
  kind: EnvOverrideKind;
}

/** Every environment variable loadConfig reads. An empty value counts as unset. */
export const ENV_OVERRIDES: readonly EnvOverride[] = [
  { variable: 'JUNCTION_DATABASE_URL', key: 'database_url', kind: 'string' },
  { variable: 'JUNCTION_DATABASE_AUTH_TOKEN', key: 'database_auth_token', kind: 'string' },
  { variable: 'JUNCTION_DATABASE_TIMEOUT_MS', key: 'database_timeout_ms', kind: 'integer' },
  { variable: 'JUNCTION_LOG_LEVEL', key: 'log_level', kind: 'string' },
  { variable: 'JUNCTION_LOG_FORMAT', key: 'log_format', kind: 'string' },
  { variable: 'JUNCTION_AI_PROVIDER', key: 'ai_provider', kind: 'string' },
  { variable: 'JUNCTION_AI_MODEL', key: 'ai_model', kind: 'string' },
  { variable: 'JUNCTION_AI_BASE_URL', key: 'ai_base_url', kind: 'string' },
  { variable: 'JUNCTION_AI_API_KEY', key: 'ai_api_key', kind: 'string' },
  { variable: 'JUNCTION_HOST', key: 'api.host', kind: 'string' },
  { variable: 'JUNCTION_API_PORT', key: 'api.port', kind: 'integer' },
  { variable: 'JUNCTION_MCP_PORT', key: 'mcp.port', kind: 'integer' },
  { variable: 'JUNCTION_WEBHOOK_PORT', key: 'webhook.port', kind: 'integer' },
  { variable: 'JUNCTION_WORKERS', key: 'workers.concurrency', kind: 'integer' },
  { variable: 'JUNCTION_RUN_WORKERS', key: 'workers.runs', kind: 'boolean' },
  { variable: 'JUNCTION_WORKFLOW_ENGINE', key: 'workers.workflows', kind: 'boolean' },
  { variable: 'JUNCTION_SCHEDULER', key: 'workers.scheduler', kind: 'boolean' },
  { variable: 'JUNCTION_QUEUE_NATS_URL', key: 'queue.nats.url', kind: 'string' },
  { variable: 'JUNCTION_WEBHOOK_ENABLED', key: 'webhook.enabled', kind: 'boolean' },
  { variable: 'JUNCTION_MANAGEMENT_ENABLED', key: 'management.enabled', kind: 'boolean' },
  {
    variable: 'JUNCTION_MANAGEMENT_REGISTRATION_KEY',
    key: 'management.registration_key',
    kind: 'string',
  },
  { variable: 'JUNCTION_WEBHOOK_API_KEY', key: 'webhook.api_key', kind: 'string' },
  {
    variable: 'JUNCTION_APPROVAL_WEBHOOK_URL',
    key: 'notifications.approval_webhook_url',
    kind: 'string',
  },
  {
    variable: 'JUNCTION_APPROVAL_WEBHOOK_TIMEOUT',
    key: 'notifications.approval_webhook_timeout',
    kind: 'integer',
  },
  {
    variable: 'JUNCTION_WEBHOOK_SIGNING_SECRET',
    key: 'notifications.signing_secret',
    kind: 'string',
  },
  { variable: 'OTEL_EXPORTER_OTLP_ENDPOINT', key: 'otel_endpoint', kind: 'string' },
  { variable: 'JUNCTION_TRACES_ENABLED', key: 'traces.enabled', kind: 'boolean' },
  { variable: 'OTEL_EXPORTER_OTLP_HEADERS', key: 'telemetry.headers', kind: 'headers' },
  { variable: 'OTEL_EXPORTER_OTLP_CERTIFICATE', key: 'telemetry.certificate', kind: 'string' },
  { variable: 'OTEL_TRACES_SAMPLER', key: 'telemetry.sampler', kind: 'string' },
  { variable: 'OTEL_TRACES_SAMPLER_ARG', key: 'telemetry.sampler_arg', kind: 'number' },
];

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off']);

/** Parses `k=v,k2=v2` (values URL-decoded) as the OpenTelemetry spec defines OTEL_EXPORTER_OTLP_HEADERS. */
export function parseOtlpHeaders(
  text: string,
  variable = 'OTEL_EXPORTER_OTLP_HEADERS',
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const entry of text.split(',')) {
    if (entry.trim() === '') continue;
    const at = entry.indexOf('=');
    const fail = (why: string, cause?: unknown): never => {
      throw new ConfigError(
        'CONFIG_INVALID',
        `Invalid configuration: environment variable ${variable} (telemetry.headers): expected name=value pairs separated by commas, ${why}. Fix the variable, e.g. ${variable}="Authorization=Bearer%20abc,x-team=ops".`,
        { variable, key: 'telemetry.headers' },
        { cause: cause },
      );
    };
    if (at <= 0) fail(`got ${JSON.stringify(entry.trim())} without a name and "="`);
    try {
      const name = decodeURIComponent(entry.slice(0, at)).trim();
      const value = decodeURIComponent(entry.slice(at + 1)).trim();
      if (name === '') fail(`got an empty header name in ${JSON.stringify(entry.trim())}`);
      headers[name] = value;
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      fail(`got a malformed %-escape in ${JSON.stringify(entry.trim())}`, error);
    }
  }
  return headers;
}

function convert(override: EnvOverride, text: string): unknown {
  switch (override.kind) {
    case 'boolean': {
      const word = text.trim().toLowerCase();
      if (TRUE_WORDS.has(word)) return true;
      if (FALSE_WORDS.has(word)) return false;
      return text; // left as text so validation reports "expected true or false, got ..."
    }
    case 'integer':
      return /^\s*-?\d+\s*$/.test(text) ? Number(text) : text;
    case 'number':
      return text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text;
    case 'headers':
      return parseOtlpHeaders(text, override.variable);
    case 'string':
      return text;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Writes the overrides present in `env` into the raw config object; returns key → variable for each one applied. */
export function applyEnvOverrides(
  raw: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): Map<string, string> {
  const applied = new Map<string, string>();
  for (const override of ENV_OVERRIDES) {
    const text = env[override.variable];
    if (text === undefined || text === '') continue;
    let value = convert(override, text);
    const parts = override.key.split('.');
    const leaf = parts.pop() as string;
    let target: Record<string, unknown> | undefined = raw;
    for (const part of parts) {
      if (target[part] === undefined) target[part] = {};
      const next: unknown = target[part];
      // A section that is not a map is the file's mistake: leave it for validation to report.
      target = isPlainObject(next) ? next : undefined;
      if (target === undefined) break;
    }
    if (target === undefined) continue;
    if (override.kind === 'headers' && isPlainObject(target[leaf]) && isPlainObject(value)) {
      value = { ...target[leaf], ...value };
    }
    target[leaf] = value;
    applied.set(override.key, override.variable);
  }
  return applied;
}
