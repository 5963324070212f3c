/** The text that replaces every redacted value. */
export const REDACTED = '[REDACTED]';

/**
 * Secret values shorter than this are never redacted, wherever they come from (environment,
 * config, model keys): a short value (`ollama`'s "x", vLLM's "EMPTY", "true", "8080") would
 * shred ordinary text and rewrite stored data. Processes warn at start-up about configured
 * secrets this short (service-kit).
 */
export const MIN_SECRET_LENGTH = 8;

const MAX_DEPTH = 12;

// A key is secret when one of its words is (or ends with) one of these.
const SECRET_WORDS = [
  'token',
  'secret',
  'password',
  'passwd',
  'passphrase',
  'authorization',
  'cookie',
  'cookies',
  'credential',
  'credentials',
  'apikey',
  'privatekey',
  'signature',
  'bearer',
];

// ...unless the key's last word says it is about the secret rather than the secret itself
// (`token_url`, `key_count`, `password_file`, `client_secret_expires_at`).
const NON_SECRET_LAST_WORDS = new Set([
  'count',
  'counts',
  'total',
  'length',
  'len',
  'limit',
  'max',
  'min',
  'size',
  'usage',
  'used',
  'url',
  'uri',
  'endpoint',
  'path',
  'file',
  'name',
  'names',
  'var',
  'env',
  'id',
  'ids',
  'type',
  'expires',
  'expiry',
  'ttl',
  'at',
  'enabled',
]);

function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0);
}

/** Answers of isSecretKey by field name: the same few names come again on every record. */
const secretKeyAnswers = new Map<string, boolean>();
const MAX_REMEMBERED_KEYS = 2048;
/** Longer names are judged every time, not remembered (they come from callers). */
const MAX_REMEMBERED_KEY_LENGTH = 128;

/** True when a field name looks like it holds a secret (`api_key`, `accessToken`, `Authorization`, `cookie`), but not counts such as `input_tokens` or `key_count`. */
export function isSecretKey(key: string): boolean {
  if (key.length > MAX_REMEMBERED_KEY_LENGTH) return judgeKey(key);
  let answer = secretKeyAnswers.get(key);
  if (answer === undefined) {
    answer = judgeKey(key);
    if (secretKeyAnswers.size >= MAX_REMEMBERED_KEYS) secretKeyAnswers.clear();
    secretKeyAnswers.set(key, answer);
  }
  return answer;
}

function judgeKey(key: string): boolean {
  const words = keyWords(key);
  const last = words[words.length - 1];
  if (last === undefined) return false;
  if (last === 'key') return true;
  const secretIndex = words.findIndex((word) =>
    SECRET_WORDS.some((secret) => word === secret || word.endsWith(secret)),
  );
  if (secretIndex < 0) return false;
  return secretIndex === words.length - 1 || !NON_SECRET_LAST_WORDS.has(last);
}

const ENV_SECRET_NAME =
  /(^|_)(KEY|APIKEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?)(_|$)|TOKEN|SECRET|PASSWORD/;

/** Values of environment variables whose names look secret (`*TOKEN*`, `*_KEY`, `*SECRET*`, `*PASSWORD*`), ignoring values shorter than MIN_SECRET_LENGTH. */
export function collectSecretValues(env: Readonly<Record<string, string | undefined>>): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value.trim().length < MIN_SECRET_LENGTH) continue;
    if (ENV_SECRET_NAME.test(name.toUpperCase())) values.add(value);
  }
  return [...values];
}

/** Redacts values, text and URLs against a fixed list of known secrets. */
export interface Redactor {
  /** The known secret values, longest first. */
  readonly secrets: readonly string[];
  /** A JSON-safe deep copy of `value` with secret keys and known secret values replaced by [REDACTED]. */
  value(value: unknown): unknown;
  /** `text` with known secret values, bearer tokens and URL credentials replaced by [REDACTED]. */
  text(text: string): string;
}

/** A text pattern and its replacement (as String.replace takes them), e.g. a provider's key shape. */
export type RedactionPattern = readonly [RegExp, string];

/**
 * Builds a Redactor for the given secret values (values shorter than MIN_SECRET_LENGTH are
 * ignored: see there); `patterns` are
 * applied to every text after them (callers add the key shapes they know of).
 */
export function createRedactor(
  secrets: readonly string[] = [],
  options: { patterns?: readonly RedactionPattern[] } = {},
): Redactor {
  const known = [
    ...new Set(secrets.filter((secret) => secret.trim().length >= MIN_SECRET_LENGTH)),
  ].sort((a, b) => b.length - a.length);
  const patterns = options.patterns ?? [];
  const text = (input: string): string => {
    let out = redactTextWith(input, known);
    for (const [pattern, replacement] of patterns) out = out.replace(pattern, replacement);
    return out;
  };
  return {
    secrets: known,
    text,
    value: (input: unknown): unknown => redactValue(input, text, new WeakSet<object>(), 0),
  };
}

/** A JSON-safe deep copy of `value` with secret-looking keys and known secret values replaced by [REDACTED]. */
export function redact(value: unknown, secrets: readonly string[] = []): unknown {
  return createRedactor(secrets).value(value);
}

/** `text` with known secret values, bearer tokens and credentials inside URLs replaced by [REDACTED]. */
export function redactText(text: string, secrets: readonly string[] = []): string {
  return createRedactor(secrets).text(text);
}

