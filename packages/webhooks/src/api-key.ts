// The optional static bearer key of the webhook server (webhook.api_key / JUNCTION_WEBHOOK_API_KEY).
import { createKeyCheck } from '@junction/agent-core';
import type { RequestHandler } from 'express';
import { WebhookError } from './errors.js';

const BEARER = /^Bearer[ \t]+(\S.*)$/i;

/**
 * Middleware that admits a request only with `Authorization: Bearer <apiKey>`; with no key
 * configured (undefined or empty) every request passes.
 */
export function requireApiKey(apiKey: string | undefined): RequestHandler {
  if (apiKey === undefined || apiKey === '') return (_req, _res, next) => next();
  // Compared in constant time (agent-core's key check hashes both sides).
  const check = createKeyCheck([apiKey]);
  return (req, _res, next) => {
    const match = BEARER.exec(req.headers.authorization ?? '');
    const token = match?.[1]?.trim();
    if (!token) {
      next(
        new WebhookError(
          'BEARER_TOKEN_REQUIRED',
          'bearer token required: send the webhook API key (webhook.api_key) as "Authorization: Bearer <key>".',
        ),
      );
      return;
    }
    if (!check(token)) {
      next(
        new WebhookError(
          'INVALID_API_KEY',
          'invalid API key: the bearer token does not match webhook.api_key (JUNCTION_WEBHOOK_API_KEY). Check the key and send it again.',
        ),
      );
      return;
    }
    next();
  };
}
