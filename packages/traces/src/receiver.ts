// The OTLP/HTTP trace receiver: `POST /v1/traces` in protobuf or JSON, plain or gzip, written
// to the store in one insert before it answers. Every refusal is JSON with a stable code,
// by kind from the one table of errors.ts; bodies are never logged.
import zlib from 'node:zlib';
import express, {
  type ErrorRequestHandler,
  type Express,
  type Request,
  type Response,
} from 'express';
import { isStoreError, type SpanRecord } from '@junction/store';
import type { Logger } from '@junction/telemetry';
import { decodeOtlpTraces, otlpTraceTypes, type OtlpEncoding } from './decode.js';
import { TRACES_HTTP_STATUS, TracesError, type TracesErrorCode } from './errors.js';
import type { TraceStore } from './trace-store.js';

/** The path OTLP/HTTP exporters send traces to. */
export const TRACE_RECEIVER_PATH = '/v1/traces';
/** Largest body taken by default, before and after gunzip: 4 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** What the receiver needs. */
export interface TraceReceiverOptions {
  store: TraceStore;
  logger: Logger;
  /** Largest body taken, counted on the wire and again after gunzip. Default 4 MiB. */
  maxBodyBytes?: number;
}

/** A refusal on its way to the one place that answers it. */
class Refusal extends TracesError {
  constructor(
    code: TracesErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(code, message);
  }
}

const MEDIA_TYPES: Readonly<Record<string, OtlpEncoding>> = {
  'application/x-protobuf': 'protobuf',
  'application/json': 'json',
};

/** The encoding the Content-Type names; anything else is UNSUPPORTED_MEDIA_TYPE. */
function encodingOf(req: Request): OtlpEncoding {
  const header = req.headers['content-type'] ?? '';
  const [type = '', ...params] = header.split(';').map((part) => part.trim().toLowerCase());
  const encoding = MEDIA_TYPES[type];
  if (!encoding) {
    throw new Refusal(
      'UNSUPPORTED_MEDIA_TYPE',
      `The Content-Type ${JSON.stringify(header)} is not an OTLP trace encoding. Send application/x-protobuf or application/json.`,
    );
  }
  const charset = params.find((p) => p.startsWith('charset='))?.slice('charset='.length);
  if (
    encoding === 'json' &&
    charset !== undefined &&
    !['utf-8', 'utf8', '"utf-8"'].includes(charset)
  ) {
    throw new Refusal(
      'UNSUPPORTED_MEDIA_TYPE',
      `The charset ${JSON.stringify(charset)} is not supported. Send OTLP/JSON as UTF-8 (application/json; charset=utf-8).`,
    );
  }
  return encoding;
}

/** True for a gzip body, false for identity; any other Content-Encoding is UNSUPPORTED_MEDIA_TYPE. */
function isGzip(req: Request): boolean {
  const value = (req.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (value === '' || value === 'identity') return false;
  if (value === 'gzip' || value === 'x-gzip') return true;
  throw new Refusal(
    'UNSUPPORTED_MEDIA_TYPE',
    `The Content-Encoding ${JSON.stringify(value)} is not supported. Send the body uncompressed or gzip.`,
  );
}

function tooLarge(limit: number, after: 'sent' | 'unzipped'): Refusal {
  return new Refusal(
    'PAYLOAD_TOO_LARGE',
    `The request body is larger than ${limit} bytes${after === 'unzipped' ? ' once unzipped' : ''}. Export fewer spans per request (the batch span processor's maxExportBatchSize).`,
  );
}

/**
 * The body, unzipped when `gzip`, refused past `limit` bytes on the wire or after unzipping.
 * Inflating stops at the limit, so a small gzip bomb costs no more than `limit`; the rest of
 * a refused body is read and dropped, never kept, so the caller still hears the answer.
 */
function readBody(req: Request, limit: number, gzip: boolean): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let received = 0;
    let settled = false;
    const inflater = gzip ? zlib.createGunzip() : undefined;

    const fail = (refusal: Refusal): void => {
      if (settled) return;
      settled = true;
      chunks.length = 0;
      inflater?.destroy();
      reject(refusal);
    };
    const keep = (chunk: Buffer): void => {
      if (settled) return;
      kept += chunk.length;
      if (kept > limit) fail(tooLarge(limit, gzip ? 'unzipped' : 'sent'));
      else chunks.push(chunk);
    };
    const finish = (): void => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks, kept));
    };

    if (inflater) {
      inflater.on('data', keep);
      inflater.on('end', finish);
      inflater.on('error', (err: Error) =>
        fail(new Refusal('INVALID_OTLP', `The body is not valid gzip (${err.message}).`)),
      );
    }
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      received += chunk.length;
      if (received > limit) fail(tooLarge(limit, 'sent'));
      else if (inflater) inflater.write(chunk);
      else keep(chunk);
    });
    req.on('end', () => {
      if (inflater && !settled) inflater.end();
      else finish();
    });
    req.on('error', (err: Error) =>
      fail(new Refusal('INVALID_REQUEST', `The request body could not be read (${err.message}).`)),
    );
    req.on('close', () => {
      if (!req.complete) fail(new Refusal('INVALID_REQUEST', 'The request ended before its body.'));
    });
  });
}

/** Answers a refusal as JSON `{ error: { code, message } }` with its status. */
function refuse(res: Response, refusal: Refusal): void {
  if (res.headersSent) return;
  res
    .status(TRACES_HTTP_STATUS[refusal.code])
    .set(refusal.headers)
    .json({ error: { code: refusal.code, message: refusal.message } });
}

