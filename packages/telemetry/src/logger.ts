import winston from 'winston';
import { formatJsonRecord, formatTextRecord } from './log-format.js';
import type { LogFormat, LogLevel, LogRecord } from './log-format.js';
import { collectSecretValues, createRedactor } from './redact.js';
import type { Redactor } from './redact.js';
import { SyncFileStream } from './sync-file-stream.js';

/** Free fields of a log record (`agent_id`, `run_id`, `duration_ms`, `status`, an `error`, ...). */
export type LogFields = Record<string, unknown>;

/** The logger every Junction package takes as a dependency; it hides winston. */
export interface Logger {
  error(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  debug(msg: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every record it writes. */
  child(fields: LogFields): Logger;
}

/** The logger an app creates once: a Logger plus its level, its redactor and a way to close its outputs. */
export interface RootLogger extends Logger {
  readonly level: LogLevel;
  /** The redactor this logger applies; hand it to code that stores run records, audit arguments or errors. */
  readonly redactor: Redactor;
  /** Flushes and closes the outputs; records logged afterwards are dropped. */
  close(): Promise<void>;
}

/** Options of createLogger. */
export interface LoggerOptions {
  /** Records below this level are dropped. Default `info`. */
  level?: LogLevel;
  /** Format of the `stream` output. Default `json`. The `file` output is always JSON lines. */
  format?: LogFormat;
  /** Where records go. Default `process.stderr`, so `junction stdio` keeps stdout for JSON-RPC. */
  stream?: NodeJS.WritableStream;
  /** Also append JSON lines to this file (created with its folder when missing). */
  file?: string;
  /** Values to redact wherever they appear (API keys, registration keys, tokens from config). */
  secrets?: readonly string[];
  /** Environment whose secret-looking variables are redacted too. Default `process.env`; pass `{}` to skip. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Fields added to every record. */
  base?: LogFields;
  /** Clock for `ts`. Default `() => new Date()`. */
  now?: () => Date;
}

const RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };
const MESSAGE = Symbol.for('message');

type Emit = (level: LogLevel, msg: string, fields: LogFields | undefined) => void;

function render(format: LogFormat): winston.Logform.Format {
  return winston.format((info) => {
    const record = info.record as LogRecord;
    info[MESSAGE] = format === 'json' ? formatJsonRecord(record) : formatTextRecord(record);
    return info;
  })();
}

function bindLogger(emit: Emit, base: LogFields): Logger {
  const write = (level: LogLevel, msg: string, fields: LogFields | undefined): void =>
    emit(level, msg, fields === undefined ? base : { ...base, ...fields });
  return {
    error: (msg, fields) => write('error', msg, fields),
    warn: (msg, fields) => write('warn', msg, fields),
    info: (msg, fields) => write('info', msg, fields),
    debug: (msg, fields) => write('debug', msg, fields),
    child: (fields) => bindLogger(emit, { ...base, ...fields }),
  };
}

/** Creates the process logger on winston: JSON or text lines, level filtering, secret redaction, optional JSON-lines file. */
export function createLogger(options: LoggerOptions = {}): RootLogger {
  const level = options.level ?? 'info';
  const format = options.format ?? 'json';
  const now = options.now ?? ((): Date => new Date());
  const redactor = createRedactor([
    ...(options.secrets ?? []),
    ...collectSecretValues(options.env ?? process.env),
  ]);

  const fileStream = options.file === undefined ? undefined : new SyncFileStream(options.file);
  const transports: winston.transport[] = [
    new winston.transports.Stream({
      stream: options.stream ?? process.stderr,
      format: render(format),
    }),
  ];
  if (fileStream !== undefined) {
    transports.push(new winston.transports.Stream({ stream: fileStream, format: render('json') }));
  }
  const target = winston.createLogger({
    level,
    levels: RANK,
    // The records are fully built before winston sees them; skip winston's default JSON pass.
    format: winston.format((info) => info)(),
    transports,
    exitOnError: false,
  });
  // A broken log output (EPIPE on a closed stderr) must not crash the process.
  target.on('error', () => undefined);

  let closed = false;
  const emit: Emit = (recordLevel, msg, fields) => {
    if (closed || RANK[recordLevel] > RANK[level]) return;
    const record: LogRecord = {
      level: recordLevel,
      ts: now().toISOString(),
      msg: redactor.text(String(msg)),
      fields: (redactor.value(fields ?? {}) ?? {}) as Record<string, unknown>,
    };
    target.log({ level: recordLevel, message: record.msg, record });
  };

  return {
    ...bindLogger(emit, options.base ?? {}),
    level,
    redactor,
    close: async (): Promise<void> => {
      if (closed) return;
      closed = true;
      await new Promise<void>((resolve) => {
        target.once('finish', () => resolve());
        target.end();
      });
      if (fileStream !== undefined) {
        await new Promise<void>((resolve) => fileStream.end(() => resolve()));
      }
    },
  };
}
