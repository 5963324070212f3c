// The optional static bearer key of the webhook server (webhook.api_key / JUNCTION_WEBHOOK_API_KEY).
import { createKeyCheck } from '@junction/agent-core';
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { WebhookError } from './errors.js';

const BEARER = /^Bearer[ \t]+(\S.*)$/i;

/** Why a request is refused by the key check, or undefined when it may pass. */
export type ApiKeyCheck = (req: IncomingMessage) => WebhookError | undefined;

/**
 * The check that admits a request only with `Authorization: Bearer <apiKey>`; with no key
 * configured (undefined or empty) every request passes.
 */
export function apiKeyCheck(apiKey: string | undefined): ApiKeyCheck {
  if (apiKey === undefined || apiKey === '') return () => undefined;
  // Compared in constant time (agent-core's key check hashes both sides).
  const check = createKeyCheck([apiKey]);
  return (req) => {
    const match = BEARER.exec(req.headers.authorization ?? '');
    const token = match?.[1]?.trim();
    if (!token) {
      return new WebhookError(
        'BEARER_TOKEN_REQUIRED',
        'bearer token required: send the webhook API key (webhook.api_key) as "Authorization: Bearer <key>".',
      );
    }
    if (!check(token)) {
      return new WebhookError(
        'INVALID_API_KEY',
        'invalid API key: the bearer token does not match webhook.api_key (JUNCTION_WEBHOOK_API_KEY). Check the key and send it again.',
      );
    }
    return undefined;
  };
}

/** Middleware form of `apiKeyCheck`. */
export function requireApiKey(apiKey: string | undefined): RequestHandler {
  const refusal = apiKeyCheck(apiKey);
  return (req, _res, next) => next(refusal(req));
}
