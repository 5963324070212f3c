// Follows a Server-Sent Events stream with fetch (so the Authorization header goes along) and
// reconnects after a drop with a short backoff. Plain fetch/streams, no DOM: tested in Node
// against a real HTTP server.
import { SseParser, type SseMessage } from './sse-parser.js';
import { wait as abortableWait } from './wait.js';

/**
 * connecting: first attempt; live: connected; reconnecting: waiting to try again;
 * unauthorized: 401 (stopped); unavailable: another 4xx such as 404 (no such stream) or 400
 * (a filter refused), stopped: the caller reads the JSON list instead, which says why.
 */
export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'unauthorized' | 'unavailable';

export interface FollowOptions {
  url: string;
  /** Read before every attempt, so a key entered meanwhile is used. */
  headers: () => Record<string, string>;
  onMessage: (message: SseMessage) => void;
  onState: (state: StreamState, error?: unknown) => void;
  /** Stops following; the returned promise then settles. */
  signal: AbortSignal;
  fetchImpl?: typeof fetch;
  /** Waits before the 1st, 2nd, … reconnection; the last one repeats. */
  backoffMs?: readonly number[];
  /** Reconnects when nothing (not even a keep-alive comment) arrived for this long. */
  idleTimeoutMs?: number;
}

export const DEFAULT_BACKOFF_MS: readonly number[] = [500, 1000, 2000, 5000];
const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
/** Client errors worth another try: a request timeout, too many requests. */
const RETRIED = new Set([408, 429]);

/** An answer that was not a stream. */
export class StreamHttpError extends Error {
  readonly status: number;
  constructor(status: number) {
    super(`The stream answered HTTP ${status}.`);
    this.name = 'StreamHttpError';
    this.status = status;
  }
}

/** Follows the stream until `signal` aborts or a 4xx says to stop; never rejects. */
export async function followEventStream(options: FollowOptions): Promise<void> {
  const fetchImpl = options.fetchImpl ?? ((input, init) => fetch(input, init));
  const backoff = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  const idleMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const { signal } = options;
  let state: StreamState | undefined;
  const setState = (next: StreamState, error?: unknown): void => {
    if (next !== state) {
      state = next;
      options.onState(next, error);
    }
  };

  let failures = 0;
  let retryMs: number | undefined;
  while (!signal.aborted) {
    setState(failures === 0 ? 'connecting' : 'reconnecting');
    const attempt = new AbortController();
    const stop = (): void => attempt.abort();
    signal.addEventListener('abort', stop, { once: true });
    let idle: ReturnType<typeof setTimeout> | undefined;
    const touch = (): void => {
      clearTimeout(idle);
      idle = setTimeout(stop, idleMs);
    };
    let delivered = false;
    let error: unknown;
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    try {
      touch();
      const response = await fetchImpl(options.url, {
        headers: { ...options.headers(), Accept: 'text/event-stream' },
        signal: attempt.signal,
      });
      if (response.status === 401) {
        setState('unauthorized');
        return;
      }
      // Another client error (no such route, a refused filter) does not heal by retrying.
      if (response.status >= 400 && response.status < 500 && !RETRIED.has(response.status)) {
        setState('unavailable');
        return;
      }
      if (!response.ok || !response.body) throw new StreamHttpError(response.status);
      setState('live');
      reader = response.body.getReader();
      const decoder = new TextDecoder();
      const parser = new SseParser();
      // Some fetch implementations (Node's) can leave a read pending after an abort when the
      // body had already ended; racing the abort makes leaving prompt everywhere.
      const stopped = new Promise<never>((_resolve, reject) => {
        attempt.signal.addEventListener('abort', () => reject(attempt.signal.reason), {
          once: true,
        });
      });
      stopped.catch(() => undefined);
      for (;;) {
        const { done, value } = await Promise.race([reader.read(), stopped]);
        if (done) break;
        touch();
        for (const message of parser.push(decoder.decode(value, { stream: true }))) {
          delivered = true;
          options.onMessage(message);
        }
      }
      retryMs = parser.retry ?? retryMs;
    } catch (err) {
      error = err;
    } finally {
      clearTimeout(idle);
      signal.removeEventListener('abort', stop);
      attempt.abort();
      reader?.cancel().catch(() => undefined);
    }
    if (signal.aborted) return;
    // A connection that delivered something was healthy: start the backoff over.
    failures = delivered ? 1 : failures + 1;
    setState('reconnecting', error);
    const wait = retryMs ?? backoff[Math.min(failures, backoff.length) - 1] ?? 1000;
    await abortableWait(wait, signal);
  }
}
