// Optional API keys for the REST API: `Authorization: Bearer <key>` or `X-API-Key: <key>`,
// compared in constant time against every configured key.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { ApiKeyRing } from './deps.js';
import { RestApiError } from './errors.js';

/** Middleware that refuses requests without a valid key (401 with `WWW-Authenticate: Bearer`). */
export function apiKeyAuth(keys: ApiKeyRing): RequestHandler {
  return (req: Request, res: Response, next: NextFunction): void => {
    const key = keys.presented(req.headers);
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
    if (!keys.matches(key)) {
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
