// Costs as the CLI prints them: dollars to the millionth, the precision `cost_usd` is kept in.

/** `$0.000123`, or `—` when the cost is unknown (a model without a price). */
export function formatUsd(usd: number | null): string {
  return usd === null ? '—' : `$${usd.toFixed(6)}`;
}
