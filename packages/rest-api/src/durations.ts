// Durations in query strings (`min_duration=5s`, `since=24h`) and the uptime /health reports.

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A duration as the CLI writes it (500ms, 5s, 2m, 1h, 7d) or a bare number of milliseconds. */
export const DURATION_PATTERN = /^(\d{1,15})(ms|s|m|h|d)?$/;

/** Longest duration accepted: 100 years, well inside the range of a Date. */
export const MAX_DURATION_MS = 36_500 * UNIT_MS.d;

/** Milliseconds of `text` (see DURATION_PATTERN), or undefined when it is not a duration or too long. */
export function parseDurationMs(text: string): number | undefined {
  const match = DURATION_PATTERN.exec(text);
  if (!match) return undefined;
  const ms = Number(match[1]) * UNIT_MS[(match[2] ?? 'ms') as keyof typeof UNIT_MS];
  return Number.isSafeInteger(ms) && ms <= MAX_DURATION_MS ? ms : undefined;
}

/** Uptime for people: `42s`, `3m 0s`, `2h 3m 4s`, `5d 0h 12m 9s` (from the largest non-zero unit down). */
export function formatUptime(ms: number): string {
  let rest = Math.max(0, Math.floor(ms / 1000));
  const parts: Array<[number, string]> = [];
  for (const [size, unit] of [
    [86_400, 'd'],
    [3600, 'h'],
    [60, 'm'],
  ] as const) {
    parts.push([Math.floor(rest / size), unit]);
    rest %= size;
  }
  parts.push([rest, 's']);
  const first = parts.findIndex(([n]) => n > 0);
  return parts
    .slice(first < 0 ? parts.length - 1 : first)
    .map(([n, unit]) => `${n}${unit}`)
    .join(' ');
}
