// The uptime /health reports. Durations typed in query strings (`min_duration=5s`,
// `since=24h`) are read by the shared grammar of @junction/config-templates.

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
