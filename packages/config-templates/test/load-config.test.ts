import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { ENV_OVERRIDES, loadConfig } from '../src/index.js';
import { ConfigError } from '../src/errors.js';
import type { WorkspacePaths } from '../src/index.js';
import { caught, cleanup, tempPaths } from './helpers.js';

afterAll(cleanup);

async function withFile(yaml: string): Promise<WorkspacePaths> {
  const paths = await tempPaths();
  await mkdir(paths.configHome, { recursive: true });
  await writeFile(paths.configFile, yaml);
  return paths;
}

describe('loadConfig defaults', () => {
  it('returns every default when config.yaml does not exist', async () => {
    const paths = await tempPaths();
    const config = loadConfig({ paths, env: {} });
    expect(config.database_url).toBe(`file:${paths.databaseFile}`);
    expect(config.log_level).toBe('info');
    expect(config.log_format).toBe('text');
    expect(config.otel_endpoint).toBeUndefined();
    expect(config.ai_provider).toBe('openai');
    expect(config.ai_model).toBe('gpt-4o-mini');
    expect(config.management).toEqual({
      enabled: false,
      tags: [],
      use_tls: true,
      endpoint: undefined,
      oauth: {
        enabled: false,
        client_id: '',
        scopes: [],
        auth_url: undefined,
        token_url: undefined,
        introspect_url: undefined,
      },
    });
    expect(config.webhook).toEqual({
      enabled: false,
      port: 8587,
      max_body_bytes: 1048576,
      public_url: 'http://127.0.0.1:8587',
    });
    expect(config.notifications).toEqual({
      approval_webhook_timeout: 10,
      webhook_events: ['agent.failed', 'agent.timeout', 'scheduler.error'],
    });
    expect(config.telemetry).toEqual({
      headers: {},
      sampler: 'parentbased_always_on',
      sampler_arg: 1,
    });
    expect(config.coding).toEqual({
      enabled: false,
      backend: 'opencode-nats',
      nats: {
        url: 'nats://127.0.0.1:4222',
        subjects: {
          task: 'svc.coding.task',
          result: 'svc.coding.result',
          stream: 'svc.coding.stream',
        },
      },
      opencode: { url: 'http://127.0.0.1:4096' },
      workspace_base_path: path.join(paths.configHome, 'coding'),
      task_timeout_min: 10,
      max_attempts: 3,
      git: { token_env_var: 'GITHUB_TOKEN', token_from_kv: false },
    });
    expect(config.workers).toEqual({
      concurrency: 4,
      runs: true,
      workflows: true,
      scheduler: true,
    });
    expect(config.queue).toEqual({ nats: { poll_seconds: 5 } });
    expect(config.runs).toEqual({
      timeout_seconds: 600,
      lease_seconds: 60,
      max_attempts: 3,
      on_unknown_outcome: 'error',
      tools: [],
    });
    expect(config.api).toEqual({ host: '127.0.0.1', port: 8585, keys: [] });
    expect(config.mcp).toEqual({ port: 8586 });
    expect(config.pricing).toEqual({});
  });

  it('treats an empty file, a comment-only file and `key:` with no value as "not set"', async () => {
    for (const yaml of ['', '# nothing here\n', 'log_level:\nwebhook:\n  # enabled: true\n']) {
      const config = loadConfig({ paths: await withFile(yaml), env: {} });
      expect(config.log_level).toBe('info');
      expect(config.webhook.enabled).toBe(false);
    }
  });
});

