// The one rule for a Standard Webhooks signing secret (notifications.signing_secret): `whsec_`
// followed by the base64 of 24 to 64 random bytes (the specification's bounds for HMAC-SHA256
// secrets). config.yaml's check and the outbound signer both read the secret through here, so a
// secret the config accepts is a secret the signer can use. No message ever quotes the secret.

/** The prefix every Standard Webhooks symmetric secret carries. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** Fewest and most key bytes a signing secret may decode to (Standard Webhooks: 192 to 512 bits). */
export const WEBHOOK_SECRET_BYTES = { min: 24, max: 64 } as const;

/** How to make a good secret; every refusal ends with it. */
export const WEBHOOK_SECRET_HINT = 'make one with: echo "whsec_$(openssl rand -base64 32)"';

/** A secret read: the HMAC key, or what is wrong with the text (never the text itself). */
export type WebhookSecretReading = { ok: true; key: Buffer } | { ok: false; problem: string };

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Reads `whsec_<base64>` into its HMAC key (the decoded bytes after the prefix), or says what is wrong. */
export function readWebhookSigningSecret(secret: string): WebhookSecretReading {
  const fail = (why: string): WebhookSecretReading => ({
    ok: false,
    problem: `${why}; a signing secret is ${WEBHOOK_SECRET_PREFIX} followed by the base64 of ${WEBHOOK_SECRET_BYTES.min} to ${WEBHOOK_SECRET_BYTES.max} random bytes (${WEBHOOK_SECRET_HINT})`,
  });
  const trimmed = secret.trim();
  if (!trimmed.startsWith(WEBHOOK_SECRET_PREFIX)) {
    return fail(`it does not start with "${WEBHOOK_SECRET_PREFIX}"`);
  }
  const encoded = trimmed.slice(WEBHOOK_SECRET_PREFIX.length);
  if (encoded === '') return fail(`nothing follows "${WEBHOOK_SECRET_PREFIX}"`);
  const key = Buffer.from(encoded, 'base64');
  // Node's decoder skips characters it does not know; only a text that round-trips is base64.
  if (!BASE64.test(encoded) || encoded.length % 4 !== 0 || key.toString('base64') !== encoded) {
    return fail(
      `the part after "${WEBHOOK_SECRET_PREFIX}" is not standard base64 (A–Z, a–z, 0–9, +, / and = padding)`,
    );
  }
  if (key.length < WEBHOOK_SECRET_BYTES.min || key.length > WEBHOOK_SECRET_BYTES.max) {
    return fail(`it decodes to ${key.length} bytes`);
  }
  return { ok: true, key };
}
