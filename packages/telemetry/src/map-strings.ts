/**
 * `value` with `fn` applied to every string in it, at any depth of arrays and plain objects
 * (a JSON-safe value: redacted details, audit arguments). Other values are kept as they are.
 */
export function mapStrings(value: unknown, fn: (text: string) => string): unknown {
  if (typeof value === 'string') return fn(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, fn));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, mapStrings(v, fn)]),
    );
  }
  return value;
}
