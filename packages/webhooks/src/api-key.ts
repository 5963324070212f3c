// The optional static bearer key of the webhook server (webhook.api_key / JUNCTION_WEBHOOK_API_KEY).
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { WebhookError } from './errors.js';

/** What the webhook routes need of their key (service-kit's `keyRing(…, { xApiKey: false })`). */
export interface WebhookKeyRing {
  readonly required: boolean;
  /** The Bearer credential; '' for an unusable one; undefined when none is sent. */
  presented(headers: IncomingHttpHeaders): string | undefined;
  matches(key: string): boolean;
}

/** Why a request is refused by the key check, or undefined when it may pass. */
export type ApiKeyCheck = (req: IncomingMessage) => WebhookError | undefined;

/**
 * The check that admits a request only with `Authorization: Bearer <apiKey>`; with no key
 * configured (undefined or empty) every request passes.
 */
export function apiKeyCheck(keys: WebhookKeyRing | undefined): ApiKeyCheck {
  if (!keys?.required) return () => undefined;
  return (req) => {
    const token = keys.presented(req.headers);
    if (!token) {
      return new WebhookError(
        'BEARER_TOKEN_REQUIRED',
        'bearer token required: send the webhook API key (webhook.api_key) as "Authorization: Bearer <key>".',
      );
    }
    if (!keys.matches(token)) {
      return new WebhookError(
        'INVALID_API_KEY',
        'invalid API key: the bearer token does not match webhook.api_key (JUNCTION_WEBHOOK_API_KEY). Check the key and send it again.',
      );
    }
    return undefined;
  };
}

/** Middleware form of `apiKeyCheck`. */
export function requireApiKey(keys: WebhookKeyRing | undefined): RequestHandler {
  const refusal = apiKeyCheck(keys);
  return (req, _res, next) => next(refusal(req));
}
