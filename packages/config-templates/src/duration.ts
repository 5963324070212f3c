// The one grammar for durations and points in time that people type: CLI flags (`--period`,
// `--older-than`, `--min-duration`) and REST query parameters (`min_duration`, `since`,
// `until`) read the same words the same way, and say the same forms when they refuse one.
// It lives in a base package so every layer above can use it.

/** Milliseconds in each unit of the duration grammar. */
export const DURATION_UNITS_MS = Object.freeze({
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
} as const);

/** The longest duration, in the grammar's own words: 100 years, well inside the range of a Date. */
export const MAX_DURATION_TEXT = '36500d';

/** The longest duration accepted, in milliseconds (`36500d`). */
export const MAX_DURATION_MS = 36_500 * DURATION_UNITS_MS.d;

/**
 * A duration: a whole number directly followed by one unit, `ms`, `s`, `m`, `h` or `d`. No sign,
 * fraction, space, upper case, bare number or compound (`1h30m`): each reads two ways.
 */
export const DURATION_PATTERN = /^(\d+)(ms|s|m|h|d)$/;

/** An ISO 8601 date or date-time: `2025-01-31`, `2025-01-31T12:00`, `2025-01-31T12:00:00.5+02:00`. */
export const ISO_TIME_PATTERN =
  /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/** Examples of durations, for help texts. */
export const DURATION_EXAMPLES = '500ms, 5s, 2m, 1h, 7d';

/** The duration grammar in words, for messages: what a refused value should have been. */
export const DURATION_FORMS = `a whole number followed by ms, s, m, h or d (${DURATION_EXAMPLES})`;

/** The time grammar in words, for messages. */
export const TIME_FORMS = `an ISO 8601 time (2025-01-31T12:00:00Z) or ${DURATION_FORMS} meaning that long ago`;

/** Why a text is not a duration: not of the form, or longer than MAX_DURATION_TEXT. */
export type DurationProblem = 'not-a-duration' | 'too-long';

/** A duration read from text: its milliseconds, or why it is refused. */
export type DurationResult = { ok: true; ms: number } | { ok: false; problem: DurationProblem };

/** A point in time as typed: a Date, or a number of milliseconds before now (the reader's clock decides when now is). */
export type TimePoint = Date | { agoMs: number };

/** Why a text is not a point in time: neither form, an ISO shape that is no real date, or a duration too long ago. */
export type TimePointProblem = 'not-a-time' | 'not-a-date' | 'too-long';

/** A point in time read from text, or why it is refused. */
export type TimePointResult =
  | { ok: true; time: TimePoint }
  | { ok: false; problem: TimePointProblem };

/** Reads `500ms`, `5s`, `2m`, `1h`, `7d` (see DURATION_PATTERN) as milliseconds, at most MAX_DURATION_MS. */
export function parseDuration(text: string): DurationResult {
  const match = DURATION_PATTERN.exec(text);
  if (!match) return { ok: false, problem: 'not-a-duration' };
  const unit = match[2] as keyof typeof DURATION_UNITS_MS;
  const ms = Number(match[1]) * DURATION_UNITS_MS[unit];
  return Number.isSafeInteger(ms) && ms <= MAX_DURATION_MS
    ? { ok: true, ms }
    : { ok: false, problem: 'too-long' };
}

/** One term of a duration in a file: a number (fractions allowed) and a unit, as in `1h30m`. */
const FILE_TERM = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;

/** A duration in a file: one or more terms, nothing between them (`1h30m`, `1.5s`, `500ms`). */
const FILE_TERMS = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/;

/** An ISO 8601 duration of days and time (`PT5M`, `P1DT2H`, `PT0.5S`); not `P` or `PT` alone. */
const ISO_DURATION =
  /^P(?:(\d+)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i;

/**
 * Reads a duration written in a file: the same units (`ms`, `s`, `m`, `h`, `d`) and the same
 * limit (MAX_DURATION_MS) as `parseDuration`, plus what workflow files of the reference carry —
 * Go-style compounds and fractions (`1h30m`, `1.5s`), ISO 8601 (`PT5M`), and a bare number
 * (or a YAML number) of seconds. Looser than what people type, because a file's format is
 * fixed by the tools that write it; the reading of each unit is the same.
 */
export function parseFileDuration(value: unknown): DurationResult {
  let ms: number;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) return { ok: false, problem: 'not-a-duration' };
    ms = value * DURATION_UNITS_MS.s;
  } else if (typeof value !== 'string') {
    return { ok: false, problem: 'not-a-duration' };
  } else {
    const text = value.trim();
    const iso = ISO_DURATION.exec(text);
    if (/^\d+(\.\d+)?$/.test(text)) ms = Number(text) * DURATION_UNITS_MS.s;
    else if (FILE_TERMS.test(text)) {
      ms = 0;
      for (const [, amount, unit] of text.matchAll(FILE_TERM)) {
        ms += Number(amount) * DURATION_UNITS_MS[unit as keyof typeof DURATION_UNITS_MS];
      }
    } else if (iso && text.length > 1 && !/T$/i.test(text)) {
      const [, d, h, m, s] = iso;
      ms =
        Number(d ?? 0) * DURATION_UNITS_MS.d +
        Number(h ?? 0) * DURATION_UNITS_MS.h +
        Number(m ?? 0) * DURATION_UNITS_MS.m +
        Number(s ?? 0) * DURATION_UNITS_MS.s;
    } else return { ok: false, problem: 'not-a-duration' };
  }
  return ms <= MAX_DURATION_MS ? { ok: true, ms } : { ok: false, problem: 'too-long' };
}

/** Reads an ISO 8601 time, or a duration meaning that long before now. */
export function parseTimePoint(text: string): TimePointResult {
  if (ISO_TIME_PATTERN.test(text)) {
    const at = new Date(text);
    return Number.isNaN(at.getTime())
      ? { ok: false, problem: 'not-a-date' }
      : { ok: true, time: at };
  }
  const duration = parseDuration(text);
  if (duration.ok) return { ok: true, time: { agoMs: duration.ms } };
  return { ok: false, problem: duration.problem === 'too-long' ? 'too-long' : 'not-a-time' };
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
