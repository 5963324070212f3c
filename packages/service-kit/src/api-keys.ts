// API keys of the HTTP surfaces (REST, MCP over HTTP, the webhook server), checked one way.
// The composition root hands each surface a KeyRing; the surfaces only word the refusals.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** SHA-256 of a key: digests have equal lengths, so timingSafeEqual applies to any two keys. */
export function keyDigest(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/**
 * True when `key` is one of the keys whose digests are given. Every digest is compared, so the
 * time says neither which key matched nor how far a guess got.
 */
export function keyMatches(key: string, keyDigests: readonly Buffer[]): boolean {
  const presented = keyDigest(key);
  let matched = false;
  for (const expected of keyDigests) matched = timingSafeEqual(presented, expected) || matched;
  return matched;
}

/** A check of presented keys against `keys` (empty ones ignored); digests made once. */
export function createKeyCheck(keys: readonly string[]): (key: string) => boolean {
  const digests = keys.filter((key) => key !== '').map(keyDigest);
  return (key) => key !== '' && keyMatches(key, digests);
}

/**
 * The key a request presents: a Bearer credential, else `X-API-Key`. `''` when it presents an
 * unusable one (an empty key, or only another scheme such as Basic), undefined when none.
 */
export function presentedKey(headers: IncomingHttpHeaders): string | undefined {
  const header = headers.authorization;
  const bearer = header === undefined ? undefined : /^Bearer[ \t]+(.*)$/i.exec(header.trim());
  if (bearer) return (bearer[1] ?? '').trim();
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string') return apiKey.trim();
  return header === undefined ? undefined : '';
}

/** What a surface needs to admit a request: held by the composition root, never the keys themselves. */
export interface KeyRing {
  /** Whether any key is configured; with none, every request passes. */
  readonly required: boolean;
  /** The key a request presents (see `presentedKey`); Bearer only unless the ring takes X-API-Key. */
  presented(headers: IncomingHttpHeaders): string | undefined;
  /** True when `key` is one of the ring's keys, compared in constant time. */
  matches(key: string): boolean;
}

/** A ring of `keys` (empty ones ignored). `xApiKey`: also read the `X-API-Key` header (REST, MCP). */
export function keyRing(keys: readonly string[], options: { xApiKey?: boolean } = {}): KeyRing {
  const usable = keys.filter((key) => key.trim() !== '');
  const matches = createKeyCheck(usable);
  const xApiKey = options.xApiKey ?? true;
  return {
    required: usable.length > 0,
    presented: (headers) =>
      xApiKey ? presentedKey(headers) : presentedKey({ authorization: headers.authorization }),
    matches,
  };
}
