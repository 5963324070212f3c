// Public API of @junction/traces. Every name is exported on purpose; nothing else is public.
export { StoreSpanExporter } from './store-exporter.js';
export type { StoreSpanExporterOptions } from './store-exporter.js';
export { createTraceReceiverApp } from './receiver.js';
export type { TraceReceiverOptions } from './receiver.js';
export { startTraceRetention } from './retention.js';
export type { TraceRetention, TraceRetentionOptions } from './retention.js';
export type { TraceStore } from './trace-store.js';