const URL_USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#@\s]*)@/i;
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;
const BEARER = /\b(Bearer)\s+(?=[A-Za-z0-9._~+/=-]*[0-9._~+/=-])[A-Za-z0-9._~+/=-]{8,}/g;

/** A path segment that looks like a credential: long, letters and digits mixed (chat webhook URLs carry their secret so). */
const PATH_TOKEN = /^(?=[A-Za-z0-9_-]*[A-Za-z])(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{20,}$/;

/** Replaces token-like path segments (`…/services/T0/B0/<secret>`) by [REDACTED]. */
function redactPathTokens(url: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(url);
  if (!scheme) return url;
  const start = scheme[0].length;
  const endMatch = /[?#]/.exec(url.slice(start));
  const end = endMatch ? start + endMatch.index : url.length;
  const path = url
    .slice(start, end)
    .split('/')
    .map((segment) => (PATH_TOKEN.test(segment) ? REDACTED : segment))
    .join('/');
  return `${url.slice(0, start)}${path}${url.slice(end)}`;
}

/** `url` with its password (or a lone user name, often a token), token-like path segments and secret-looking query parameters replaced by [REDACTED]. */
export function redactUrl(url: string): string {
  let result = url.replace(URL_USERINFO, (_match, scheme: string, userinfo: string) => {
    const colon = userinfo.indexOf(':');
    if (colon >= 0) return `${scheme}${userinfo.slice(0, colon)}:${REDACTED}@`;
    // A lone user name is usually harmless (`git@`, `postgres@`) unless it is long enough to be a token.
    return userinfo.length >= 16 ? `${scheme}${REDACTED}@` : `${scheme}${userinfo}@`;
  });
  result = redactPathTokens(result);
  const queryStart = result.indexOf('?');
  if (queryStart >= 0) {
    const hashStart = result.indexOf('#', queryStart);
    const end = hashStart >= 0 ? hashStart : result.length;
    const query = result
      .slice(queryStart + 1, end)
      .split('&')
      .map((pair) => {
        const eq = pair.indexOf('=');
        if (eq < 0) return pair;
        let name = pair.slice(0, eq);
        try {
          name = decodeURIComponent(name);
        } catch {
          // keep the raw name
        }
        return isSecretKey(name) ? `${pair.slice(0, eq)}=${REDACTED}` : pair;
      })
      .join('&');
    result = `${result.slice(0, queryStart + 1)}${query}${result.slice(end)}`;
  }
  return result;
}

function redactTextWith(input: string, known: readonly string[]): string {
  let out = input;
  for (const secret of known) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  // The patterns only run on text that can hold them (most log text holds neither).
  if (out.includes('Bearer')) out = out.replace(BEARER, `$1 ${REDACTED}`);
  return out.includes('://') ? out.replace(URL_IN_TEXT, (url) => redactUrl(url)) : out;
}

function redactValue(
  value: unknown,
  text: (input: string) => string,
  seen: WeakSet<object>,
  depth: number,
): unknown {
  switch (typeof value) {
    case 'string':
      return text(value);
    case 'number':
    case 'boolean':
    case 'undefined':
      return value;
    case 'bigint':
      return value.toString();
    case 'symbol':
      return value.toString();
    case 'function':
      return `[Function ${value.name || 'anonymous'}]`;
  }
  if (value === null) return null;
  const object = value as object;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof URL) return text(value.href);
  if (ArrayBuffer.isView(value)) return `[${value.constructor.name} ${value.byteLength} bytes]`;
  if (seen.has(object)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[Truncated]';
  seen.add(object);
  try {
    if (value instanceof Error) return redactError(value, text, seen, depth);
    if (Array.isArray(value)) return value.map((item) => redactValue(item, text, seen, depth + 1));
    if (value instanceof Set)
      return [...value].map((item) => redactValue(item, text, seen, depth + 1));
    const entries: Iterable<[unknown, unknown]> =
      value instanceof Map ? value.entries() : Object.entries(object);
    const out: Record<string, unknown> = {};
    for (const [rawKey, item] of entries) {
      const key = String(rawKey);
      out[key] = redactField(key, item, text, seen, depth);
    }
    return out;
  } finally {
    seen.delete(object);
  }
}

function redactField(
  key: string,
  item: unknown,
  text: (input: string) => string,
  seen: WeakSet<object>,
  depth: number,
): unknown {
  // Booleans and nulls under a secret key ("has_token": true) say nothing secret.
  if (isSecretKey(key) && item !== null && item !== undefined && typeof item !== 'boolean') {
    return REDACTED;
  }
  return redactValue(item, text, seen, depth + 1);
}

function redactError(
  error: Error,
  text: (input: string) => string,
  seen: WeakSet<object>,
  depth: number,
): Record<string, unknown> {
  const out: Record<string, unknown> = { name: error.name, message: text(error.message) };
  for (const [key, item] of Object.entries(error)) {
    if (key === 'name' || key === 'message' || key === 'stack' || key === 'cause') continue;
    out[key] = redactField(key, item, text, seen, depth);
  }
  if (error.cause !== undefined) out.cause = redactValue(error.cause, text, seen, depth + 1);
  if (error.stack !== undefined) out.stack = text(error.stack);
  return out;
}
