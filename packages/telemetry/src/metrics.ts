import { performance } from 'node:perf_hooks';
import { ValueType } from '@opentelemetry/api';
import type { Counter, Histogram, Meter, ObservableResult } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import type { CollectionResult } from '@opentelemetry/sdk-metrics';
import type { Logger } from './logger.js';
import { serializePrometheus } from './prometheus-text.js';
import type { PrometheusFamily } from './prometheus-text.js';
import { PullMetricReader } from './pull-metric-reader.js';

/** The spec §6.4 metric names, exactly as published. */
export const METRIC_NAMES = {
  AGENT_RUNS_TOTAL: 'agent_runs_total',
  AGENT_RUNS_SUCCESS: 'agent_runs_success',
  AGENT_RUNS_FAILED: 'agent_runs_failed',
  AGENT_RUN_DURATION_SECONDS: 'agent_run_duration_seconds',
  AGENT_STEPS_TOTAL: 'agent_steps_total',
  LLM_REQUESTS_TOTAL: 'llm_requests_total',
  LLM_TOKENS_INPUT: 'llm_tokens_input',
  LLM_TOKENS_OUTPUT: 'llm_tokens_output',
  LLM_LATENCY_SECONDS: 'llm_latency_seconds',
  LLM_ERRORS_TOTAL: 'llm_errors_total',
  STATION_UPTIME_SECONDS: 'station_uptime_seconds',
  MCP_SERVERS_ACTIVE: 'mcp_servers_active',
  SCHEDULER_RUNS_PENDING: 'scheduler_runs_pending',
  DATABASE_SIZE_BYTES: 'database_size_bytes',
} as const;

/** The gauges whose values the apps provide. */
export type GaugeSourceName =
  | 'mcp_servers_active'
  | 'scheduler_runs_pending'
  | 'database_size_bytes';

/** Reads a gauge's current value at scrape time. */
export type GaugeSource = () => number | Promise<number>;

/** Bucket bounds of `agent_run_duration_seconds`: runs take seconds to many minutes. */
export const RUN_DURATION_BUCKETS = [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];
/** Bucket bounds of `llm_latency_seconds`. */
export const LLM_LATENCY_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120];

/** Options of createMetrics. */
export interface MetricsOptions {
  /** Start of `station_uptime_seconds`. Default: the process start. */
  startTime?: Date;
  /** Clock in epoch milliseconds. Default `Date.now`. */
  now?: () => number;
  /** Longest wait for gauge sources during one scrape. Default 5000 ms. */
  collectTimeoutMillis?: number;
  /** Failing gauge sources are logged here (once until they recover). */
  logger?: Logger;
  runDurationBuckets?: number[];
  llmLatencyBuckets?: number[];
}

/** One finished agent run. Statuses other than success (error, timeout, cancelled) count as `error`. */
export interface RunMetric {
  agentName: string;
  status: 'success' | 'error';
  durationSeconds: number;
  /** Model turns taken. */
  steps: number;
}

/** One model call. */
export interface LlmMetric {
  model: string;
  provider: string;
  inputTokens?: number;
  outputTokens?: number;
  latencySeconds: number;
  /** True when the call failed; it still counts as a request. */
  error?: boolean;
}

/** The process's meters and their Prometheus rendering. */
export interface Metrics {
  readonly meterProvider: MeterProvider;
  /** The `junction` meter, for instruments beyond the spec's. */
  readonly meter: Meter;
  /** Counts a finished run: runs, success or failed, steps, duration. */
  recordRun(run: RunMetric): void;
  /** Counts a model call: requests, tokens, latency, errors. */
  recordLlm(call: LlmMetric): void;
  /** Sets (or with undefined removes) the function read for a gauge at scrape time. */
  setGaugeSource(name: GaugeSourceName, source: GaugeSource | undefined): void;
  /** Collects every instrument now (gauge sources included). */
  collect(): Promise<CollectionResult>;
  /** The Prometheus text exposition (0.0.4) of every spec metric, for `GET /metrics`. */
  renderPrometheus(): Promise<string>;
  shutdown(): Promise<void>;
}

