// The config.yaml schema (spec §2.4 plus the keys the rest of Junction needs). Every leaf carries
// its own "expected ..." phrase so a bad value is reported as `key: expected X, got Y`, and a
// one-line description (zod meta) that defaultConfigYaml() and the docs test read.
import path from 'node:path';
import { z } from 'zod';
import { expecting } from './errors.js';
import type { WorkspacePaths } from './paths.js';
import { readWebhookSigningSecret } from './webhook-signing-secret.js';

function bool(): z.ZodBoolean {
  return z.boolean({ error: expecting('true or false') });
}

function text(what = 'a string'): z.ZodString {
  const error = expecting(what);
  return z.string({ error }).min(1, { error: expecting(`${what} (not empty)`) });
}

function anyText(): z.ZodString {
  return z.string({ error: expecting('a string') });
}

function httpUrl(): z.ZodURL {
  return z.url({ protocol: /^https?$/, error: expecting('an http:// or https:// URL') });
}

/** A NATS URL (nats://, tls://, ws://, wss://); `example` goes in the error. */
function natsUrl(example: string): z.ZodString {
  return z
    .string({ error: expecting('a NATS URL') })
    .regex(/^(nats|tls|ws|wss):\/\/\S+$/, { error: expecting(`a NATS URL such as ${example}`) });
}

function wholeNumber(unit: string, min: number, max: number): z.ZodNumber {
  const error = expecting(`a whole number of ${unit} between ${min} and ${max}`);
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
}

function port(): z.ZodNumber {
  const error = expecting('a port number between 1 and 65535');
  return z.number({ error }).int({ error }).min(1, { error }).max(65535, { error });
}

function oneOf<const T extends readonly [string, ...string[]]>(
  values: T,
): z.ZodEnum<{ [K in T[number]]: K }> {
  return z.enum(values, { error: expecting(`one of ${values.join(', ')}`) });
}

function strings(): z.ZodArray<z.ZodString> {
  return z.array(z.string({ error: expecting('a string') }), {
    error: expecting('a list of strings'),
  });
}

function stringMap(): z.ZodRecord<z.ZodString, z.ZodString> {
  return z.record(z.string(), z.string({ error: expecting('a string') }), {
    error: expecting('a map of names to strings'),
  });
}

/** A Standard Webhooks secret (`whsec_<base64>`); a refusal says what is wrong, never the value. */
function signingSecret(): z.ZodString {
  return z
    .string({ error: () => 'expected a signing secret (whsec_ followed by base64)' })
    .superRefine((value, ctx) => {
      const reading = readWebhookSigningSecret(value);
      if (!reading.ok) {
        ctx.addIssue({ code: 'custom', message: `not a valid signing secret: ${reading.problem}` });
      }
    });
}

function section<T extends z.core.$ZodLooseShape>(shape: T): z.ZodObject<T, z.core.$strict> {
  return z.strictObject(shape, { error: expecting('a map of keys') });
}

function usdPerMillion(): z.ZodNumber {
  const error = expecting('a price in USD per million tokens, 0 or more');
  return z.number({ error }).min(0, { error });
}

/** config.yaml's `pricing`: model id → USD per million input and output tokens. */
function priceMap(): z.ZodRecord<
  z.ZodString,
  z.ZodObject<{ input_per_million: z.ZodNumber; output_per_million: z.ZodNumber }, z.core.$strict>
> {
  const map = expecting('a map of model ids to prices');
  const key = expecting('a model id (not empty)');
  return z.record(
    z.string().min(1),
    section({ input_per_million: usdPerMillion(), output_per_million: usdPerMillion() }),
    { error: (issue) => (issue.code === 'invalid_key' ? key(issue) : map(issue)) },
  );
}

/** Log levels, most to least severe. */
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
/** Log output formats. */
export const LOG_FORMATS = ['text', 'json'] as const;
/** Model providers Junction ships adapters for. */
export const AI_PROVIDERS = ['openai', 'anthropic', 'google', 'openai-compatible'] as const;
/** Coding backends (spec §2.4). */
export const CODING_BACKENDS = ['opencode-nats', 'opencode'] as const;
/** Events selectable in `notifications.webhook_events`. */
export const NOTIFICATION_EVENTS = [
  'agent.completed',
  'agent.failed',
  'agent.timeout',
  'scheduler.error',
  'workflow.failed',
] as const;
/** OpenTelemetry trace samplers (the values OTEL_TRACES_SAMPLER accepts). */
export const TRACE_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

