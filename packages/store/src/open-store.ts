import { z } from 'zod';
import { acquireConnection } from './connection.js';
import { DEFAULT_TIMEOUT_MS } from './deadline.js';
import { Store } from './store.js';
import { StoreError } from './store-error.js';
import { resolveStoreLocation } from './store-location.js';

const openStoreOptionsSchema = z.object({
  url: z
    .string()
    .trim()
    .min(
      1,
      'url must name a database: :memory:, a file path, a file: URL or a libsql:/http(s): URL',
    ),
  authToken: z.string().min(1).optional(),
  busyTimeoutMs: z.number().int().min(0).max(600_000).optional(),
  timeoutMs: z.number().int().min(1).max(600_000).optional(),
  now: z
    .custom<
      () => Date
    >((value) => typeof value === 'function', 'now must be a function returning a Date')
    .optional(),
  cwd: z.string().min(1).optional(),
});

/** How to open a store. */
export type OpenStoreOptions = z.input<typeof openStoreOptionsSchema>;

export { DEFAULT_TIMEOUT_MS };

/** Default wait for another process's write lock before a write fails with STORE_BUSY. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/**
 * Opens the store at `url` (`:memory:`, a path, `file:` URL, or `libsql:`/`http(s):` with
 * `authToken`), creating the file and its folder if needed and applying pending migrations.
 */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const parsed = openStoreOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (i) => `${i.path.join('.') || 'options'}: ${i.message}`,
    );
    throw new StoreError(
      'STORE_OPEN_FAILED',
      `Cannot open the store: ${problems.join('; ')}.`,
      { problems },
      { cause: parsed.error },
    );
  }
  const { url, authToken, busyTimeoutMs, timeoutMs, now, cwd } = parsed.data;
  const location = resolveStoreLocation(url, cwd);
  const conn = await acquireConnection(location, {
    authToken,
    busyTimeoutMs: busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS,
    timeoutMs: timeoutMs ?? DEFAULT_TIMEOUT_MS,
  });
  return new Store(conn, now ?? ((): Date => new Date()), timeoutMs ?? DEFAULT_TIMEOUT_MS);
}
