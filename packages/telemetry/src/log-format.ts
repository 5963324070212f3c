/** Log levels, most severe first (spec §2.4 `log_level`). */
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;

/** One of `error`, `warn`, `info`, `debug`. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Output format of log records (spec §2.4 `log_format`). */
export type LogFormat = 'json' | 'text';

/** One log record after redaction: the spec's §6.5 `level`, `ts`, `msg`, plus free fields. */
export interface LogRecord {
  level: LogLevel;
  ts: string;
  msg: string;
  fields: Record<string, unknown>;
}

const RESERVED = new Set(['level', 'ts', 'msg']);

/** The record as one JSON line (no newline): `level`, `ts`, `msg` first, then the fields; a field named like a reserved key is kept as `_<key>`. */
export function formatJsonRecord(record: LogRecord): string {
  const { fields } = record;
  let line = `{"level":${JSON.stringify(record.level)},"ts":${JSON.stringify(record.ts)},"msg":${JSON.stringify(record.msg)}`;
  // Written field by field (no object built per record); a reserved name takes the slower
  // path, where its `_` copy and a field already named so become one key.
  for (const key in fields) {
    if (RESERVED.has(key)) return formatWithReserved(record);
    const json = JSON.stringify(fields[key]);
    if (json !== undefined) line += `,${JSON.stringify(key)}:${json}`;
  }
  return `${line}}`;
}

function formatWithReserved(record: LogRecord): string {
  const out: Record<string, unknown> = { level: record.level, ts: record.ts, msg: record.msg };
  for (const [key, value] of Object.entries(record.fields)) {
    if (value === undefined) continue;
    out[RESERVED.has(key) ? `_${key}` : key] = value;
  }
  return JSON.stringify(out);
}

/** The record as one readable line (no newline): `2026-01-02T03:04:05.000Z INFO  msg key=value`. */
export function formatTextRecord(record: LogRecord): string {
  const parts = [record.ts, record.level.toUpperCase().padEnd(5), escapeLine(record.msg)];
  for (const [key, value] of Object.entries(record.fields)) {
    if (value === undefined) continue;
    parts.push(`${key}=${textValue(value)}`);
  }
  return parts.join(' ');
}

function escapeLine(text: string): string {
  return text.replace(/\r?\n/g, '\\n');
}

function textValue(value: unknown): string {
  if (typeof value === 'string') {
    return value.length > 0 && /^[^\s"=\\]+$/.test(value) ? value : JSON.stringify(value);
  }
  if (typeof value === 'number' || typeof value === 'boolean' || value === null)
    return String(value);
  return JSON.stringify(value) ?? String(value);
}
