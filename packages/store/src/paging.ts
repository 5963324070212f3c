import { StoreError } from './store-error.js';

/** Limit and offset for list calls. */
export interface Page {
  limit?: number;
  offset?: number;
}

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 10_000;

/** Checks a page request and fills in defaults; bad values are INVALID_INPUT, never silently clamped. */
export function resolvePage(
  page: Page,
  defaultLimit: number = DEFAULT_LIMIT,
): { limit: number; offset: number } {
  const limit = page.limit ?? defaultLimit;
  const offset = page.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new StoreError(
      'INVALID_INPUT',
      `limit must be a whole number from 1 to ${MAX_LIMIT}; got ${String(limit)}.`,
      { field: 'limit', value: String(limit) },
    );
  }
  if (!Number.isInteger(offset) || offset < 0) {
    throw new StoreError(
      'INVALID_INPUT',
      `offset must be a whole number of at least 0; got ${String(offset)}.`,
      { field: 'offset', value: String(offset) },
    );
  }
  return { limit, offset };
}
