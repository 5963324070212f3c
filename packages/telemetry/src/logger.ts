import winston from 'winston';
import { formatJsonRecord, formatTextRecord } from './log-format.js';
import type { LogFormat, LogLevel, LogRecord } from './log-format.js';
import { collectSecretValues, createRedactor } from './redact.js';
import type { Redactor } from './redact.js';
import { activeSpanIds } from './spans.js';
import { SyncFileStream, type FileRotation } from './sync-file-stream.js';

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
  /** When `file` is rotated. Default 20 MiB, five rotated files (`DEFAULT_FILE_ROTATION`). */
  fileRotation?: FileRotation;
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

/** Writes a record: `base` is already redacted (once, when the logger was made), `fields` not yet. */
type Emit = (level: LogLevel, msg: string, base: LogFields, fields: LogFields | undefined) => void;

function render(format: LogFormat): winston.Logform.Format {
  return winston.format((info) => {
    const record = info.record as LogRecord;
    info[MESSAGE] = format === 'json' ? formatJsonRecord(record) : formatTextRecord(record);
    return info;
  })();
}

/** A Logger adding `base` (redacted) to every record; a child's fields are redacted when it is made. */
function bindLogger(emit: Emit, redact: (fields: LogFields) => LogFields, base: LogFields): Logger {
  return {
    error: (msg, fields) => emit('error', msg, base, fields),
    warn: (msg, fields) => emit('warn', msg, base, fields),
    info: (msg, fields) => emit('info', msg, base, fields),
    debug: (msg, fields) => emit('debug', msg, base, fields),
    child: (fields) => bindLogger(emit, redact, Object.assign({}, base, redact(fields))),
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

  const fileStream =
    options.file === undefined ? undefined : new SyncFileStream(options.file, options.fileRotation);
  const transports: winston.transport[] = [
    new winston.transports.Stream({
      stream: options.stream ?? process.stderr,
      format: render(format),
    }),
  ];
  if (fileStream !== undefined) {
    // The file cannot be written any more (its disk, its folder's rights): said once on the
    // stream; the process and its other output go on.
    fileStream.once('error', (error: Error) => {
      (options.stream ?? process.stderr).write(
        `the log file ${fileStream.path} cannot be written (${error.message}); records go only here from now on\n`,
      );
    });
    fileStream.on('error', () => undefined);
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
  const redact = (fields: LogFields): LogFields =>
    (redactor.value(fields) ?? {}) as Record<string, unknown>;
  const emit: Emit = (recordLevel, msg, base, fields) => {
    if (closed || RANK[recordLevel] > RANK[level]) return;
    // A line written inside a span carries its trace and span ids, so a log search and a trace
    // lead to each other; ids the caller gives (a run's trace after its span ended) win.
    const ids = activeSpanIds();
    const record: LogRecord = {
      level: recordLevel,
      ts: now().toISOString(),
      msg: redactor.text(String(msg)),
      // Object.assign, not a spread: on Node 20's V8 `{ ...a, ...b }` takes a slow path
      // costing microseconds, paid here on every record.
      fields:
        fields === undefined
          ? ids === undefined
            ? base
            : Object.assign({}, base, ids)
          : Object.assign({}, base, ids, redact(fields)),
    };
    target.log({ level: recordLevel, message: record.msg, record });
  };

  return {
    ...bindLogger(emit, redact, redact(options.base ?? {})),
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