/** Logs a refusal at debug level, with `details` (never the body), and answers it. */
function answerRefusal(
  logger: Logger,
  res: Response,
  refusal: Refusal,
  details: Record<string, unknown> = {},
): void {
  logger.debug('refused an OTLP trace export', {
    code: refusal.code,
    status: TRACES_HTTP_STATUS[refusal.code],
    ...details,
  });
  refuse(res, refusal);
}

/** One export request, read and decoded: how it was sent, and the spans it carries. */
interface ReceivedExport {
  encoding: OtlpEncoding;
  gzip: boolean;
  records: SpanRecord[];
}

/**
 * Checks the headers, reads the body and decodes it. A bad header or size throws a Refusal; a
 * body that is not OTLP throws the decoder's TracesError.
 */
async function readExport(req: Request, limit: number): Promise<ReceivedExport> {
  const encoding = encodingOf(req);
  const gzip = isGzip(req);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw tooLarge(limit, 'sent');
  }
  const body = await readBody(req, limit, gzip);
  return { encoding, gzip, records: decodeOtlpTraces(body, encoding) };
}

/**
 * The `POST /v1/traces` handler: reads the export, writes its spans in one insert, then
 * answers an empty ExportTraceServiceResponse in the request's encoding.
 */
function receiveTraces(
  store: TraceStore,
  logger: Logger,
  limit: number,
): (req: Request, res: Response) => Promise<void> {
  // Encoded when first needed: loading the OTLP types costs every start of a service.
  let emptyResponse: Buffer | undefined;

  return async (req, res) => {
    let received: ReceivedExport;
    try {
      received = await readExport(req, limit);
    } catch (err) {
      if (err instanceof Refusal) return answerRefusal(logger, res, err);
      if (err instanceof TracesError) {
        // The message may quote the body back to its sender; the log gets only where it broke.
        return answerRefusal(
          logger,
          res,
          new Refusal('INVALID_OTLP', `${err.message}. Nothing was stored.`),
          {
            path: err.details.path ?? null,
          },
        );
      }
      throw err;
    }
    const { encoding, gzip, records } = received;

    let stored: number;
    try {
      stored = await store.spans.insert(records);
    } catch (err) {
      if (isStoreError(err, 'INVALID_INPUT')) {
        return answerRefusal(
          logger,
          res,
          new Refusal('INVALID_OTLP', `${err.message} Nothing was stored.`),
        );
      }
      logger.warn('could not store received spans', {
        spans: records.length,
        error: err instanceof Error ? err.message : String(err),
      });
      return refuse(
        res,
        new Refusal(
          'STORE_UNAVAILABLE',
          'The spans could not be stored; nothing of this export was kept. Send it again later.',
          { 'Retry-After': '1' },
        ),
      );
    }
    logger.debug('received spans', { spans: records.length, stored, encoding, gzip });
    if (encoding === 'json') {
      res.status(200).json({});
    } else {
      emptyResponse ??= Buffer.from(otlpTraceTypes().response.encode({}).finish());
      res.status(200).type('application/x-protobuf').send(emptyResponse);
    }
  };
}

/**
 * The last error handler: a client error express raised (a malformed URL, say) is
 * INVALID_REQUEST; anything else is logged and answered INTERNAL_ERROR.
 */
function answerFailure(logger: Logger): ErrorRequestHandler {
  return (err: unknown, _req, res, _next) => {
    const status = (err as { status?: unknown } | null)?.status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      refuse(
        res,
        new Refusal('INVALID_REQUEST', 'The request could not be read; check its URL and headers.'),
      );
      return;
    }
    logger.error('trace receiver request failed', {
      error: err instanceof Error ? err.message : String(err),
    });
    refuse(
      res,
      new Refusal(
        'INTERNAL_ERROR',
        'The trace receiver failed on this request; nothing was stored. Send it again.',
      ),
    );
  };
}

/**
 * An express app receiving OTLP/HTTP traces at `POST /v1/traces` (protobuf or JSON, plain or
 * gzip) into `store.spans`. It answers 200 with an empty ExportTraceServiceResponse once the
 * spans are written; refusals are JSON: 400 INVALID_OTLP, 405 METHOD_NOT_ALLOWED, 413
 * PAYLOAD_TOO_LARGE, 415 UNSUPPORTED_MEDIA_TYPE, 503 STORE_UNAVAILABLE, 404 for other paths.
 * Mount it before any body parser: it reads the request stream itself.
 */
export function createTraceReceiverApp(options: TraceReceiverOptions): Express {
  const { store, logger } = options;
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new RangeError(
      `maxBodyBytes must be a whole number of at least 1; got ${String(limit)}.`,
    );
  }

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.post(TRACE_RECEIVER_PATH, receiveTraces(store, logger, limit));

  app.all(TRACE_RECEIVER_PATH, (req, res) => {
    answerRefusal(
      logger,
      res,
      new Refusal(
        'METHOD_NOT_ALLOWED',
        `${req.method} is not allowed on ${TRACE_RECEIVER_PATH}; OTLP exporters send traces with POST.`,
        { Allow: 'POST' },
      ),
    );
  });

  app.use((req, res) => {
    refuse(
      res,
      new Refusal(
        'NOT_FOUND',
        `There is nothing at ${req.method} ${req.path}; the trace receiver takes POST ${TRACE_RECEIVER_PATH}.`,
      ),
    );
  });

  app.use(answerFailure(logger));
  return app;
}