describe('loadConfig file values', () => {
  it('reads every section of config.yaml', async () => {
    const paths = await withFile(`
database_url: data/store.db
log_level: debug
log_format: json
otel_endpoint: http://collector:4318
ai_provider: openai-compatible
ai_model: llama3.1
ai_base_url: http://127.0.0.1:11434/v1
ai_api_key: sk-local
management:
  enabled: true
  registration_key: reg-123
  name: station-a
  tags: [prod, eu]
  endpoint: platform.example.com
  use_tls: false
  base_url: https://platform.example.com/
  oauth:
    enabled: true
    client_id: junction-app
    introspect_url: https://auth.example.com/introspect
webhook:
  enabled: true
  api_key: s3cret
  port: 9587
  max_body_bytes: 2048
notifications:
  approval_webhook_url: https://hooks.example.com/approve
  approval_webhook_timeout: 30
  webhook_url: https://hooks.example.com/alerts
  webhook_events: [agent.failed]
telemetry:
  headers: { x-team: ops }
  sampler: parentbased_traceidratio
  sampler_arg: 0.5
coding:
  backend: opencode
  opencode:
    url: http://coder:4096
  task_timeout_min: 20
  max_attempts: 5
  git:
    token_env_var: GH_PAT
workers: { concurrency: 8 }
runs: { timeout_seconds: 120, lease_seconds: 5 }
api: { host: 0.0.0.0, port: 9585, keys: [k1, k2] }
mcp: { port: 9586 }
`);
    const config = loadConfig({ paths, env: {} });
    expect(config.database_url).toBe(`file:${path.join(paths.configHome, 'data/store.db')}`);
    expect(config.log_level).toBe('debug');
    expect(config.log_format).toBe('json');
    expect(config.otel_endpoint).toBe('http://collector:4318');
    expect(config.ai_provider).toBe('openai-compatible');
    expect(config.ai_base_url).toBe('http://127.0.0.1:11434/v1');
    expect(config.management).toMatchObject({
      enabled: true,
      registration_key: 'reg-123',
      name: 'station-a',
      tags: ['prod', 'eu'],
      endpoint: 'platform.example.com:443',
      use_tls: false,
    });
    expect(config.management.oauth).toEqual({
      enabled: true,
      client_id: 'junction-app',
      scopes: [],
      auth_url: 'https://platform.example.com/oauth/authorize/',
      token_url: 'https://platform.example.com/oauth/token/',
      introspect_url: 'https://auth.example.com/introspect',
    });
    expect(config.webhook).toEqual({
      enabled: true,
      api_key: 's3cret',
      port: 9587,
      max_body_bytes: 2048,
      public_url: 'http://127.0.0.1:9587',
    });
    expect(config.notifications).toEqual({
      approval_webhook_url: 'https://hooks.example.com/approve',
      approval_webhook_timeout: 30,
      webhook_url: 'https://hooks.example.com/alerts',
      webhook_events: ['agent.failed'],
    });
    expect(config.telemetry).toEqual({
      headers: { 'x-team': 'ops' },
      sampler: 'parentbased_traceidratio',
      sampler_arg: 0.5,
    });
    expect(config.coding).toMatchObject({
      enabled: true,
      backend: 'opencode',
      opencode: { url: 'http://coder:4096' },
      task_timeout_min: 20,
      max_attempts: 5,
      git: { token_env_var: 'GH_PAT' },
    });
    expect(config.coding.nats.subjects.task).toBe('svc.coding.task');
    expect(config.workers.concurrency).toBe(8);
    expect(config.runs.timeout_seconds).toBe(120);
    expect(config.runs.lease_seconds).toBe(5);
    expect(config.api).toEqual({ host: '0.0.0.0', port: 9585, keys: ['k1', 'k2'] });
    expect(config.mcp.port).toBe(9586);
  });

  it('derives the OAuth URLs and the channel endpoint from management.base_url', async () => {
    const config = loadConfig({
      paths: await withFile('management:\n  base_url: https://p.example.com\n'),
      env: {},
    });
    expect(config.management.oauth.auth_url).toBe('https://p.example.com/oauth/authorize/');
    expect(config.management.oauth.token_url).toBe('https://p.example.com/oauth/token/');
    expect(config.management.oauth.introspect_url).toBe('https://p.example.com/oauth/introspect/');
    expect(config.management.endpoint).toBe('p.example.com:443');
  });

  it('keeps coding off without a coding section, on with one, and off when it says enabled: false', async () => {
    expect(loadConfig({ paths: await withFile('log_level: info\n'), env: {} }).coding.enabled).toBe(
      false,
    );
    expect(
      loadConfig({ paths: await withFile('coding:\n  max_attempts: 2\n'), env: {} }).coding.enabled,
    ).toBe(true);
    expect(
      loadConfig({ paths: await withFile('coding:\n  enabled: false\n'), env: {} }).coding.enabled,
    ).toBe(false);
  });

  it('accepts libSQL URLs and :memory: for database_url as written', async () => {
    for (const url of [
      'libsql://db.example.com',
      'http://127.0.0.1:8080',
      ':memory:',
      'file:/var/lib/junction.db',
    ]) {
      expect(
        loadConfig({ paths: await withFile(`database_url: "${url}"\n`), env: {} }).database_url,
      ).toBe(url);
    }
  });

  it('uses an explicit webhook.public_url and brackets IPv6 hosts in the derived one', async () => {
    expect(
      loadConfig({
        paths: await withFile('webhook:\n  public_url: https://hooks.example.com\n'),
        env: {},
      }).webhook.public_url,
    ).toBe('https://hooks.example.com');
    expect(
      loadConfig({ paths: await withFile('api:\n  host: "::1"\n'), env: {} }).webhook.public_url,
    ).toBe('http://[::1]:8587');
  });
});

