// A malformed notifications.signing_secret must stop the process at start with a message that
// says what is wrong and how to make a good one — and never quotes the secret itself.
import { mkdir, writeFile } from 'node:fs/promises';
import { afterAll, describe, expect, it } from '@jest/globals';
import { loadConfig, readWebhookSigningSecret } from '../src/index.js';
import { ConfigError } from '../src/errors.js';
import { caught, cleanup, tempPaths } from './helpers.js';

afterAll(cleanup);

// The Standard Webhooks test vector's secret: 24 bytes.
const GOOD = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

const BAD: Array<[string, string, string]> = [
  ['no whsec_ prefix', 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'it does not start with "whsec_"'],
  ['nothing after the prefix', 'whsec_', 'nothing follows "whsec_"'],
  ['not base64', 'whsec_not-base64!not-base64!not-base64!', 'is not standard base64'],
  ['base64url, not base64', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS_', 'is not standard base64'],
  ['too short a key', 'whsec_c2hvcnQtc2VjcmV0LWtleQ==', 'it decodes to 16 bytes'],
  ['too long a key', `whsec_${Buffer.alloc(65, 7).toString('base64')}`, 'it decodes to 65 bytes'],
];

describe('notifications.signing_secret', () => {
  it('accepts a whsec_ secret and keeps it as written', async () => {
    const paths = await tempPaths();
    await mkdir(paths.configHome, { recursive: true });
    await writeFile(paths.configFile, `notifications:\n  signing_secret: ${GOOD}\n`);
    expect(loadConfig({ paths, env: {} }).notifications.signing_secret).toBe(GOOD);
    const reading = readWebhookSigningSecret(GOOD);
    expect(reading.ok && reading.key.length).toBe(24);
  });

  it.each(BAD)('refuses %s in config.yaml without printing it', async (_, secret, problem) => {
    const paths = await tempPaths();
    await mkdir(paths.configHome, { recursive: true });
    await writeFile(paths.configFile, `notifications:\n  signing_secret: "${secret}"\n`);
    const error = await caught(() => loadConfig({ paths, env: {} }));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain('notifications.signing_secret: not a valid signing secret: ');
    expect(error.message).toContain(problem);
    expect(error.message).toContain('openssl rand -base64 32');
    const withoutPrefix = secret.replace(/^whsec_/, '');
    if (withoutPrefix.length > 0) {
      expect(error.message).not.toContain(withoutPrefix);
      expect(JSON.stringify(error.details)).not.toContain(withoutPrefix);
    }
  });

  it('names JUNCTION_WEBHOOK_SIGNING_SECRET when the variable is the bad one', async () => {
    const paths = await tempPaths();
    const secret = 'hunter2-hunter2-hunter2-hunter2';
    const error = await caught(() =>
      loadConfig({ paths, env: { JUNCTION_WEBHOOK_SIGNING_SECRET: secret } }),
    );
    expect(error.message).toContain(
      'environment variable JUNCTION_WEBHOOK_SIGNING_SECRET (notifications.signing_secret): not a valid signing secret: it does not start with "whsec_"',
    );
    expect(error.message).not.toContain(secret);
  });

  it('refuses a value that is not text without quoting it', async () => {
    const paths = await tempPaths();
    await mkdir(paths.configHome, { recursive: true });
    await writeFile(paths.configFile, 'notifications:\n  signing_secret: 123456789012\n');
    const error = await caught(() => loadConfig({ paths, env: {} }));
    expect(error.message).toContain(
      'notifications.signing_secret: expected a signing secret (whsec_ followed by base64)',
    );
    expect(error.message).not.toContain('123456789012');
  });
});
