// Public API of @junction/telemetry: logs, traces and metrics. Names are exported one by one.

export { TELEMETRY_ERRORS } from './errors.js';
export type { TelemetryErrorCode } from './errors.js';

export { LOG_LEVELS, formatTextRecord } from './log-format.js';
export type { LogFormat, LogLevel, LogRecord } from './log-format.js';
export { createLogger } from './logger.js';
export type { LogFields, Logger, LoggerOptions, RootLogger } from './logger.js';
export type { FileRotation } from './sync-file-stream.js';
export { createNoopLogger } from './noop-logger.js';

export {
  MIN_SECRET_LENGTH,
  collectSecretValues,
  createRedactor,
  isSecretKey,
  redact,
  redactText,
  redactUrl,
} from './redact.js';
export type { RedactionPattern, Redactor } from './redact.js';
export { mapStrings } from './map-strings.js';

export { createOtlpSpanExporter, createTracing, resolveTracesUrl } from './tracing.js';
export type { TraceExporterKind, Tracing, TracingOptions } from './tracing.js';
export { tracingOptionsFromEnv } from './tracing-env.js';
export {
  SPAN_AGENT_EXECUTE,
  SPAN_LLM_GENERATE,
  SPAN_TOOL_CALL,
  activeTraceParent,
  agentExecuteAttributes,
  isTraceParent,
  llmGenerateAttributes,
  recordSpanError,
  toolCallAttributes,
  withSpan,
} from './spans.js';
export type {
  AgentExecuteAttributesInput,
  LlmGenerateAttributesInput,
  ToolCallAttributesInput,
  WithSpanOptions,
} from './spans.js';
// The OpenTelemetry types callers meet through withSpan and Tracing, so they need no direct dependency.
export { SpanKind, SpanStatusCode } from '@opentelemetry/api';
export type { Attributes, Span, Tracer } from '@opentelemetry/api';

export { METRIC_NAMES, createMetrics } from './metrics.js';
export type {
  GaugeSource,
  GaugeSourceName,
  LlmMetric,
  Metrics,
  MetricsOptions,
  RunMetric,
} from './metrics.js';
export { PROMETHEUS_CONTENT_TYPE } from './prometheus-text.js';
