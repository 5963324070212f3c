// HTTP client transports for MCP: Streamable HTTP first, the legacy SSE transport as the
// fallback for servers that predate it, and the classification of their failures.
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

/** Which HTTP flavour of MCP a connection speaks. */
export type HttpTransportKind = 'streamable-http' | 'sse';

/** Creates the SDK transport of `kind` for `url`, sending `headers` with every request. */
export function createHttpTransport(
  kind: HttpTransportKind,
  url: URL,
  headers: Record<string, string>,
): Transport {
  const requestInit: RequestInit = { headers: { ...headers } };
  if (kind === 'sse') return new SSEClientTransport(url, { requestInit });
  return new StreamableHTTPClientTransport(url, { requestInit });
}

/** Ends a Streamable HTTP session with DELETE, as the spec asks of a client that is done; other transports have nothing to end. */
export async function endHttpSession(transport: Transport): Promise<void> {
  if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession();
}

/** The HTTP status an SDK transport error carries, if any. */
export function httpStatusOf(error: unknown): number | undefined {
  if (error instanceof StreamableHTTPError || error instanceof SseError) {
    const code = error.code;
    return typeof code === 'number' && code >= 100 && code <= 599 ? code : undefined;
  }
  // The SSE transport reports a failed POST as a plain Error naming the status.
  if (error instanceof Error) {
    const match = /\(HTTP (\d{3})\)/.exec(error.message);
    if (match?.[1] !== undefined) return Number(match[1]);
  }
  return undefined;
}

/**
 * True when a Streamable HTTP connect that failed with `status` should be retried over SSE:
 * the spec's backwards-compatibility rule is "a 4xx" (404, 405, 400 from an old server), but a
 * 401/403 means bad credentials and 408/429 mean "later", which SSE would not fix.
 */
export function shouldFallBackToSse(status: number): boolean {
  return status >= 400 && status < 500 && ![401, 403, 408, 429].includes(status);
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/** The network error code (`ECONNREFUSED`, …) behind a failed fetch, searching causes. */
export function networkErrorCodeOf(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0) {
    const current = queue.shift();
    if (current === null || typeof current !== 'object' || seen.has(current)) continue;
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
    queue.push((current as { cause?: unknown }).cause);
    if (current instanceof AggregateError) queue.push(...current.errors);
  }
  // undici reports a connection cut mid-body as TypeError("terminated") without a code.
  if (error instanceof TypeError && /^(fetch failed|terminated)$/.test(error.message)) {
    return 'ECONNRESET';
  }
  return undefined;
}

/** Words for a network error code, for messages. */
export function describeNetworkCode(code: string): string {
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connection timed out';
    default:
      return 'connection lost';
  }
}
