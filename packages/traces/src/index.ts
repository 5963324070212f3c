// Public API of @junction/traces. Every name is exported on purpose; nothing else is public.
export { decodeOtlpTraces, OtlpDecodeError, UNKNOWN_SERVICE } from './decode.js';
export type { OtlpEncoding } from './decode.js';
export { spanRecordsOf } from './readable.js';
export { StoreSpanExporter } from './store-exporter.js';
export type { StoreSpanExporterOptions } from './store-exporter.js';
export {
  createTraceReceiverApp,
  DEFAULT_MAX_BODY_BYTES,
  TRACE_RECEIVER_ERROR_CODES,
  TRACE_RECEIVER_HTTP_STATUS,
  TRACE_RECEIVER_PATH,
} from './receiver.js';
export type { TraceReceiverErrorCode, TraceReceiverOptions } from './receiver.js';
export { DEFAULT_RETENTION_INTERVAL_MS, startTraceRetention } from './retention.js';
export type { TraceRetention, TraceRetentionOptions } from './retention.js';
// The records the store keeps, for callers that only import this package.
export type { SpanEventRecord, SpanRecord, TraceSearch, TraceSummary } from '@junction/store';
