// Optional API keys for the REST API: `Authorization: Bearer <key>` or `X-API-Key: <key>`,
// compared in constant time against every configured key.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { RestApiError } from './errors.js';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * The key a request presents: a Bearer credential, else X-API-Key. `''` when it presents an
 * unusable one (an empty key, or only another scheme such as Basic), undefined when none.
 */
export function presentedKey(req: Request): string | undefined {
  const header = req.headers.authorization;
  const bearer = header === undefined ? undefined : /^Bearer[ \t]+(.*)$/i.exec(header.trim());
  if (bearer) return (bearer[1] ?? '').trim();
  const apiKey = req.headers['x-api-key'];
  if (typeof apiKey === 'string') return apiKey.trim();
  return header === undefined ? undefined : '';
}

/**
 * True when `key` is one of the configured keys. SHA-256 digests have equal lengths, so
 * timingSafeEqual applies, and every key is compared so the time does not tell which matched.
 */
export function keyMatches(key: string, keyDigests: readonly Buffer[]): boolean {
  const presented = digest(key);
  let matched = false;
  for (const expected of keyDigests) matched = timingSafeEqual(presented, expected) || matched;
  return matched;
}

/** Middleware that refuses requests without a valid key (401 with `WWW-Authenticate: Bearer`). */
export function apiKeyAuth(keys: readonly string[]): RequestHandler {
  const digests = keys.map(digest);
  return (req: Request, res: Response, next: NextFunction): void => {
    const key = presentedKey(req);
    if (key === undefined) {
      res.set('WWW-Authenticate', 'Bearer realm="junction"');
      next(
        new RestApiError(
          'API_KEY_MISSING',
          'This API requires a key: send "Authorization: Bearer <key>" (or "X-API-Key: <key>") with a key from api.keys in config.yaml or JUNCTION_API_KEY.',
        ),
      );
      return;
    }
    if (key === '' || !keyMatches(key, digests)) {
      res.set('WWW-Authenticate', 'Bearer realm="junction", error="invalid_token"');
      next(
        new RestApiError(
          'API_KEY_INVALID',
          'The API key is not valid. Send one of the keys in api.keys in config.yaml or JUNCTION_API_KEY, as "Authorization: Bearer <key>".',
        ),
      );
      return;
    }
    next();
  };
}
