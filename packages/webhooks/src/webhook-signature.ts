// Standard Webhooks signatures (https://www.standardwebhooks.com, symmetric scheme) for every
// outbound webhook: `webhook-id` (one per event, kept by its retries), `webhook-timestamp` (Unix
// seconds of each attempt) and `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`
// under the key the `whsec_` secret decodes to. The secret is read by config-templates' one rule.
import { createHmac, randomBytes } from 'node:crypto';
import { readWebhookSigningSecret } from '@junction/config-templates';
import { WebhookError } from './errors.js';

/** The headers a signed attempt carries. */
export interface SignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** Signs webhook bodies with one secret; built once per delivery options. */
export interface WebhookSigner {
  /** `v1,<base64>` of `<id>.<timestampSeconds>.<body>`. */
  sign(id: string, timestampSeconds: number, body: string): string;
  /** The three headers of an attempt made at `at`. */
  headers(id: string, at: Date, body: string): SignatureHeaders;
}

/** A new message id: `msg_` and 128 random bits in base64url (never a "." the signed text splits on). */
export function newWebhookId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}

/** The signer of a `whsec_` secret; OPTIONS_INVALID (saying what is wrong, never the secret) for a malformed one. */
export function createWebhookSigner(secret: string): WebhookSigner {
  const reading = readWebhookSigningSecret(secret);
  if (!reading.ok) {
    throw new WebhookError(
      'OPTIONS_INVALID',
      `Cannot sign webhooks: notifications.signing_secret is not a valid signing secret: ${reading.problem}.`,
    );
  }
  const key = reading.key;
  const sign = (id: string, timestampSeconds: number, body: string): string =>
    `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
  return {
    sign,
    headers(id: string, at: Date, body: string): SignatureHeaders {
      const timestamp = Math.floor(at.getTime() / 1000);
      return {
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': sign(id, timestamp, body),
      };
    },
  };
}
