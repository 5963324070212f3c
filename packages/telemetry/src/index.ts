// Public API of @junction/telemetry: logs, traces and metrics. Names are exported one by one.

export { TELEMETRY_ERRORS, TelemetryError } from './errors.js';
export type { TelemetryErrorCode, TelemetryErrorDetails } from './errors.js';

export { LOG_LEVELS, formatJsonRecord, formatTextRecord } from './log-format.js';
export type { LogFormat, LogLevel, LogRecord } from './log-format.js';
export { createLogger } from './logger.js';
export type { LogFields, Logger, LoggerOptions, RootLogger } from './logger.js';
export type { FileRotation } from './sync-file-stream.js';
export { createNoopLogger } from './noop-logger.js';

export {
  MIN_SECRET_LENGTH,
  REDACTED,
  collectSecretValues,
  createRedactor,
  isSecretKey,
  redact,
  redactText,
  redactUrl,
} from './redact.js';
export type { RedactionPattern, Redactor } from './redact.js';
export { mapStrings } from './map-strings.js';

export { AsyncLocalStorageContextManager, ensureContextManager } from './context-manager.js';
export { DEFAULT_SAMPLER, SAMPLER_NAMES, createSampler, parseSamplerRatio } from './samplers.js';
export type { SamplerName } from './samplers.js';
export {
  DEFAULT_OTLP_ENDPOINT,
  createOtlpSpanExporter,
  createTracing,
  resolveTracesUrl,
} from './tracing.js';
export type { TraceExporterKind, Tracing, TracingOptions } from './tracing.js';
export { parseOtlpHeaders, tracingOptionsFromEnv } from './tracing-env.js';
export {
  GEN_AI_ATTR,
  GEN_AI_OPERATION,
  MAX_TASK_ATTRIBUTE_LENGTH,
  SPAN_AGENT_EXECUTE,
  SPAN_ATTR,
  SPAN_DB_OPERATION,
  SPAN_LLM_GENERATE,
  SPAN_PROMPT_RENDER,
  SPAN_TOOL_CALL,
  activeSpanIds,
  activeTraceId,
  activeTraceParent,
  agentExecuteAttributes,
  isTraceParent,
  llmGenerateAttributes,
  recordSpanError,
  runIdOf,
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

export {
  LLM_LATENCY_BUCKETS,
  METRIC_NAMES,
  RUN_DURATION_BUCKETS,
  createMetrics,
} from './metrics.js';
export type {
  GaugeSource,
  GaugeSourceName,
  LlmMetric,
  Metrics,
  MetricsOptions,
  RunMetric,
} from './metrics.js';
export { PullMetricReader } from './pull-metric-reader.js';
export {
  PROMETHEUS_CONTENT_TYPE,
  escapeLabelValue,
  sanitizeMetricName,
  serializePrometheus,
} from './prometheus-text.js';
export type { PrometheusFamily, PrometheusType } from './prometheus-text.js';