/** What a resumed run may do with a tool call whose outcome is unknown (`runs.on_unknown_outcome`). */
export const UNKNOWN_OUTCOME_ACTIONS = ['error', 'retry', 'skip'] as const;

/** One rule of `runs.tools`: which tool calls it is for, and how they are resumed. */
const toolRule = section({
  match: z
    .array(text('a tool name or pattern'), { error: expecting('a list of tool names') })
    .min(1, { error: expecting('at least one tool name') }),
  environments: strings().optional(),
  agents: strings().optional(),
  retry: oneOf(['safe'] as const).optional(),
  on_unknown_outcome: oneOf(UNKNOWN_OUTCOME_ACTIONS).optional(),
});

/** Turns `host` into `host:443`; `host:port` stays as written. */
/** `host:port` as given, or a bare host with `:443` (the TLS port) added. */
export function withDefaultPort(endpoint: string): string {
  if (/^\[.*\]:\d+$/.test(endpoint) || /^[^:\]]+:\d+$/.test(endpoint)) return endpoint;
  return `${endpoint}:443`;
}

function joinUrl(base: string, suffix: string): string {
  return `${base.replace(/\/+$/, '')}${suffix}`;
}

/** Accepts a libSQL URL or a file path; a path (relative to the config folder) becomes `file:<absolute path>`. */
function normaliseDatabaseUrl(value: string, configHome: string): string {
  if (value === ':memory:' || /^[a-z][a-z0-9+.-]*:/i.test(value)) return value;
  return `file:${path.resolve(configHome, value)}`;
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * The address of the webhook port as callers reach it when webhook.public_url is not set:
 * `http://<api.host>:<port>` (the any-address as loopback).
 */
export function defaultWebhookUrl(apiHost: string, port: number): string {
  return `http://${urlHost(apiHost)}:${port}`;
}

/** Keys whose default is computed from other keys (or from the file's shape); shown unset in defaultConfigYaml(). */
export const DERIVED_CONFIG_KEYS: readonly string[] = [
  'management.oauth.auth_url',
  'management.oauth.token_url',
  'management.oauth.introspect_url',
  'webhook.public_url',
  'coding.enabled',
];

/** Builds the config.yaml schema; path-dependent defaults come from `paths`. */
// The return type is left to inference on purpose: Config is z.infer of it, so check and type cannot drift.
export function createConfigSchema(paths: WorkspacePaths) {
  const management = section({
    enabled: bool().default(false).meta({
      description: 'Connect to the management platform (registration, heartbeat, run reports).',
    }),
    registration_key: text().optional().meta({
      description:
        'Registration key from the platform dashboard; secret, per environment. When absent, the key stored by `junction auth login` is used; this one wins when both exist.',
    }),
    name: text()
      .optional()
      .meta({ description: 'Station name shown on the platform; unique within the organization.' }),
    tags: strings()
      .default([])
      .meta({ description: 'Tags for filtering and organising stations on the platform.' }),
    endpoint: text('a host or host:port').transform(withDefaultPort).optional().meta({
      description:
        'Platform management channel, host:port (":443" is added to a bare host). Default <host of base_url>:443; one of the two is required when management.enabled is true.',
    }),
    use_tls: bool().default(true).meta({ description: 'Use TLS on the management channel.' }),
    ca_file: text('a file path').optional().meta({
      description:
        'PEM file of a CA trusted for the management channel besides the system CAs (private platforms).',
    }),
    base_url: httpUrl()
      .optional()
      .meta({ description: 'Platform web address; the OAuth URLs are derived from it.' }),
    oauth: section({
      enabled: bool()
        .default(false)
        .meta({ description: 'Require platform OAuth tokens on MCP over HTTP.' }),
      client_id: anyText()
        .default('')
        .meta({ description: 'Client id of the OAuth application created on the platform.' }),
      auth_url: httpUrl()
        .optional()
        .meta({ description: 'Authorization endpoint; default <base_url>/oauth/authorize/.' }),
      token_url: httpUrl()
        .optional()
        .meta({ description: 'Token endpoint; default <base_url>/oauth/token/.' }),
      introspect_url: httpUrl().optional().meta({
        description: 'Token introspection endpoint; default <base_url>/oauth/introspect/.',
      }),
      scopes: strings().default([]).meta({
        description:
          'Scopes a token must hold to use MCP over HTTP (all of them); none required by default.',
      }),
      audience: text().optional().meta({
        description:
          'Audience a token must be issued for, when the introspection answer names one; default the client_id (no check when both are empty).',
      }),
    }).prefault({}),
  })
    .superRefine((value, ctx) => {
      if (value.enabled) {
        if (value.endpoint === undefined && value.base_url === undefined) {
          ctx.addIssue({
            code: 'custom',
            path: ['endpoint'],
            input: undefined,
            message:
              'expected the platform host:port, or management.base_url to derive it from (required when management.enabled is true), got nothing',
          });
        }
      }
      if (
        value.oauth.enabled &&
        value.base_url === undefined &&
        value.oauth.introspect_url === undefined
      ) {
        ctx.addIssue({
          code: 'custom',
          path: ['oauth', 'introspect_url'],
          input: undefined,
          message:
            'expected management.base_url or management.oauth.introspect_url (required when management.oauth.enabled is true), got nothing',
        });
      }
    })
    .transform((value) => {
      const derive = (suffix: string): string | undefined =>
        value.base_url === undefined ? undefined : joinUrl(value.base_url, suffix);
      return {
        ...value,
        endpoint:
          value.endpoint ??
          (value.base_url === undefined ? undefined : `${new URL(value.base_url).host}:443`),
        oauth: {
          ...value.oauth,
          auth_url: value.oauth.auth_url ?? derive('/oauth/authorize/'),
          token_url: value.oauth.token_url ?? derive('/oauth/token/'),
          introspect_url: value.oauth.introspect_url ?? derive('/oauth/introspect/'),
        },
      };
    })
    .prefault({});

  const webhook = section({
    enabled: bool().default(false).meta({
      description:
        'Serve POST /execute on webhook.port; when false that route does not exist (404).',
    }),
    api_key: text().optional().meta({
      description: 'Static key; callers of /execute then send "Authorization: Bearer <key>".',
    }),
    port: port()
      .default(8587)
      .meta({ description: 'Port of /execute, the workflow approval URLs and run status.' }),
    max_body_bytes: wholeNumber('bytes', 1, 100 * 1024 * 1024)
      .default(1024 * 1024)
      .meta({ description: 'Largest accepted request body; larger bodies get 413.' }),
    public_url: httpUrl().optional().meta({
      description:
        'Address on webhook.port as callers reach it, used in approve/reject/view URLs; default http://<api.host>:<webhook.port>.',
    }),
  }).prefault({});

  const notifications = section({
    approval_webhook_url: httpUrl().optional().meta({
      description: 'Where approval.requested is POSTed when a workflow waits for a human.',
    }),
    approval_webhook_timeout: wholeNumber('seconds', 1, 300)
      .default(10)
      .meta({ description: 'Per-attempt timeout of the approval webhook, in seconds.' }),
    webhook_url: httpUrl()
      .optional()
      .meta({ description: 'Alert webhook for the events in webhook_events.' }),
    webhook_events: z
      .array(oneOf(NOTIFICATION_EVENTS), { error: expecting('a list of event names') })
      .default(['agent.failed', 'agent.timeout', 'scheduler.error'])
      .meta({ description: `Events sent to webhook_url: ${NOTIFICATION_EVENTS.join(', ')}.` }),
    signing_secret: signingSecret().optional().meta({
      description:
        'Standard Webhooks secret (whsec_<base64>): every outbound webhook then carries webhook-id, webhook-timestamp and webhook-signature.',
    }),
  }).prefault({});

  const telemetry = section({
    headers: stringMap().default({}).meta({
      description:
        'Extra headers on OTLP exports (e.g. Authorization); the variable (k=v,k2=v2, URL-decoded) adds to them.',
    }),
    certificate: text('a file path')
      .optional()
      .meta({ description: 'PEM file of the CA that signs the OTLP endpoint certificate.' }),
    sampler: oneOf(TRACE_SAMPLERS)
      .default('parentbased_always_on')
      .meta({ description: 'Trace sampler.' }),
    sampler_arg: z
      .number({ error: expecting('a ratio between 0 and 1') })
      .min(0, { error: expecting('a ratio between 0 and 1') })
      .max(1, { error: expecting('a ratio between 0 and 1') })
      .default(1)
      .meta({ description: 'Sampling ratio for the *traceidratio samplers.' }),
  }).prefault({});

  const traces = section({
    enabled: bool().default(true).meta({
      description:
        '`junction serve` and `junction traces` keep traces in the store: the OTLP/HTTP receiver, the trace viewer, and (when otel_endpoint is unset) Junction exporting its own spans there.',
    }),
    receiver_port: port()
      .default(4318)
      .meta({ description: 'Port of the OTLP/HTTP trace receiver (POST /v1/traces).' }),
    viewer_port: port().default(16686).meta({ description: 'Port of the trace viewer.' }),
    retention_days: z
      .number({ error: expecting('days, more than 0 (fractions allowed)') })
      .gt(0, { error: expecting('days, more than 0 (fractions allowed)') })
      .max(3650, { error: expecting('days, at most 3650') })
      .default(7)
      .meta({ description: 'Spans older than this are deleted.' }),
    max_megabytes: wholeNumber('megabytes', 1, 1_000_000)
      .default(256)
      .meta({ description: 'Size cap of stored spans; the oldest traces go first past it.' }),
    max_body_megabytes: wholeNumber('megabytes', 1, 64)
      .default(4)
      .meta({ description: 'Largest OTLP request the receiver accepts (after decompression).' }),
  }).prefault({});

  const coding = section({
    enabled: bool().default(false).meta({
      description:
        'Offer coding tools to agents whose prompt file has coding.enabled; default true when config.yaml has a coding section.',
    }),
    backend: oneOf(CODING_BACKENDS)
      .default('opencode-nats')
      .meta({ description: 'opencode-nats (tasks over the NATS bus) or opencode (direct HTTP).' }),
    nats: section({
      url: natsUrl('nats://127.0.0.1:4222').default('nats://127.0.0.1:4222').meta({
        description:
          'NATS server of the coding bus. On a loopback port nobody listens on, Junction runs its own (embedded) nats-server there.',
      }),
      server_path: text('a file path').optional().meta({
        description:
          'The nats-server binary of the embedded bus; default: nats-server on the PATH, else /usr/sbin/nats-server (Debian package nats-server).',
      }),
      subjects: section({
        task: text()
          .default('svc.coding.task')
          .meta({ description: 'Subject coding tasks are published on.' }),
        result: text()
          .default('svc.coding.result')
          .meta({ description: 'Subject prefix of task results (<result>.<taskID>).' }),
        stream: text()
          .default('svc.coding.stream')
          .meta({ description: 'Subject prefix of task progress events (<stream>.<taskID>).' }),
      }).prefault({}),
    }).prefault({}),
    opencode: section({
      url: httpUrl()
        .default('http://127.0.0.1:4096')
        .meta({ description: 'Coding server for direct HTTP mode.' }),
    }).prefault({}),
    workspace_base_path: text('a folder path')
      .default(path.join(paths.configHome, 'coding'))
      .meta({ description: 'Folder under which coding workspaces are created.' }),
    task_timeout_min: z
      .number({ error: expecting('minutes, more than 0 and at most 1440 (fractions allowed)') })
      .gt(0, { error: expecting('minutes, more than 0 and at most 1440 (fractions allowed)') })
      .max(1440, { error: expecting('minutes, more than 0 and at most 1440 (fractions allowed)') })
      .default(10)
      .meta({
        description: 'Time limit of one coding task, in minutes; fractions allowed (0.5 = 30 s).',
      }),
    max_attempts: wholeNumber('attempts', 1, 10)
      .default(3)
      .meta({ description: 'Attempts per coding task before it is reported failed.' }),
    git: section({
      token_env_var: text('an environment variable name').default('GITHUB_TOKEN').meta({
        description: 'Environment variable that holds the git token for clones and pushes.',
      }),
      token: text().optional().meta({
        description: 'Git token written here directly (discouraged; prefer token_env_var).',
      }),
      token_from_kv: bool().default(false).meta({
        description:
          'Hand the git token to a bus backend through the opencode-state key-value bucket (task field tokenFromKV) instead of in the task (field token).',
      }),
    }).prefault({}),
  }).prefault({});

  return section({
    database_url: text('a libSQL URL or a file path')
      .transform((value) => normaliseDatabaseUrl(value, paths.configHome))
      .default(`file:${paths.databaseFile}`)
      .meta({
        description:
          'Store: file:<path>, a bare path (relative to the config folder), :memory:, or a libsql:// / http(s):// server URL.',
      }),
    database_auth_token: text().optional().meta({
      description:
        'Auth token (JWT) for a libsql:// or http(s):// store server; never logged. Prefer JUNCTION_DATABASE_AUTH_TOKEN.',
    }),
    database_timeout_ms: wholeNumber('milliseconds', 100, 600_000).optional().meta({
      description:
        'How long a call to a libSQL server may wait for its answer before it fails as unavailable (503 with Retry-After); unset = 10000. A local file is not bounded.',
    }),
    log_level: oneOf(LOG_LEVELS)
      .default('info')
      .meta({ description: 'Least severe log level written.' }),
    log_format: oneOf(LOG_FORMATS)
      .default('text')
      .meta({ description: 'text (one readable line per record) or json (spec §6.5 records).' }),
    log_file_max_bytes: wholeNumber('bytes', 4096, 1024 * 1024 * 1024 * 1024)
      .default(20 * 1024 * 1024)
      .meta({
        description:
          'Size at which the log file (logs/junction.log) is rotated to junction.log.1 and a new one begun.',
      }),
    log_file_keep: wholeNumber('files', 1, 1000)
      .default(5)
      .meta({ description: 'Rotated log files kept (junction.log.1 newest); older ones are deleted.' }),
    otel_endpoint: httpUrl().optional().meta({
      description:
        'OTLP/HTTP base URL traces are exported to (e.g. http://127.0.0.1:4318); unset = no export.',
    }),
    ai_provider: oneOf(AI_PROVIDERS)
      .default('openai')
      .meta({ description: `Model provider: ${AI_PROVIDERS.join(', ')} (Ollama, vLLM).` }),
    ai_model: text()
      .default('gpt-4o-mini')
      .meta({ description: 'Model used by agents whose prompt file names no model.' }),
    ai_base_url: httpUrl().optional().meta({
      description:
        "Provider API base URL (required for openai-compatible); unset = the provider's default.",
    }),
    ai_api_key: text().optional().meta({
      description:
        "Provider API key; unset = the provider's usual variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...).",
    }),
    management,
    webhook,
    notifications,
    telemetry,
    traces,
    coding,
    workers: section({
      concurrency: wholeNumber('runs', 1, 256)
        .default(4)
        .meta({ description: 'Runs one process executes at the same time.' }),
      runs: bool().default(true).meta({
        description:
          'Whether this process works agent runs (serve, stdio, api-server, worker); false: it only accepts them (`serve --no-workers`).',
      }),
      workflows: bool().default(true).meta({
        description: 'Whether this process advances workflow runs (the workflow engine).',
      }),
      scheduler: bool().default(true).meta({
        description:
          'Whether this process may fire schedules (the one holding the scheduler lease does).',
      }),
    }).prefault({}),
    queue: section({
      nats: section({
        url: natsUrl('nats://nats:4222 (several: comma-separated)').optional().meta({
          description:
            "NATS server (with JetStream) every host of one store shares: queued runs and due workflow runs are announced on it and taken at once, runs are followed and cancelled across hosts. Unset: the coding bus's server when coding uses one, else workers poll the store.",
        }),
        poll_seconds: wholeNumber('seconds', 1, 3600).default(5).meta({
          description:
            'While the bus is up, how often idle workers still look in the store for runs nobody announced.',
        }),
      }).prefault({}),
    }).prefault({}),
    runs: section({
      timeout_seconds: wholeNumber('seconds', 1, 86400).default(600).meta({
        description: 'Time limit of one agent run; the run then ends with status timeout.',
      }),
      lease_seconds: wholeNumber('seconds', 3, 3600).default(60).meta({
        description:
          "How long a worker's claim on an agent run holds without renewal (renewed every third of it; a workflow run's stays 60 s): a run whose worker died on another host is resumed once its lease has run out. Lower means a faster resume; a worker stalled, or cut off from the store, for longer loses its runs.",
      }),
      max_attempts: wholeNumber('attempts', 1, 100).default(3).meta({
        description:
          'Attempts a run gets: a run whose process keeps dying under it is resumed from its journal until then, and ends error at the limit.',
      }),
      on_unknown_outcome: oneOf(UNKNOWN_OUTCOME_ACTIONS).default('error').meta({
        description:
          'What a resumed run does with a tool call whose outcome is unknown (its process died while it ran) and that is not safe to repeat: error ends the run, retry calls it again, skip tells the model the outcome is unknown.',
      }),
      tools: z
        .array(toolRule, { error: expecting('a list of tool rules') })
        .default([])
        .meta({
          description:
            'Rules per tool (first match wins): match (tool names, * wildcards), optional environments and agents, retry: safe (safe to call again), on_unknown_outcome.',
        }),
    }).prefault({}),
    api: section({
      host: text('a host name or IP address')
        .default('127.0.0.1')
        .meta({ description: 'Address the HTTP servers (REST, MCP, webhook) bind to.' }),
      port: port()
        .default(8585)
        .meta({ description: 'Port of the REST API, /health and /metrics.' }),
      keys: strings().default([]).meta({
        description:
          'Bearer keys accepted by the REST API; empty = no authentication (keep api.host local).',
      }),
    }).prefault({}),
    rate_limit: section({
      enabled: bool().default(false).meta({
        description:
          'Limit requests to the REST API, POST /execute (and the webhook port) and /mcp: a client over its limit gets 429 with Retry-After. Counted per API key (each key its own budget), per client address without a key; per process.',
      }),
      window_seconds: wholeNumber('seconds', 1, 86400)
        .default(60)
        .meta({ description: 'Length of the window the limits count requests in, in seconds.' }),
      requests: wholeNumber('requests', 1, 1_000_000).default(600).meta({
        description: 'Requests one client may make per window on each surface.',
      }),
      rest: wholeNumber('requests', 1, 1_000_000).optional().meta({
        description: 'Requests per window on the REST API (api.port); unset = requests.',
      }),
      execute: wholeNumber('requests', 1, 1_000_000).optional().meta({
        description:
          'Requests per window on the webhook port (POST /execute, approval URLs); unset = requests.',
      }),
      mcp: wholeNumber('requests', 1, 1_000_000).optional().meta({
        description: 'Requests per window on MCP over HTTP (/mcp); unset = requests.',
      }),
      proxy_hops: wholeNumber('proxies', 0, 10).default(0).meta({
        description:
          'Proxies in front of the ports that add X-Forwarded-For: a client without a key is counted by the address that many hops back. 0: by the connection (behind a proxy, all such clients share one budget).',
      }),
    }).prefault({}),
    mcp: section({
      port: port().default(8586).meta({
        description: 'Port of MCP over HTTP (/mcp); `junction serve --mcp-port` overrides it.',
      }),
    }).prefault({}),
    pricing: priceMap().default({}).meta({
      description:
        'Prices of models in USD per million tokens, by model id ({input_per_million, output_per_million}); they win over the built-in list prices and add models, for the cost of runs.',
    }),
  }).transform((config) => ({
    ...config,
    webhook: {
      ...config.webhook,
      public_url:
        config.webhook.public_url ?? defaultWebhookUrl(config.api.host, config.webhook.port),
    },
  }));
}

/** The config.yaml schema type. */
export type ConfigSchema = ReturnType<typeof createConfigSchema>;

/** The resolved configuration: every default filled in, every override applied. */
export type Config = z.infer<ConfigSchema>;

/** One leaf key of the configuration, as listed in docs/configuration.md. */
export interface ConfigKeyInfo {
  /** Dotted key path, e.g. `notifications.approval_webhook_timeout`. */
  key: string;
  /** One-line description. */
  description: string;
}

type SchemaDef = {
  type: string;
  innerType?: z.core.$ZodType;
  in?: z.core.$ZodType;
  shape?: Record<string, z.core.$ZodType>;
};

function defOf(schema: z.core.$ZodType): SchemaDef {
  return schema._zod.def as unknown as SchemaDef;
}

function descriptionOf(schema: z.core.$ZodType): string | undefined {
  const meta = z.globalRegistry.get(schema);
  return typeof meta?.description === 'string' ? meta.description : undefined;
}

/** Lists every leaf key of the configuration schema with its description, in schema order. */
export function listConfigKeys(schema: z.core.$ZodType): ConfigKeyInfo[] {
  const keys: ConfigKeyInfo[] = [];
  const visit = (node: z.core.$ZodType, prefix: string, description: string | undefined): void => {
    const found = description ?? descriptionOf(node);
    const def = defOf(node);
    if (def.type === 'object' && def.shape !== undefined) {
      for (const [name, child] of Object.entries(def.shape))
        visit(child, prefix === '' ? name : `${prefix}.${name}`, undefined);
      return;
    }
    const inner = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
    if (inner !== undefined) {
      visit(inner, prefix, found);
      return;
    }
    keys.push({ key: prefix, description: found ?? '' });
  };
  visit(schema, '', undefined);
  return keys;
}
