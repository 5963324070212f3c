// Spans finished in this process (the OpenTelemetry SDK's ReadableSpan) as the store keeps them.
import { isSpanContextValid, type Attributes, type HrTime } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { spanRunIdOf, type SpanRecord } from '@junction/store';
import { UNKNOWN_SERVICE } from './decode.js';

/** HrTime ([seconds, nanoseconds]) in whole microseconds. */
function microsOf(time: HrTime): number {
  return Math.trunc(time[0]) * 1_000_000 + Math.trunc(time[1] / 1000);
}

/** An attribute value as plain JSON: numbers JSON cannot hold become strings, holes null. */
function plainValue(value: unknown): unknown {
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (Array.isArray(value)) return value.map((item) => plainValue(item) ?? null);
  return value ?? null;
}

/** Attributes as a plain object; keys whose value is undefined are left out. */
function plainAttributes(attributes: Attributes | undefined): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(attributes ?? {})
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => [key, plainValue(value)]),
  );
}

/**
 * The store's records of SDK spans. The api's SpanKind counts from INTERNAL = 0 where OTLP
 * keeps 0 for unspecified, hence the + 1; status codes are the same numbers in both. Spans
 * without a valid context (never recorded) are left out.
 */
export function spanRecordsOf(spans: readonly ReadableSpan[]): SpanRecord[] {
  const records: SpanRecord[] = [];
  for (const span of spans) {
    const context = span.spanContext();
    if (!isSpanContextValid(context)) continue;
    const parent = span.parentSpanContext;
    const attributes = plainAttributes(span.attributes);
    const resource = plainAttributes(span.resource.attributes);
    const service = resource['service.name'];
    records.push({
      traceId: context.traceId,
      spanId: context.spanId,
      parentSpanId: parent && isSpanContextValid(parent) ? parent.spanId : null,
      name: span.name,
      kind: span.kind + 1,
      serviceName: typeof service === 'string' && service !== '' ? service : UNKNOWN_SERVICE,
      scopeName: span.instrumentationScope.name || null,
      startUs: microsOf(span.startTime),
      durationUs: Math.max(0, microsOf(span.duration)),
      statusCode: span.status.code,
      statusMessage: span.status.message || null,
      attributes,
      events: span.events.map((event) => ({
        name: event.name,
        timeUs: microsOf(event.time),
        attributes: plainAttributes(event.attributes),
      })),
      resource,
      runId: spanRunIdOf(attributes),
    });
  }
  return records;
}
