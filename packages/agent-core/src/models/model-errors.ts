// What went wrong in a model call, in words an operator can act on: the provider's own error
// text and status, whether trying again may help, and never an API key.
import { APICallError, RetryError } from 'ai';
import { createRedactor, type RedactionPattern, type Redactor } from '@junction/telemetry';

/** `http`: the provider answered with an error status; `network`: it could not be reached. */
export type ProviderErrorKind = 'http' | 'network' | 'timeout' | 'aborted' | 'unknown';

/** A model-call failure, classified. */
export interface ProviderErrorInfo {
  /** True when the same request may succeed later (429, 408, 409, 5xx, network, timeout). */
  retryable: boolean;
  /** The HTTP status the provider answered with, when it answered. */
  status?: number;
  /** One line: what happened, with the provider's own error text; secrets redacted. */
  message: string;
  kind: ProviderErrorKind;
  /** How many attempts the AI SDK made, when it retried. */
  attempts?: number;
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

const FETCH_FAILED = /^(fetch failed|failed to fetch|terminated)$/i;
const MAX_PROVIDER_TEXT = 500;

// Key shapes of the providers we talk to, plus the usual "name: value" spellings, so a key
// echoed back in an error body never reaches a log, a run record or a terminal.
const SECRET_PATTERNS: readonly RedactionPattern[] = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 [REDACTED]'],
  [/\b(?:sk|pk|rk)-[A-Za-z0-9_*-]{6,}/g, '[REDACTED]'],
  [/\bAIza[0-9A-Za-z_-]{20,}/g, '[REDACTED]'],
  [
    /\b(api[_-]?key|x-goog-api-key|access[_-]?token|authorization)(["']?\s*[:=]\s*["']?)[^\s"',;&]+/gi,
    '$1$2[REDACTED]',
  ],
  [/([?&]key=)[^\s&#"']+/gi, '$1[REDACTED]'],
];

/**
 * The shared redactor (telemetry's: known values, bearer tokens, URL credentials) plus the
 * key shapes and parameters of model providers. Build one per set of secrets and reuse it.
 */
export function secretRedactor(secrets: readonly (string | undefined)[] = []): Redactor {
  const exact = secrets
    .filter((s): s is string => typeof s === 'string' && s.trim().length >= 4)
    .map((s) => s.trim());
  return createRedactor(exact, { patterns: SECRET_PATTERNS });
}

/** Replaces the given secret values and anything shaped like an API key with [REDACTED]. */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  return secretRedactor(secrets).text(text);
}

function errorName(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const name = (err as { name?: unknown }).name;
  return typeof name === 'string' ? name : undefined;
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'object' && err !== null) {
    const message = (err as { message?: unknown }).message;
    if (typeof message === 'string') return message;
  }
  return String(err);
}

/** The first network error code found in err, its cause chain or an AggregateError's errors. */
function networkCode(err: unknown, depth = 0): string | undefined {
  if (typeof err !== 'object' || err === null || depth > 6) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
  const nested = (err as { errors?: unknown }).errors;
  if (Array.isArray(nested)) {
    for (const inner of nested) {
      const found = networkCode(inner, depth + 1);
      if (found !== undefined) return found;
    }
  }
  return networkCode((err as { cause?: unknown }).cause, depth + 1);
}

/** The innermost useful message of a network failure ("connect ECONNREFUSED 127.0.0.1:1"). */
function networkDetail(err: unknown, depth = 0): string {
  if (typeof err !== 'object' || err === null || depth > 6) return errorMessage(err);
  const cause = (err as { cause?: unknown }).cause;
  if (cause !== undefined && cause !== null) return networkDetail(cause, depth + 1);
  const nested = (err as { errors?: unknown }).errors;
  if (Array.isArray(nested) && nested.length > 0) return networkDetail(nested[0], depth + 1);
  return errorMessage(err);
}

/** The provider's own error text from a JSON error body (OpenAI, Anthropic, Google shapes). */
function providerText(err: APICallError): string {
  const fromData = messageIn(err.data);
  if (fromData !== undefined) return fromData;
  const body = err.responseBody?.trim();
  if (body !== undefined && body !== '') {
    try {
      const fromBody = messageIn(JSON.parse(body));
      if (fromBody !== undefined) return fromBody;
    } catch {
      // Not JSON: a proxy's HTML or plain text page; show the start of it.
      const snippet = body.replace(/\s+/g, ' ').slice(0, 200);
      return err.message && err.message !== snippet ? `${err.message}: ${snippet}` : snippet;
    }
  }
  return err.message || 'no error text';
}

function messageIn(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const error = (data as { error?: unknown }).error;
  if (typeof error === 'string' && error !== '') return error;
  if (typeof error === 'object' && error !== null) {
    const message = (error as { message?: unknown }).message;
    if (typeof message === 'string' && message !== '') return message;
  }
  const message = (data as { message?: unknown }).message;
  return typeof message === 'string' && message !== '' ? message : undefined;
}

function hostOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}

function truncate(text: string): string {
  return text.length > MAX_PROVIDER_TEXT ? `${text.slice(0, MAX_PROVIDER_TEXT)}…` : text;
}

function classify(err: unknown): ProviderErrorInfo {
  const name = errorName(err);
  if (name === 'TimeoutError') {
    return {
      kind: 'timeout',
      retryable: true,
      message: `Model request timed out: ${errorMessage(err)}`,
    };
  }
  if (name === 'AbortError' || name === 'ResponseAborted') {
    return { kind: 'aborted', retryable: false, message: 'Model request was cancelled.' };
  }

  if (APICallError.isInstance(err)) {
    const status = err.statusCode;
    const host = hostOf(err.url);
    if (status === undefined) {
      const code = networkCode(err);
      return {
        kind: 'network',
        retryable: true,
        message:
          `Cannot reach the model provider${host ? ` at ${host}` : ''}: ` +
          `${networkDetail(err)}${code && !networkDetail(err).includes(code) ? ` (${code})` : ''}`,
      };
    }
    const retryable = err.isRetryable || status === 429 || status >= 500;
    return {
      kind: 'http',
      retryable,
      status,
      message: `Model provider${host ? ` ${host}` : ''} answered HTTP ${status}: ${truncate(providerText(err))}`,
    };
  }

  const code = networkCode(err);
  if (code !== undefined || (err instanceof Error && FETCH_FAILED.test(err.message))) {
    const detail = networkDetail(err);
    return {
      kind: 'network',
      retryable: true,
      message: `Cannot reach the model provider: ${detail}${code && !detail.includes(code) ? ` (${code})` : ''}`,
    };
  }

  return { kind: 'unknown', retryable: false, message: truncate(errorMessage(err)) };
}

/**
 * Classifies a failed model call (the AI SDK's APICallError or RetryError, a network error,
 * an abort or timeout): retryable or not, the HTTP status, and the provider's message with
 * `secrets` and anything key-shaped redacted.
 */
export function classifyProviderError(
  err: unknown,
  secrets: readonly (string | undefined)[] = [],
): ProviderErrorInfo {
  let attempts: number | undefined;
  let inner = err;
  if (RetryError.isInstance(err)) {
    attempts = err.errors.length;
    inner = err.lastError;
  }
  const info = classify(inner);
  let message = redactSecrets(info.message, secrets);
  if (attempts !== undefined && attempts > 1) message = `${message} (after ${attempts} attempts)`;
  return attempts === undefined ? { ...info, message } : { ...info, message, attempts };
}
