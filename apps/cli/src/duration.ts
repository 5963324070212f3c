import {
  DURATION_FORMS,
  DURATION_UNITS_MS as UNIT_MS,
  MAX_DURATION_TEXT,
  parseDuration as readDuration,
} from '@junction/config-templates';
import { CliError } from './cli-error.js';

/** Reads a duration flag in the shared grammar (500ms, 5s, 2m, 1h, 7d); INVALID_ARGUMENT naming `flag` otherwise. */
export function parseDuration(text: string, flag: string): number {
  // Spaces around a flag value are the shell's quoting, not part of the value.
  const result = readDuration(text.trim());
  if (!result.ok) {
    throw new CliError(
      'INVALID_ARGUMENT',
      `${flag} must be ${DURATION_FORMS}, at most ${MAX_DURATION_TEXT}; got ${JSON.stringify(text)}.`,
      { flag, value: text },
    );
  }
  return result.ms;
}

/** A run duration for people: `850ms`, `4.2s`, `42s`, `2m05s`, `1h02m`, `3d04h`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const pad = (n: number): string => String(n).padStart(2, '0');
  if (s < 3600) return `${Math.floor(s / 60)}m${pad(s % 60)}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h${pad(Math.floor((s % 3600) / 60))}m`;
  return `${Math.floor(s / 86_400)}d${pad(Math.floor((s % 86_400) / 3600))}h`;
}

/** A time to the second in UTC, ISO 8601: `2026-11-25T08:00:00Z`. */
export function formatTime(when: Date): string {
  return when.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * A time as every table shows it: `12s ago`, `5m ago`, `3h ago`, `2d ago` — or, ahead of `now`,
 * `in 12s`, `in 5m`, `in 3h`, `in 2d` — within a week; an ISO time (to the second) beyond.
 * `--json` always gives ISO times.
 */
export function formatWhen(when: Date, now: Date = new Date()): string {
  const ms = when.getTime() - now.getTime();
  if (ms <= 1000) return formatAgo(when, now);
  if (ms >= 7 * UNIT_MS.d) return formatTime(when);
  if (ms < UNIT_MS.m) return `in ${Math.ceil(ms / UNIT_MS.s)}s`;
  if (ms < UNIT_MS.h) return `in ${Math.round(ms / UNIT_MS.m)}m`;
  if (ms < UNIT_MS.d) return `in ${Math.round(ms / UNIT_MS.h)}h`;
  return `in ${Math.round(ms / UNIT_MS.d)}d`;
}

/** `12s ago`, `5m ago`, `3h ago`, `2d ago` within a week of `now`; an ISO time (to the second) beyond. */
export function formatAgo(when: Date, now: Date = new Date()): string {
  const ms = now.getTime() - when.getTime();
  if (ms >= 7 * UNIT_MS.d || ms < -60_000) return formatTime(when);
  if (ms < 1000) return 'just now';
  if (ms < UNIT_MS.m) return `${Math.floor(ms / UNIT_MS.s)}s ago`;
  if (ms < UNIT_MS.h) return `${Math.floor(ms / UNIT_MS.m)}m ago`;
  if (ms < UNIT_MS.d) return `${Math.floor(ms / UNIT_MS.h)}h ago`;
  return `${Math.floor(ms / UNIT_MS.d)}d ago`;
}
