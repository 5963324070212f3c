// Rate limits of the HTTP surfaces (settings `rate_limit`), one rule for all three: counted by
// express-rate-limit in this process's memory, per API key when the request presents one of the
// surface's keys, else per client address. A refusal is an error the surface answers itself
// (429 with Retry-After, in its own body shape), so it looks like every other refusal there.
import type { Config } from '@junction/config-templates';
import type { Request, RequestHandler } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import { keyDigest, type KeyRing } from './api-keys.js';
import { ServiceError } from './service-error.js';

/** The surfaces a limit applies to: REST (api.port), the webhook port, MCP over HTTP. */
export type LimitedSurface = 'rest' | 'execute' | 'mcp';

/** Paths never counted: probes of liveness must not be refused for being frequent. */
const UNCOUNTED = new Set(['/health']);

/** A path as the routers match it: `/health/` is `/health`. */
const routePath = (p: string): string => (p.length > 1 ? p.replace(/\/+$/, '') : p);

/**
 * The client's address: the connection's, or with `hops` proxies in front (each appending to
 * X-Forwarded-For) the address the outermost of them was reached from. A header with fewer
 * entries than hops was not written by those proxies: the connection's address counts.
 */
function clientAddress(req: Request, hops: number): string {
  const direct = req.socket.remoteAddress ?? '';
  if (hops === 0) return direct;
  const header = req.headers['x-forwarded-for'];
  const chain = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  return chain.length >= hops ? (chain[chain.length - hops] as string) : direct;
}

/** The limit of `surface`, or undefined when `rate_limit.enabled` is false. */
export function rateLimitOf(
  settings: Config['rate_limit'],
  surface: LimitedSurface,
  keys: KeyRing,
): RequestHandler | undefined {
  if (!settings.enabled) return undefined;
  const limit = settings[surface] ?? settings.requests;
  const window = settings.window_seconds;
  return rateLimit({
    windowMs: window * 1000,
    limit,
    // RateLimit and RateLimit-Policy headers (IETF draft 8), and Retry-After on a refusal.
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    skip: (req) => UNCOUNTED.has(routePath(req.path)),
    // The address is read here (clientAddress), not through express's `trust proxy`.
    validate: { xForwardedForHeader: false, trustProxy: false },
    keyGenerator: (req) => {
      const key = keys.presented(req.headers);
      // Only a key of the ring has a budget of its own; any other string would let a client
      // escape its limit by inventing keys. The digest, never the key, is what the store holds.
      if (key !== undefined && key !== '' && keys.matches(key)) {
        return `key:${keyDigest(key).toString('base64url')}`;
      }
      return `ip:${ipKeyGenerator(clientAddress(req, settings.proxy_hops))}`;
    },
    handler: (_req, res, next) => {
      next(
        new ServiceError(
          'RATE_LIMITED',
          `Too many requests: this client may make ${limit} per ${window} s here. Wait for the time in Retry-After (${String(res.getHeader('Retry-After') ?? window)} s), or ask the operator to raise rate_limit.`,
          { limit, window_seconds: window },
        ),
      );
    },
  });
}