describe('loadConfig pricing', () => {
  it('reads prices by model id, dotted and provider-prefixed ids included', async () => {
    const paths = await withFile(
      [
        'pricing:',
        '  gpt-4.1:',
        '    input_per_million: 1.5',
        '    output_per_million: 6',
        '  openai-compatible/mock: { input_per_million: 0, output_per_million: 0 }',
        '',
      ].join('\n'),
    );
    expect(loadConfig({ paths, env: {} }).pricing).toEqual({
      'gpt-4.1': { input_per_million: 1.5, output_per_million: 6 },
      'openai-compatible/mock': { input_per_million: 0, output_per_million: 0 },
    });
  });

  it.each([
    [
      'pricing:\n  gpt-4o: { input_per_million: -1, output_per_million: 1 }\n',
      'pricing.gpt-4o.input_per_million: expected a price in USD per million tokens, 0 or more, got -1',
    ],
    [
      'pricing:\n  gpt-4o: { input_per_million: 1 }\n',
      'pricing.gpt-4o.output_per_million: expected a price in USD per million tokens, 0 or more, got nothing',
    ],
    [
      'pricing:\n  gpt-4o: { input_per_million: 1, output_per_million: "2" }\n',
      'pricing.gpt-4o.output_per_million: expected a price in USD per million tokens, 0 or more, got "2"',
    ],
    [
      'pricing:\n  gpt-4o: { input_per_million: 1, output_per_million: 2, cached: 1 }\n',
      'pricing.gpt-4o.cached: unknown key',
    ],
    [
      'pricing:\n  "": { input_per_million: 1, output_per_million: 2 }\n',
      'pricing.: expected a model id (not empty), got ""',
    ],
    ['pricing:\n  gpt-4o: 3\n', 'pricing.gpt-4o: expected a map of keys, got 3'],
    ['pricing: [gpt-4o]\n', 'pricing: expected a map of model ids to prices, got a list'],
  ])('rejects %j', async (yaml, expected) => {
    const paths = await withFile(yaml);
    const error = await caught(() => loadConfig({ paths, env: {} }));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain(`${paths.configFile}: ${expected}`);
  });
});