const FAMILIES: readonly PrometheusFamily[] = [
  { name: METRIC_NAMES.AGENT_RUNS_TOTAL, type: 'counter', help: 'Agent runs finished.' },
  {
    name: METRIC_NAMES.AGENT_RUNS_SUCCESS,
    type: 'counter',
    help: 'Agent runs that completed successfully.',
  },
  {
    name: METRIC_NAMES.AGENT_RUNS_FAILED,
    type: 'counter',
    help: 'Agent runs that ended in error, timeout or cancellation.',
  },
  {
    name: METRIC_NAMES.AGENT_RUN_DURATION_SECONDS,
    type: 'histogram',
    help: 'Duration of agent runs in seconds.',
  },
  {
    name: METRIC_NAMES.AGENT_STEPS_TOTAL,
    type: 'counter',
    help: 'Model turns taken by agent runs.',
  },
  { name: METRIC_NAMES.LLM_REQUESTS_TOTAL, type: 'counter', help: 'Model calls made.' },
  { name: METRIC_NAMES.LLM_TOKENS_INPUT, type: 'counter', help: 'Input tokens sent to models.' },
  {
    name: METRIC_NAMES.LLM_TOKENS_OUTPUT,
    type: 'counter',
    help: 'Output tokens received from models.',
  },
  {
    name: METRIC_NAMES.LLM_LATENCY_SECONDS,
    type: 'histogram',
    help: 'Latency of model calls in seconds.',
  },
  { name: METRIC_NAMES.LLM_ERRORS_TOTAL, type: 'counter', help: 'Model calls that failed.' },
  {
    name: METRIC_NAMES.STATION_UPTIME_SECONDS,
    type: 'gauge',
    help: 'Seconds since the station process started.',
  },
  {
    name: METRIC_NAMES.MCP_SERVERS_ACTIVE,
    type: 'gauge',
    help: 'MCP tool servers currently connected.',
  },
  {
    name: METRIC_NAMES.SCHEDULER_RUNS_PENDING,
    type: 'gauge',
    help: 'Schedules due and not yet fired.',
  },
  { name: METRIC_NAMES.DATABASE_SIZE_BYTES, type: 'gauge', help: 'Size of the database in bytes.' },
];

function helpOf(name: string): string {
  return FAMILIES.find((family) => family.name === name)?.help ?? name;
}

function isCount(value: number | undefined): value is number {
  return value !== undefined && Number.isFinite(value) && value >= 0;
}

