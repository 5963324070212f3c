// The REST API client: same-origin JSON with `Authorization: Bearer <key>` when a key is
// stored. Error answers become ApiError with the server's code and message. A 401 tells the
// app to show the sign-in form. The key is kept in sessionStorage only: never in a URL or log.
import type { ApiErrorBody } from './types.js';

/** The part of Web Storage the key store uses (sessionStorage in the browser). */
export interface StorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** Where the API key lives between page loads of one tab. */
export interface KeyStore {
  get(): string | null;
  set(key: string): void;
  clear(): void;
}

const KEY_NAME = 'junction.apiKey';

/** A key store over sessionStorage: the key is gone when the tab closes. */
export function storageKeyStore(storage: StorageLike): KeyStore {
  return {
    get: () => {
      try {
        return storage.getItem(KEY_NAME);
      } catch {
        return null;
      }
    },
    set: (key) => storage.setItem(KEY_NAME, key),
    clear: () => storage.removeItem(KEY_NAME),
  };
}

/** An API answer that was not a success, or no answer at all (status 0). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    details?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

export type Query = Readonly<Record<string, string | number | boolean | null | undefined>>;

export interface ApiClientOptions {
  keys: KeyStore;
  /** Called on every 401; `hadKey` says whether a stored key was refused. */
  onUnauthorized: (hadKey: boolean) => void;
  fetchImpl?: typeof fetch;
  /** Prefix of every path; empty for the page's own origin. */
  origin?: string;
}

function isErrorBody(value: unknown): value is ApiErrorBody {
  if (value === null || typeof value !== 'object') return false;
  const error = (value as { error?: unknown }).error;
  return (
    error !== null &&
    typeof error === 'object' &&
    typeof (error as { code?: unknown }).code === 'string' &&
    typeof (error as { message?: unknown }).message === 'string'
  );
}

/** `path?query` with empty values left out. */
export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== null && value !== undefined && value !== '') params.set(key, String(value));
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

export class ApiClient {
  readonly #options: ApiClientOptions;
  readonly #fetch: typeof fetch;

  constructor(options: ApiClientOptions) {
    this.#options = options;
    this.#fetch = options.fetchImpl ?? ((input, init) => fetch(input, init));
  }

  /** The URL of an API path, for requests made elsewhere (the runs stream). */
  url(path: string, query?: Query): string {
    return `${this.#options.origin ?? ''}${withQuery(path, query)}`;
  }

  /** The Authorization header when a key is stored. */
  authHeaders(): Record<string, string> {
    const key = this.#options.keys.get();
    return key ? { Authorization: `Bearer ${key}` } : {};
  }

  /** Reports a 401 from any request (the stream too) to the app. */
  unauthorized(): void {
    this.#options.onUnauthorized(this.#options.keys.get() !== null);
  }

  /** GET a JSON answer. */
  get<T>(path: string, query?: Query, signal?: AbortSignal): Promise<T> {
    return this.#request<T>('GET', this.url(path, query), undefined, signal);
  }

  /** POST a JSON body (or none) and read the JSON answer. */
  post<T>(path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    return this.#request<T>('POST', this.url(path), body, signal);
  }

  async #request<T>(
    method: string,
    url: string,
    body: unknown,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    const headers: Record<string, string> = { Accept: 'application/json', ...this.authHeaders() };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let response: Response;
    try {
      response = await this.#fetch(url, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new ApiError(
        0,
        'NETWORK_ERROR',
        'The server cannot be reached; check that Junction is running, then reload.',
        undefined,
        { cause: err },
      );
    }
    const text = await response.text();
    let parsed: unknown = undefined;
    if (text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    // A page already left may still hear a 401: only the current page's requests ask to sign in.
    if (response.status === 401 && !signal?.aborted) this.unauthorized();
    if (!response.ok) {
      if (isErrorBody(parsed)) {
        const { code, message, details } = parsed.error;
        throw new ApiError(response.status, code, message, details);
      }
      throw new ApiError(
        response.status,
        `HTTP_${response.status}`,
        `The server answered ${response.status} ${response.statusText}`.trim() + '.',
      );
    }
    if (text !== '' && parsed === undefined) {
      throw new ApiError(
        response.status,
        'BAD_RESPONSE',
        `The server's answer to ${method} ${url.split('?')[0]} is not JSON.`,
      );
    }
    return parsed as T;
  }
}