describe('loadConfig environment overrides', () => {
  const cases: [string, string, (c: ReturnType<typeof loadConfig>) => unknown, unknown][] = [
    ['JUNCTION_WEBHOOK_ENABLED', 'true', (c) => c.webhook.enabled, true],
    ['JUNCTION_WEBHOOK_API_KEY', 'env-key', (c) => c.webhook.api_key, 'env-key'],
    ['JUNCTION_MANAGEMENT_ENABLED', 'true', (c) => c.management.enabled, true],
    ['JUNCTION_TRACES_ENABLED', 'off', (c) => c.traces.enabled, false],
    [
      'JUNCTION_MANAGEMENT_REGISTRATION_KEY',
      'reg-key-from-env-0001',
      (c) => c.management.registration_key,
      'reg-key-from-env-0001',
    ],
    [
      'JUNCTION_APPROVAL_WEBHOOK_URL',
      'https://env.example.com/a',
      (c) => c.notifications.approval_webhook_url,
      'https://env.example.com/a',
    ],
    [
      'JUNCTION_APPROVAL_WEBHOOK_TIMEOUT',
      '25',
      (c) => c.notifications.approval_webhook_timeout,
      25,
    ],
    ['JUNCTION_LOG_LEVEL', 'debug', (c) => c.log_level, 'debug'],
    ['JUNCTION_LOG_FORMAT', 'json', (c) => c.log_format, 'json'],
    [
      'JUNCTION_DATABASE_URL',
      'libsql://env.example.com',
      (c) => c.database_url,
      'libsql://env.example.com',
    ],
    ['JUNCTION_DATABASE_AUTH_TOKEN', 'jwt-from-env', (c) => c.database_auth_token, 'jwt-from-env'],
    ['JUNCTION_DATABASE_TIMEOUT_MS', '2500', (c) => c.database_timeout_ms, 2500],
    ['JUNCTION_AI_PROVIDER', 'anthropic', (c) => c.ai_provider, 'anthropic'],
    ['JUNCTION_AI_MODEL', 'claude-x', (c) => c.ai_model, 'claude-x'],
    [
      'JUNCTION_AI_BASE_URL',
      'http://127.0.0.1:8000/v1',
      (c) => c.ai_base_url,
      'http://127.0.0.1:8000/v1',
    ],
    ['JUNCTION_AI_API_KEY', 'sk-env', (c) => c.ai_api_key, 'sk-env'],
    ['JUNCTION_HOST', '0.0.0.0', (c) => c.api.host, '0.0.0.0'],
    ['JUNCTION_API_PORT', '9585', (c) => c.api.port, 9585],
    ['JUNCTION_MCP_PORT', '9586', (c) => c.mcp.port, 9586],
    ['JUNCTION_WEBHOOK_PORT', '9587', (c) => c.webhook.port, 9587],
    ['JUNCTION_WORKERS', '8', (c) => c.workers.concurrency, 8],
    ['JUNCTION_RUN_WORKERS', 'false', (c) => c.workers.runs, false],
    ['JUNCTION_WORKFLOW_ENGINE', 'no', (c) => c.workers.workflows, false],
    ['JUNCTION_SCHEDULER', '0', (c) => c.workers.scheduler, false],
    ['JUNCTION_QUEUE_NATS_URL', 'nats://nats:4222', (c) => c.queue.nats.url, 'nats://nats:4222'],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'http://otel:4318', (c) => c.otel_endpoint, 'http://otel:4318'],
    [
      'OTEL_EXPORTER_OTLP_HEADERS',
      'Authorization=Bearer%20abc,x-team=ops',
      (c) => c.telemetry.headers,
      { Authorization: 'Bearer abc', 'x-team': 'ops' },
    ],
    [
      'OTEL_EXPORTER_OTLP_CERTIFICATE',
      '/etc/ssl/otel-ca.pem',
      (c) => c.telemetry.certificate,
      '/etc/ssl/otel-ca.pem',
    ],
    [
      'OTEL_TRACES_SAMPLER',
      'parentbased_traceidratio',
      (c) => c.telemetry.sampler,
      'parentbased_traceidratio',
    ],
    ['OTEL_TRACES_SAMPLER_ARG', '0.25', (c) => c.telemetry.sampler_arg, 0.25],
    [
      'JUNCTION_WEBHOOK_SIGNING_SECRET',
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      (c) => c.notifications.signing_secret,
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    ],
  ];

  it('covers every variable of the override table', () => {
    expect(cases.map(([variable]) => variable).sort()).toEqual(
      ENV_OVERRIDES.map((o) => o.variable).sort(),
    );
  });

  it.each(cases)('%s=%s overrides the file', async (variable, value, read, expected) => {
    const paths = await withFile(
      'log_level: warn\nwebhook:\n  enabled: false\nmanagement:\n  base_url: https://p.example.com\n',
    );
    expect(read(loadConfig({ paths, env: { [variable]: value } }))).toEqual(expected);
  });

  it('wins over the value in config.yaml and accepts 1/0/yes/no for booleans', async () => {
    const paths = await withFile('log_level: warn\nwebhook:\n  enabled: true\n');
    expect(loadConfig({ paths, env: { JUNCTION_LOG_LEVEL: 'error' } }).log_level).toBe('error');
    expect(loadConfig({ paths, env: { JUNCTION_WEBHOOK_ENABLED: '0' } }).webhook.enabled).toBe(
      false,
    );
    expect(loadConfig({ paths, env: { JUNCTION_WEBHOOK_ENABLED: 'No' } }).webhook.enabled).toBe(
      false,
    );
    expect(loadConfig({ paths, env: { JUNCTION_WEBHOOK_ENABLED: 'yes' } }).webhook.enabled).toBe(
      true,
    );
  });

  it('ignores an empty variable', async () => {
    const paths = await withFile('log_level: warn\n');
    expect(loadConfig({ paths, env: { JUNCTION_LOG_LEVEL: '' } }).log_level).toBe('warn');
  });

  it('adds OTEL_EXPORTER_OTLP_HEADERS to the headers of the file, the variable winning per name', async () => {
    const paths = await withFile('telemetry:\n  headers:\n    x-team: file\n    x-keep: kept\n');
    const config = loadConfig({
      paths,
      env: { OTEL_EXPORTER_OTLP_HEADERS: 'x-team=env, x-extra = a%2Cb' },
    });
    expect(config.telemetry.headers).toEqual({
      'x-team': 'env',
      'x-keep': 'kept',
      'x-extra': 'a,b',
    });
  });

  it('reads process.env and resolvePaths(process.env) when called without options', () => {
    const saved = { ...process.env };
    try {
      process.env.XDG_CONFIG_HOME = '/nonexistent-junction-test-dir';
      process.env.JUNCTION_LOG_LEVEL = 'error';
      const config = loadConfig();
      expect(config.log_level).toBe('error');
      expect(config.database_url).toBe('file:/nonexistent-junction-test-dir/junction/junction.db');
    } finally {
      process.env = saved;
    }
  });
});

