// The trace search in the hash (`#/traces?service=…&range=1h`) as the API query it means.
// Pure, so it is tested in Node.

/** The time ranges offered, in milliseconds back from now (null: no lower bound). */
export const RANGES: ReadonlyArray<{ value: string; label: string; ms: number | null }> = [
  { value: '15m', label: 'Last 15 minutes', ms: 15 * 60_000 },
  { value: '1h', label: 'Last hour', ms: 3_600_000 },
  { value: '24h', label: 'Last 24 hours', ms: 86_400_000 },
  { value: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { value: 'all', label: 'All time', ms: null },
];

/** No lower time bound unless the reader picks one. */
export const DEFAULT_RANGE = 'all';
/** Traces per search. */
const LIMIT = 50;

/** The API query of the search in the hash, with the range turned into `since`. */
export function traceQuery(
  query: Readonly<Record<string, string>>,
  now: number,
): Record<string, string | number | undefined> {
  const range = RANGES.find((r) => r.value === (query.range ?? DEFAULT_RANGE));
  return {
    service: query.service,
    operation: query.operation,
    run_id: query.run_id,
    status: query.status === 'error' || query.status === 'ok' ? query.status : undefined,
    since: range?.ms ? new Date(now - range.ms).toISOString() : undefined,
    limit: LIMIT,
  };
}
