import { describe, expect, it } from '@jest/globals';
import {
  collectSecretValues,
  createRedactor,
  isSecretKey,
  redact,
  redactText,
  redactUrl,
} from '../src/index.js';
import { REDACTED } from '../src/redact.js';

describe('isSecretKey', () => {
  it.each([
    'token',
    'api_key',
    'apiKey',
    'OPENAI_API_KEY',
    'x-api-key',
    'registration_key',
    'key',
    'accessToken',
    'refresh_token',
    'client_secret',
    'password',
    'db_password',
    'Authorization',
    'proxy-authorization',
    'cookie',
    'Set-Cookie',
    'credentials',
    'X-Amz-Signature',
  ])('treats %s as secret', (key) => {
    expect(isSecretKey(key)).toBe(true);
  });

  it.each([
    'input_tokens',
    'output_tokens',
    'max_tokens',
    'tokenizer',
    'key_count',
    'keys',
    'api_key_id',
    'token_url',
    'token_env_var',
    'password_file',
    'client_secret_expires_at',
    'monkey',
    'agent_name',
    'run_id',
    'status',
  ])('keeps %s', (key) => {
    expect(isSecretKey(key)).toBe(false);
  });
});

describe('redact', () => {
  it('replaces secret keys at any depth but keeps token counts and booleans', () => {
    const out = redact({
      agent_name: 'ops',
      input_tokens: 120,
      has_token: true,
      config: { webhook: { api_key: 'k-123456789' }, headers: { Authorization: 'Bearer abc' } },
      list: [{ password: 'hunter22' }, { note: 'fine' }],
    });
    expect(out).toEqual({
      agent_name: 'ops',
      input_tokens: 120,
      has_token: true,
      config: { webhook: { api_key: REDACTED }, headers: { Authorization: REDACTED } },
      list: [{ password: REDACTED }, { note: 'fine' }],
    });
  });

  it('replaces known secret values inside any string, longest first', () => {
    const out = redact({ message: 'called with sk-live-abcdef and sk-live-abcdef-extra' }, [
      'sk-live-abcdef',
      'sk-live-abcdef-extra',
    ]);
    expect(out).toEqual({ message: `called with ${REDACTED} and ${REDACTED}` });
  });

  it('turns errors into JSON-safe objects with redacted message, stack and cause', () => {
    const secret = 'ghp_0123456789abcdef';
    const error = new Error(`clone failed for https://${secret}@github.com/acme/repo`, {
      cause: new Error(`token ${secret} rejected`),
    });
    const out = redact({ error }, [secret]) as { error: Record<string, unknown> };
    expect(out.error.name).toBe('Error');
    expect(out.error.message).toBe(`clone failed for https://${REDACTED}@github.com/acme/repo`);
    expect((out.error.cause as Record<string, unknown>).message).toBe(`token ${REDACTED} rejected`);
    expect(JSON.stringify(out)).not.toContain(secret);
  });

  it('survives cycles, bigints, dates and maps', () => {
    const node: Record<string, unknown> = { name: 'a' };
    node.self = node;
    const out = redact({
      node,
      big: 10n,
      at: new Date('2026-01-02T03:04:05.000Z'),
      map: new Map([['secret', 'x-very-secret']]),
    });
    expect(out).toEqual({
      node: { name: 'a', self: '[Circular]' },
      big: '10',
      at: '2026-01-02T03:04:05.000Z',
      map: { secret: REDACTED },
    });
  });

  it('does not change the input', () => {
    const input = { token: 'abcdefgh' };
    redact(input);
    expect(input.token).toBe('abcdefgh');
  });
});

describe('redactText', () => {
  it('hides bearer tokens but keeps prose about them', () => {
    expect(redactText('header Authorization: Bearer eyJhbGciOi.payload.sig sent')).toBe(
      `header Authorization: Bearer ${REDACTED} sent`,
    );
    expect(redactText('Bearer authentication is required')).toBe(
      'Bearer authentication is required',
    );
  });

  it('hides credentials of URLs inside text', () => {
    expect(redactText('connect to postgres://app:s3cretpass@db:5432/x failed')).toBe(
      `connect to postgres://app:${REDACTED}@db:5432/x failed`,
    );
  });
});