describe('loadConfig bad configuration', () => {
  it('reports bad YAML with the file and the line', async () => {
    const paths = await withFile('log_level: info\nwebhook: [1\nnotifications: {}\n');
    const error = await caught(() => loadConfig({ paths, env: {} }));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain(`Invalid YAML in ${paths.configFile} at line 3`);
  });

  it('names the file, the key and the expectation for a wrong type', async () => {
    const paths = await withFile('notifications:\n  approval_webhook_timeout: ten\n');
    const error = await caught(() => loadConfig({ paths, env: {} }));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain(
      `${paths.configFile}: notifications.approval_webhook_timeout: expected a whole number of seconds between 1 and 300, got "ten"`,
    );
    expect(error.details?.problems).toEqual([
      {
        source: paths.configFile,
        key: 'notifications.approval_webhook_timeout',
        message: 'expected a whole number of seconds between 1 and 300, got "ten"',
      },
    ]);
  });

  it.each([
    ['log_level: loud\n', 'log_level: expected one of error, warn, info, debug, got "loud"'],
    ['log_format: xml\n', 'log_format: expected one of text, json, got "xml"'],
    [
      'coding:\n  backend: claude\n',
      'coding.backend: expected one of opencode-nats, opencode, got "claude"',
    ],
    ['webhook:\n  enabled: maybe\n', 'webhook.enabled: expected true or false, got "maybe"'],
    [
      'webhook:\n  port: 70000\n',
      'webhook.port: expected a port number between 1 and 65535, got 70000',
    ],
    ['webhook: 5\n', 'webhook: expected a map of keys, got 5'],
    [
      'notifications:\n  approval_webhook_url: not a url\n',
      'notifications.approval_webhook_url: expected an http:// or https:// URL, got "not a url"',
    ],
    [
      'notifications:\n  webhook_events: [agent.exploded]\n',
      'notifications.webhook_events[0]: expected one of agent.completed, agent.failed, agent.timeout, scheduler.error, workflow.failed, got "agent.exploded"',
    ],
    ['api:\n  keys: k1\n', 'api.keys: expected a list of strings, got "k1"'],
    [
      'coding:\n  nats:\n    url: http://x\n',
      'coding.nats.url: expected a NATS URL such as nats://127.0.0.1:4222, got "http://x"',
    ],
    [
      'telemetry:\n  sampler_arg: 2\n',
      'telemetry.sampler_arg: expected a ratio between 0 and 1, got 2',
    ],
    [
      'management:\n  enabled: true\n',
      'management.endpoint: expected the platform host:port, or management.base_url to derive it from',
    ],
    [
      'management:\n  oauth:\n    enabled: true\n',
      'management.oauth.introspect_url: expected management.base_url or management.oauth.introspect_url',
    ],
    ['- a\n- b\n', '(top level): expected a map of keys, got a list'],
  ])('rejects %j', async (yaml, expected) => {
    const paths = await withFile(yaml);
    const error = await caught(() => loadConfig({ paths, env: {} }));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain(`${paths.configFile}: ${expected}`);
  });

  it('rejects unknown keys and suggests the key that was meant', async () => {
    const paths = await withFile('log_levle: debug\nwebhook:\n  apikey: x\nnonsense_key: 1\n');
    const error = await caught(() => loadConfig({ paths, env: {} }));
    expect(error.message).toContain(
      `${paths.configFile}: log_levle: unknown key (check the spelling; did you mean "log_level"?)`,
    );
    expect(error.message).toContain(
      `${paths.configFile}: webhook.apikey: unknown key (check the spelling; did you mean "webhook.api_key"?)`,
    );
    expect(error.message).toContain(
      `${paths.configFile}: nonsense_key: unknown key (check the spelling)`,
    );
  });

  it('refuses a run lease shorter than its renewal (every third of it, at least 1 s) can keep', async () => {
    const paths = await withFile('runs:\n  lease_seconds: 2\n');
    const error = await caught(() => loadConfig({ paths, env: {} }));
    expect(error.message).toContain(
      'runs.lease_seconds: expected a whole number of seconds between 3 and 3600, got 2',
    );
  });

  it('lists every problem at once', async () => {
    const paths = await withFile('log_level: loud\nworkers:\n  concurrency: 0\n');
    const error = await caught(() => loadConfig({ paths, env: {} }));
    expect(error.details?.problems).toHaveLength(2);
    expect(error.message).toContain(
      'workers.concurrency: expected a whole number of runs between 1 and 256, got 0',
    );
  });

  it('names the environment variable, not the file, for a bad override', async () => {
    const paths = await withFile('log_level: info\n');
    const error = await caught(() =>
      loadConfig({ paths, env: { JUNCTION_WEBHOOK_ENABLED: 'maybe' } }),
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain(
      'environment variable JUNCTION_WEBHOOK_ENABLED (webhook.enabled): expected true or false, got "maybe"',
    );
    expect(error.message).not.toContain(`${paths.configFile}:`);

    const timeout = await caught(() =>
      loadConfig({ paths, env: { JUNCTION_APPROVAL_WEBHOOK_TIMEOUT: 'ten' } }),
    );
    expect(timeout.message).toContain(
      'environment variable JUNCTION_APPROVAL_WEBHOOK_TIMEOUT (notifications.approval_webhook_timeout): expected a whole number of seconds between 1 and 300, got "ten"',
    );
    const level = await caught(() => loadConfig({ paths, env: { JUNCTION_LOG_LEVEL: 'verbose' } }));
    expect(level.message).toContain(
      'environment variable JUNCTION_LOG_LEVEL (log_level): expected one of error, warn, info, debug, got "verbose"',
    );
  });

  it('rejects malformed OTEL_EXPORTER_OTLP_HEADERS with the variable name', async () => {
    const paths = await tempPaths();
    const error = await caught(() =>
      loadConfig({ paths, env: { OTEL_EXPORTER_OTLP_HEADERS: 'Authorization' } }),
    );
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain(
      'environment variable OTEL_EXPORTER_OTLP_HEADERS (telemetry.headers)',
    );
    const badEscape = await caught(() =>
      loadConfig({ paths, env: { OTEL_EXPORTER_OTLP_HEADERS: 'a=%zz' } }),
    );
    expect(badEscape.message).toContain('malformed %-escape');
  });

  it('reports an unreadable config.yaml as CONFIG_UNREADABLE', async () => {
    const paths = await tempPaths();
    await mkdir(paths.configFile, { recursive: true });
    const error = await caught(() => loadConfig({ paths, env: {} }));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.code).toBe('CONFIG_UNREADABLE');
    expect(error.message).toContain(paths.configFile);
  });

  it('carries JSON-safe details', async () => {
    const paths = await withFile('log_level: loud\n');
    const error = await caught(() => loadConfig({ paths, env: {} }));
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      code: 'CONFIG_INVALID',
      message: error.message,
      details: {
        file: paths.configFile,
        problems: [
          {
            source: paths.configFile,
            key: 'log_level',
            message: 'expected one of error, warn, info, debug, got "loud"',
          },
        ],
      },
    });
  });
});
