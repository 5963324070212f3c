import type { Attributes } from '@opentelemetry/api';
import { DataPointType } from '@opentelemetry/sdk-metrics';
import type { MetricData, ResourceMetrics } from '@opentelemetry/sdk-metrics';

/** Content-Type of the Prometheus text exposition format 0.0.4. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** A Prometheus metric type. */
export type PrometheusType = 'counter' | 'gauge' | 'histogram';

/** A metric family that is always listed (HELP and TYPE), even before it has samples. */
export interface PrometheusFamily {
  name: string;
  type: PrometheusType;
  help: string;
}

interface Family {
  type: PrometheusType;
  help: string;
  lines: string[];
}

/** A valid Prometheus metric name: characters outside `[a-zA-Z0-9_:]` become `_`; names are otherwise kept exactly (no `_total`, no unit suffix). */
export function sanitizeMetricName(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_:]/g, '_');
  return /^[a-zA-Z_:]/.test(cleaned) ? cleaned : `_${cleaned}`;
}

function sanitizeLabelName(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_]/g, '_');
  return /^[a-zA-Z_]/.test(cleaned) ? cleaned : `_${cleaned}`;
}

/** A label value escaped for the text format: backslash, double quote and newline. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function escapeHelp(help: string): string {
  return help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function formatNumber(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

function labelValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return JSON.stringify(value);
  return String(value);
}

function formatLabels(attributes: Attributes, extra?: [string, string]): string {
  const pairs: string[] = [];
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null) continue;
    pairs.push(`${sanitizeLabelName(key)}="${escapeLabelValue(labelValue(value))}"`);
  }
  if (extra !== undefined) pairs.push(`${extra[0]}="${escapeLabelValue(extra[1])}"`);
  return pairs.length === 0 ? '' : `{${pairs.join(',')}}`;
}

function typeOf(metric: MetricData): PrometheusType | undefined {
  switch (metric.dataPointType) {
    case DataPointType.SUM:
      return metric.isMonotonic ? 'counter' : 'gauge';
    case DataPointType.GAUGE:
      return 'gauge';
    case DataPointType.HISTOGRAM:
      return 'histogram';
    default:
      // Exponential histograms have no 0.0.4 representation; Junction does not create them.
      return undefined;
  }
}

function sampleLines(name: string, metric: MetricData): string[] {
  const lines: string[] = [];
  if (metric.dataPointType === DataPointType.HISTOGRAM) {
    for (const point of metric.dataPoints) {
      const { boundaries, counts } = point.value.buckets;
      let cumulative = 0;
      boundaries.forEach((bound, index) => {
        cumulative += counts[index] ?? 0;
        lines.push(
          `${name}_bucket${formatLabels(point.attributes, ['le', formatNumber(bound)])} ${cumulative}`,
        );
      });
      lines.push(
        `${name}_bucket${formatLabels(point.attributes, ['le', '+Inf'])} ${point.value.count}`,
      );
      lines.push(
        `${name}_sum${formatLabels(point.attributes)} ${formatNumber(point.value.sum ?? 0)}`,
      );
      lines.push(`${name}_count${formatLabels(point.attributes)} ${point.value.count}`);
    }
  } else if (
    metric.dataPointType === DataPointType.SUM ||
    metric.dataPointType === DataPointType.GAUGE
  ) {
    for (const point of metric.dataPoints) {
      lines.push(`${name}${formatLabels(point.attributes)} ${formatNumber(point.value)}`);
    }
  }
  return lines;
}

/**
 * Serializes collected OpenTelemetry metrics as Prometheus text 0.0.4: `# HELP`, `# TYPE`, one
 * line per sample, histograms as cumulative `_bucket{le=...}`, `_sum` and `_count`. Metric names are
 * kept as registered. `families` are listed first and always, even without samples.
 */
export function serializePrometheus(
  resourceMetrics: ResourceMetrics,
  families: readonly PrometheusFamily[] = [],
): string {
  const byName = new Map<string, Family>();
  for (const family of families) {
    byName.set(sanitizeMetricName(family.name), {
      type: family.type,
      help: family.help,
      lines: [],
    });
  }
  for (const scope of resourceMetrics.scopeMetrics) {
    for (const metric of scope.metrics) {
      const type = typeOf(metric);
      if (type === undefined) continue;
      const name = sanitizeMetricName(metric.descriptor.name);
      let family = byName.get(name);
      if (family === undefined) {
        family = { type, help: metric.descriptor.description || name, lines: [] };
        byName.set(name, family);
      } else if (family.type !== type) {
        // One family, one type: a clashing instrument from another scope is left out.
        continue;
      }
      family.lines.push(...sampleLines(name, metric));
    }
  }
  let out = '';
  for (const [name, family] of byName) {
    out += `# HELP ${name} ${escapeHelp(family.help)}\n# TYPE ${name} ${family.type}\n`;
    for (const line of family.lines) out += `${line}\n`;
  }
  return out;
}