/** Creates the spec §6.4 instruments on an OpenTelemetry MeterProvider read by a pull reader. */
export function createMetrics(options: MetricsOptions = {}): Metrics {
  const now = options.now ?? Date.now;
  const startMs = (options.startTime ?? new Date(performance.timeOrigin)).getTime();
  const collectTimeoutMillis = options.collectTimeoutMillis ?? 5000;
  const reader = new PullMetricReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const meter = meterProvider.getMeter('junction');

  const counter = (name: string): Counter =>
    meter.createCounter(name, { description: helpOf(name), valueType: ValueType.INT });
  const histogram = (name: string, buckets: number[]): Histogram =>
    meter.createHistogram(name, {
      description: helpOf(name),
      unit: 's',
      advice: { explicitBucketBoundaries: buckets },
    });

  const runsTotal = counter(METRIC_NAMES.AGENT_RUNS_TOTAL);
  const runsSuccess = counter(METRIC_NAMES.AGENT_RUNS_SUCCESS);
  const runsFailed = counter(METRIC_NAMES.AGENT_RUNS_FAILED);
  const runDuration = histogram(
    METRIC_NAMES.AGENT_RUN_DURATION_SECONDS,
    options.runDurationBuckets ?? RUN_DURATION_BUCKETS,
  );
  const stepsTotal = counter(METRIC_NAMES.AGENT_STEPS_TOTAL);
  const llmRequests = counter(METRIC_NAMES.LLM_REQUESTS_TOTAL);
  const llmTokensInput = counter(METRIC_NAMES.LLM_TOKENS_INPUT);
  const llmTokensOutput = counter(METRIC_NAMES.LLM_TOKENS_OUTPUT);
  const llmLatency = histogram(
    METRIC_NAMES.LLM_LATENCY_SECONDS,
    options.llmLatencyBuckets ?? LLM_LATENCY_BUCKETS,
  );
  const llmErrors = counter(METRIC_NAMES.LLM_ERRORS_TOTAL);

  meter
    .createObservableGauge(METRIC_NAMES.STATION_UPTIME_SECONDS, {
      description: helpOf(METRIC_NAMES.STATION_UPTIME_SECONDS),
      unit: 's',
    })
    .addCallback((result) => result.observe(Math.max(0, (now() - startMs) / 1000)));

  const sources = new Map<GaugeSourceName, GaugeSource>();
  const failing = new Set<GaugeSourceName>();
  const observeSource = async (name: GaugeSourceName, result: ObservableResult): Promise<void> => {
    const source = sources.get(name);
    if (source === undefined) return;
    try {
      const value = await source();
      if (typeof value === 'number' && Number.isFinite(value)) result.observe(value);
      if (failing.delete(name))
        options.logger?.info('metric gauge source recovered', { metric: name });
    } catch (error) {
      // A broken source leaves its gauge out of this scrape; the other metrics still render.
      if (!failing.has(name)) {
        failing.add(name);
        options.logger?.warn('metric gauge source failed', { metric: name, error });
      }
    }
  };
  const gaugeNames: GaugeSourceName[] = [
    METRIC_NAMES.MCP_SERVERS_ACTIVE,
    METRIC_NAMES.SCHEDULER_RUNS_PENDING,
    METRIC_NAMES.DATABASE_SIZE_BYTES,
  ];
  for (const name of gaugeNames) {
    meter
      .createObservableGauge(name, {
        description: helpOf(name),
        ...(name === METRIC_NAMES.DATABASE_SIZE_BYTES ? { unit: 'By' } : {}),
      })
      .addCallback((result) => observeSource(name, result));
  }

  const collect = (): Promise<CollectionResult> =>
    reader.collect({ timeoutMillis: collectTimeoutMillis });

  return {
    meterProvider,
    meter,
    recordRun: (run): void => {
      const labels = { agent_name: run.agentName };
      runsTotal.add(1, labels);
      (run.status === 'success' ? runsSuccess : runsFailed).add(1, labels);
      if (isCount(run.steps)) stepsTotal.add(Math.round(run.steps), labels);
      if (isCount(run.durationSeconds)) {
        runDuration.record(run.durationSeconds, Object.assign({}, labels, { status: run.status }));
      }
    },
    recordLlm: (call): void => {
      const labels = { model: call.model, provider: call.provider };
      llmRequests.add(1, labels);
      if (call.error === true) llmErrors.add(1, labels);
      if (isCount(call.inputTokens)) llmTokensInput.add(Math.round(call.inputTokens), labels);
      if (isCount(call.outputTokens)) llmTokensOutput.add(Math.round(call.outputTokens), labels);
      if (isCount(call.latencySeconds)) llmLatency.record(call.latencySeconds, labels);
    },
    setGaugeSource: (name, source): void => {
      if (source === undefined) sources.delete(name);
      else sources.set(name, source);
    },
    collect,
    renderPrometheus: async (): Promise<string> => {
      const { resourceMetrics, errors } = await collect();
      for (const error of errors) options.logger?.warn('metric collection error', { error });
      return serializePrometheus(resourceMetrics, FAMILIES);
    },
    shutdown: (): Promise<void> => meterProvider.shutdown(),
  };
}