describe('redactUrl', () => {
  it('redacts token-like path segments such as chat webhook secrets, keeping ordinary paths', () => {
    expect(
      redactUrl('https://hooks.slack.com/services/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'),
    ).toBe('https://hooks.slack.com/services/T0ABC1234/B0ABC5678/[REDACTED]');
    expect(
      redactUrl(
        'https://discord.com/api/webhooks/123456789012345678/Abc_def-123456789XYZabcdef?wait=true',
      ),
    ).toBe('https://discord.com/api/webhooks/123456789012345678/[REDACTED]?wait=true');
    expect(redactUrl('http://127.0.0.1:4318/v1/traces')).toBe('http://127.0.0.1:4318/v1/traces');
    expect(redactUrl('https://example.com/alerts/incoming-webhook-endpoint')).toBe(
      'https://example.com/alerts/incoming-webhook-endpoint',
    );
  });

  it('hides the password and keeps the user', () => {
    expect(redactUrl('https://user:pa55word@example.com/path')).toBe(
      `https://user:${REDACTED}@example.com/path`,
    );
  });

  it('hides a lone user name that looks like a token, keeps short ones', () => {
    expect(redactUrl('https://ghp_abcdefghijklmnop1234@github.com/a/b.git')).toBe(
      `https://${REDACTED}@github.com/a/b.git`,
    );
    expect(redactUrl('ssh://git@github.com/a/b.git')).toBe('ssh://git@github.com/a/b.git');
  });

  it('hides secret query parameters and keeps the others and the fragment', () => {
    expect(
      redactUrl('https://h.example/cb?code_type=x&access_token=abc&api_key=def&page=2#top'),
    ).toBe(
      `https://h.example/cb?code_type=x&access_token=${REDACTED}&api_key=${REDACTED}&page=2#top`,
    );
  });

  it('leaves a URL without credentials unchanged', () => {
    expect(redactUrl('http://localhost:4318/v1/traces')).toBe('http://localhost:4318/v1/traces');
  });
});

describe('collectSecretValues', () => {
  it('takes values of secret-looking variables of at least 6 characters', () => {
    const values = collectSecretValues({
      GITHUB_TOKEN: 'ghp_1234567890',
      JUNCTION_WEBHOOK_API_KEY: 'whk-abcdef',
      AWS_SECRET_ACCESS_KEY: 'aws/secret/value',
      DB_PASSWORD: 'hunter2hunter2',
      SHORT_TOKEN: 'abc',
      HOME: '/home/someone',
      PORT: '8585',
      MONKEY_BUSINESS: 'bananas-everywhere',
      EMPTY_SECRET: undefined,
    });
    expect(values.sort()).toEqual([
      'aws/secret/value',
      'ghp_1234567890',
      'hunter2hunter2',
      'whk-abcdef',
    ]);
  });
});

describe('createRedactor', () => {
  it('ignores empty (and too short) secrets and sorts the rest longest first', () => {
    const redactor = createRedactor(['', 'abcdef', 'abcdefgh', 'abcdefghij']);
    expect(redactor.secrets).toEqual(['abcdefghij', 'abcdefgh']);
    expect(redactor.text('abcdefghij abcdefgh abcdef')).toBe(`${REDACTED} ${REDACTED} abcdef`);
  });
});

describe('mapStrings', () => {
  it('applies a function to every string at any depth and keeps everything else', async () => {
    const { mapStrings } = await import('../src/index.js');
    const input = { a: 'x', n: 1, nil: null, list: ['y', 2, { deep: 'z', ok: true }] };
    expect(mapStrings(input, (t) => t.toUpperCase())).toEqual({
      a: 'X',
      n: 1,
      nil: null,
      list: ['Y', 2, { deep: 'Z', ok: true }],
    });
    expect(input.a).toBe('x');
    expect(mapStrings('s', (t) => `${t}!`)).toBe('s!');
  });
});
