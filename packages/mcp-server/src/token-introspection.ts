// RFC 7662 token introspection against the management platform. Answers are cached by a hash of
// the token (the token itself is never kept), never past the token's `exp`, and only when they
// are definite: a failed or malformed answer is asked again next time. Concurrent checks of the
// same token share one call.
import { createHash } from 'node:crypto';
import { z } from 'zod';

/** Longest wait for the introspection endpoint: 10 s. */
export const DEFAULT_INTROSPECT_TIMEOUT_MS = 10_000;
/** How long a definite answer is reused: 5 minutes (spec §8). */
export const DEFAULT_TOKEN_CACHE_TTL_MS = 5 * 60_000;
/** Most answers kept; the oldest goes first, so a stream of junk tokens cannot grow memory. */
const MAX_CACHED_TOKENS = 10_000;

/** An identifier some platforms send as a number; kept as text. */
const identifier = z.union([z.string(), z.number()]).transform(String).nullish();

/**
 * The fields of an introspection answer this server reads (RFC 7662 §2.2); others are ignored.
 * A field present with the wrong type makes the whole answer unusable rather than guessed at.
 */
const introspectionAnswerSchema = z.looseObject({
  active: z.boolean(),
  scope: z.string().nullish(),
  client_id: identifier,
  username: identifier,
  sub: identifier,
  aud: z.union([z.string(), z.array(z.string())]).nullish(),
  exp: z.number().nullish(),
});

type IntrospectionAnswer = z.infer<typeof introspectionAnswerSchema>;

/** What an introspection answer says about the token's holder. */
export interface TokenClaims {
  /** `sub`: the platform's id of the user. */
  subject?: string;
  username?: string;
  /** `client_id`: the OAuth application the token was issued to. */
  clientId?: string;
  /** `scope`, split on white space. */
  scopes: string[];
  /** `aud`, always a list (empty when the answer names none). */
  audiences: string[];
  /** `exp`, seconds since the epoch. */
  expiresAt?: number;
}

/** The verdict on one token. */
export type TokenVerdict =
  | { status: 'active'; claims: TokenClaims }
  | { status: 'inactive'; reason: 'inactive' | 'expired'; claims?: TokenClaims }
  | { status: 'failed'; reason: 'unreachable' | 'malformed'; detail: string };

/** A verdict and whether this check asked the platform (false: cached, or another check's call). */
export interface TokenCheck {
  verdict: TokenVerdict;
  introspected: boolean;
  /** How long the introspection call took, when this check made it. */
  durationMs?: number;
}

export interface TokenIntrospectorOptions {
  introspectUrl: string;
  /** Sent as `client_id` in the form when not empty. */
  clientId: string;
  timeoutMs?: number;
  cacheTtlMs?: number;
  fetch?: typeof fetch;
  /** Milliseconds since the epoch. */
  now?: () => number;
}

export interface TokenIntrospector {
  check(token: string): Promise<TokenCheck>;
}

/** The cache key of a token: its SHA-256, so no map or dump ever holds a usable token. */
export function tokenKey(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function claimsOf(answer: IntrospectionAnswer): TokenClaims {
  const audiences =
    answer.aud === undefined || answer.aud === null
      ? []
      : Array.isArray(answer.aud)
        ? answer.aud
        : [answer.aud];
  return {
    ...(answer.sub ? { subject: answer.sub } : {}),
    ...(answer.username ? { username: answer.username } : {}),
    ...(answer.client_id ? { clientId: answer.client_id } : {}),
    scopes: (answer.scope ?? '').split(/\s+/).filter((s) => s !== ''),
    audiences,
    ...(typeof answer.exp === 'number' ? { expiresAt: answer.exp } : {}),
  };
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive number of milliseconds; got ${value}.`);
  }
  return value;
}

/** Builds the introspector: one cache and one table of calls in flight. */
export function createTokenIntrospector(options: TokenIntrospectorOptions): TokenIntrospector {
  const timeoutMs = positive(
    'introspectTimeoutMs',
    options.timeoutMs ?? DEFAULT_INTROSPECT_TIMEOUT_MS,
  );
  const ttlMs = positive('cacheTtlMs', options.cacheTtlMs ?? DEFAULT_TOKEN_CACHE_TTL_MS);
  const fetchFn = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { verdict: TokenVerdict; until: number }>();
  const inFlight = new Map<string, Promise<TokenVerdict>>();

  const failed = (reason: 'unreachable' | 'malformed', detail: string): TokenVerdict => ({
    status: 'failed',
    reason,
    detail,
  });

  /** Asks the platform; never throws. */
  const introspect = async (token: string): Promise<TokenVerdict> => {
    const form = new URLSearchParams({ token, token_type_hint: 'access_token' });
    if (options.clientId !== '') form.set('client_id', options.clientId);
    let text: string;
    try {
      const res = await fetchFn(options.introspectUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: form.toString(),
        // A redirect would carry the token to wherever it points: it counts as a failure.
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!res.ok) {
        await res.body?.cancel().catch(() => undefined);
        return failed('unreachable', `the introspection endpoint answered HTTP ${res.status}`);
      }
      text = await res.text();
    } catch (err) {
      // Read by shape: fetch's errors (a DOMException on timeout) need not be this realm's Error.
      const { name, message } = (err ?? {}) as { name?: unknown; message?: unknown };
      return failed(
        'unreachable',
        name === 'TimeoutError' || name === 'AbortError'
          ? `the introspection endpoint did not answer within ${timeoutMs} ms`
          : `the introspection endpoint could not be reached (${typeof message === 'string' ? message : String(err)})`,
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return failed('malformed', 'the introspection answer is not JSON');
    }
    const parsed = introspectionAnswerSchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.map(String).join('.') || 'answer';
      return failed('malformed', `the introspection answer has no usable "${field}"`);
    }
    const claims = claimsOf(parsed.data);
    if (!parsed.data.active) return { status: 'inactive', reason: 'inactive', claims };
    if (claims.expiresAt !== undefined && claims.expiresAt * 1000 <= now()) {
      return { status: 'inactive', reason: 'expired', claims };
    }
    return { status: 'active', claims };
  };

  const remember = (key: string, verdict: TokenVerdict): void => {
    if (verdict.status === 'failed') return;
    const at = now();
    const exp = verdict.status === 'active' ? verdict.claims.expiresAt : undefined;
    const until = Math.min(at + ttlMs, exp === undefined ? Infinity : exp * 1000);
    if (until <= at) return;
    cache.delete(key);
    if (cache.size >= MAX_CACHED_TOKENS) {
      const oldest = cache.keys().next();
      if (!oldest.done) cache.delete(oldest.value);
    }
    cache.set(key, { verdict, until });
  };

  return {
    async check(token: string): Promise<TokenCheck> {
      const key = tokenKey(token);
      const cached = cache.get(key);
      if (cached !== undefined) {
        if (cached.until > now()) return { verdict: cached.verdict, introspected: false };
        cache.delete(key);
      }
      const pending = inFlight.get(key);
      if (pending !== undefined) return { verdict: await pending, introspected: false };
      const started = now();
      const call = introspect(token).then((verdict) => {
        remember(key, verdict);
        inFlight.delete(key);
        return verdict;
      });
      inFlight.set(key, call);
      const verdict = await call;
      return { verdict, introspected: true, durationMs: Math.max(0, now() - started) };
    },
  };
}
