// OTLP trace export requests (protobuf and OTLP/JSON) to the span records the store keeps.
// Both encodings become the same tree of plain objects first — protobuf through protobufjs's
// toObject, JSON as parsed — and one walker reads that tree, so the two cannot disagree.
import { fileURLToPath } from 'node:url';
import { spanRunIdOf, type SpanEventRecord, type SpanRecord } from '@junction/store';
import protobuf from 'protobufjs';
import { TracesError } from './errors.js';

/** The two encodings of OTLP/HTTP. */
export type OtlpEncoding = 'protobuf' | 'json';

/** The service name of spans whose resource names none, as the OpenTelemetry SDKs call it. */
export const UNKNOWN_SERVICE = 'unknown_service';

const HEX = /^[0-9a-fA-F]+$/;

/** Deepest nesting of array and key-value list attribute values read. */
const MAX_VALUE_DEPTH = 64;

/** The request and response messages of the trace export, from proto/otlp-trace.proto. */
export interface OtlpTraceTypes {
  request: protobuf.Type;
  response: protobuf.Type;
}

// The parsed .proto is a constant of the package, like a compiled pattern: read once, on first use.
let loadedTypes: OtlpTraceTypes | undefined;

/** The package's proto/ folder is beside src/ and dist/, so one relative path serves both. */
function protoPath(): string {
  return fileURLToPath(new URL('../proto/otlp-trace.proto', import.meta.url));
}

/** The trace export messages, parsed from the package's own proto file on first use. */
export function otlpTraceTypes(): OtlpTraceTypes {
  if (!loadedTypes) {
    const root = protobuf.loadSync(protoPath());
    loadedTypes = {
      request: root.lookupType('junction.otlp.v1.ExportTraceServiceRequest'),
      response: root.lookupType('junction.otlp.v1.ExportTraceServiceResponse'),
    };
  }
  return loadedTypes;
}

/**
 * The spans of an OTLP ExportTraceServiceRequest, as the store keeps them. Throws
 * a TracesError (INVALID_OTLP) when the body is not such a request in `encoding`, or when a span has a
 * missing, malformed or all-zero trace or span id.
 */
export function decodeOtlpTraces(body: Buffer, encoding: OtlpEncoding): SpanRecord[] {
  return encoding === 'protobuf'
    ? spansOf(readProtobuf(body), 'protobuf')
    : spansOf(readJson(body), 'OTLP/JSON');
}

function reasonOf(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 200);
}

function readProtobuf(body: Buffer): Record<string, unknown> {
  const { request } = otlpTraceTypes();
  try {
    const message = request.decode(body);
    // 64-bit times as decimal strings (never a lossy number); enums as numbers; bytes kept.
    return request.toObject(message, { longs: String, enums: Number, defaults: false });
  } catch (err) {
    throw new TracesError(
      'INVALID_OTLP',
      `the body is not an OTLP protobuf ExportTraceServiceRequest: ${reasonOf(err)}`,
      { encoding: 'protobuf' },
      { cause: err },
    );
  }
}

function readJson(body: Buffer): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8').replace(/^\uFEFF/, ''));
  } catch (err) {
    throw new TracesError(
      'INVALID_OTLP',
      `the body is not an OTLP/JSON ExportTraceServiceRequest: it is not valid JSON (${reasonOf(err)})`,
      { encoding: 'json' },
      { cause: err },
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new TracesError(
      'INVALID_OTLP',
      'the body is not an OTLP/JSON ExportTraceServiceRequest: expected a JSON object with "resourceSpans"',
      { encoding: 'json' },
    );
  }
  return parsed as Record<string, unknown>;
}

/** Reads the tree of either encoding; `form` names it in messages. */
class TreeReader {
  constructor(readonly form: 'protobuf' | 'OTLP/JSON') {}

  fail(path: string, what: string): TracesError {
    const label = this.form === 'protobuf' ? 'OTLP protobuf' : 'OTLP/JSON';
    return new TracesError(
      'INVALID_OTLP',
      `the body is not an ${label} ExportTraceServiceRequest: ${path} ${what}`,
      { path },
    );
  }

  list(value: unknown, path: string): unknown[] {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) throw this.fail(path, 'must be an array');
    return value;
  }

  object(value: unknown, path: string): Record<string, unknown> | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'object' || Array.isArray(value) || value instanceof Uint8Array) {
      throw this.fail(path, 'must be an object');
    }
    return value as Record<string, unknown>;
  }

  text(value: unknown, path: string): string {
    if (value === undefined || value === null) return '';
    if (typeof value !== 'string') throw this.fail(path, 'must be a string');
    return value;
  }

  /** A fixed64 count of nanoseconds since the epoch: a decimal string, or a JSON number. */
  nanos(value: unknown, path: string): bigint {
    if (value === undefined || value === null) return 0n;
    if (typeof value === 'string' && /^\d{1,20}$/.test(value)) return BigInt(value);
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) {
      return BigInt(Math.trunc(value));
    }
    throw this.fail(path, 'must be a whole number of nanoseconds (a decimal string or a number)');
  }

  /** An enum as a number (or, in JSON, its name); unknown values read as 0. */
  enumValue(value: unknown, names: readonly string[]): number {
    if (
      typeof value === 'number' &&
      Number.isInteger(value) &&
      value >= 0 &&
      value < names.length
    ) {
      return value;
    }
    if (typeof value === 'string') return Math.max(0, names.indexOf(value));
    return 0;
  }

  /** An attribute value as plain JSON: arrays for arrayValue, objects for kvlistValue. */
  anyValue(value: unknown, path: string, depth: number): unknown {
    const v = this.object(value, path);
    if (v === undefined) return null;
    if (depth > MAX_VALUE_DEPTH)
      throw this.fail(path, `is nested deeper than ${MAX_VALUE_DEPTH} levels`);
    if (v.stringValue !== undefined && v.stringValue !== null) {
      return this.text(v.stringValue, `${path}.stringValue`);
    }
    if (v.boolValue !== undefined && v.boolValue !== null) {
      if (typeof v.boolValue !== 'boolean')
        throw this.fail(`${path}.boolValue`, 'must be a boolean');
      return v.boolValue;
    }
    if (v.intValue !== undefined && v.intValue !== null)
      return this.intValue(v.intValue, `${path}.intValue`);
    if (v.doubleValue !== undefined && v.doubleValue !== null) {
      const d = v.doubleValue;
      // JSON spells the non-finite doubles "NaN", "Infinity", "-Infinity"; JSON text cannot hold them.
      if (typeof d === 'number') return Number.isFinite(d) ? d : String(d);
      if (d === 'NaN' || d === 'Infinity' || d === '-Infinity') return d;
      throw this.fail(`${path}.doubleValue`, 'must be a number');
    }
    if (v.arrayValue !== undefined && v.arrayValue !== null) {
      const array = this.object(v.arrayValue, `${path}.arrayValue`);
      return this.list(array?.values, `${path}.arrayValue.values`).map((item, i) =>
        this.anyValue(item, `${path}.arrayValue.values[${i}]`, depth + 1),
      );
    }
    if (v.kvlistValue !== undefined && v.kvlistValue !== null) {
      const kvlist = this.object(v.kvlistValue, `${path}.kvlistValue`);
      return this.attributes(kvlist?.values, `${path}.kvlistValue.values`, depth + 1);
    }
    if (v.bytesValue !== undefined && v.bytesValue !== null) {
      // Bytes keep the protobuf JSON spelling, base64, in both encodings.
      if (v.bytesValue instanceof Uint8Array) return Buffer.from(v.bytesValue).toString('base64');
      if (typeof v.bytesValue === 'string') return v.bytesValue;
      throw this.fail(`${path}.bytesValue`, 'must be a base64 string');
    }
    return null;
  }

  /** An int64: a number when it fits one exactly, else its decimal string. */
  intValue(value: unknown, path: string): number | string {
    if (typeof value === 'number' && Number.isInteger(value)) return value;
    if (typeof value === 'string' && /^-?\d{1,20}$/.test(value)) {
      const n = Number(value);
      return Number.isSafeInteger(n) ? n : value;
    }
    throw this.fail(path, 'must be a whole number (a decimal string or a number)');
  }

  /** A list of KeyValue as one object; a key given twice keeps its last value. */
  attributes(value: unknown, path: string, depth = 0): Record<string, unknown> {
    // fromEntries defines properties, so a key such as "__proto__" stays a plain key.
    return Object.fromEntries(
      this.list(value, path).map((item, i) => {
        const kv = this.object(item, `${path}[${i}]`) ?? {};
        return [
          this.text(kv.key, `${path}[${i}].key`),
          this.anyValue(kv.value, `${path}[${i}].value`, depth),
        ];
      }),
    );
  }

  /** A trace or span id as lowercase hex; null when absent (an error when `required`). */
  id(value: unknown, bytes: number, path: string, required: boolean): string | null {
    let hex: string;
    if (value === undefined || value === null || value === '') {
      hex = '';
    } else if (value instanceof Uint8Array) {
      if (value.length !== 0 && value.length !== bytes) {
        throw this.fail(path, `must be ${bytes} bytes; got ${value.length}`);
      }
      hex = Buffer.from(value).toString('hex');
    } else if (typeof value === 'string') {
      if (value.length !== bytes * 2 || !HEX.test(value)) {
        throw this.fail(path, `must be ${bytes * 2} hex digits; got ${value.length} characters`);
      }
      hex = value.toLowerCase();
    } else {
      throw this.fail(path, `must be ${this.form === 'protobuf' ? 'bytes' : 'a hex string'}`);
    }
    if (hex === '' || /^0+$/.test(hex)) {
      if (!required) return null;
      throw this.fail(path, hex === '' ? 'is missing' : 'is all zeros, which is not a valid id');
    }
    return hex;
  }
}

const SPAN_KINDS = [
  'SPAN_KIND_UNSPECIFIED',
  'SPAN_KIND_INTERNAL',
  'SPAN_KIND_SERVER',
  'SPAN_KIND_CLIENT',
  'SPAN_KIND_PRODUCER',
  'SPAN_KIND_CONSUMER',
] as const;
const STATUS_CODES = ['STATUS_CODE_UNSET', 'STATUS_CODE_OK', 'STATUS_CODE_ERROR'] as const;

function microsOf(nanos: bigint): number {
  return Number(nanos / 1000n);
}

function spansOf(request: Record<string, unknown>, form: 'protobuf' | 'OTLP/JSON'): SpanRecord[] {
  const r = new TreeReader(form);
  const out: SpanRecord[] = [];
  r.list(request.resourceSpans, 'resourceSpans').forEach((rsValue, i) => {
    const rsPath = `resourceSpans[${i}]`;
    const rs = r.object(rsValue, rsPath) ?? {};
    const resourceObject = r.object(rs.resource, `${rsPath}.resource`);
    const resource = r.attributes(resourceObject?.attributes, `${rsPath}.resource.attributes`);
    const named = resource['service.name'];
    const serviceName = typeof named === 'string' && named !== '' ? named : UNKNOWN_SERVICE;
    r.list(rs.scopeSpans, `${rsPath}.scopeSpans`).forEach((ssValue, j) => {
      const ssPath = `${rsPath}.scopeSpans[${j}]`;
      const ss = r.object(ssValue, ssPath) ?? {};
      const scope = r.object(ss.scope, `${ssPath}.scope`);
      const scopeName = r.text(scope?.name, `${ssPath}.scope.name`) || null;
      r.list(ss.spans, `${ssPath}.spans`).forEach((spanValue, k) => {
        const path = `${ssPath}.spans[${k}]`;
        const span = r.object(spanValue, path) ?? {};
        const start = r.nanos(span.startTimeUnixNano, `${path}.startTimeUnixNano`);
        const end = r.nanos(span.endTimeUnixNano, `${path}.endTimeUnixNano`);
        const status = r.object(span.status, `${path}.status`);
        const attributes = r.attributes(span.attributes, `${path}.attributes`);
        const events: SpanEventRecord[] = r.list(span.events, `${path}.events`).map((e, m) => {
          const eventPath = `${path}.events[${m}]`;
          const event = r.object(e, eventPath) ?? {};
          return {
            name: r.text(event.name, `${eventPath}.name`),
            timeUs: microsOf(r.nanos(event.timeUnixNano, `${eventPath}.timeUnixNano`)),
            attributes: r.attributes(event.attributes, `${eventPath}.attributes`),
          };
        });
        out.push({
          traceId: r.id(span.traceId, 16, `${path}.traceId`, true) as string,
          spanId: r.id(span.spanId, 8, `${path}.spanId`, true) as string,
          parentSpanId: r.id(span.parentSpanId, 8, `${path}.parentSpanId`, false),
          name: r.text(span.name, `${path}.name`),
          kind: r.enumValue(span.kind, SPAN_KINDS),
          serviceName,
          scopeName,
          startUs: microsOf(start),
          // A span that ends before it starts (clock trouble at the sender) lasts 0.
          durationUs: end > start ? microsOf(end - start) : 0,
          statusCode: r.enumValue(status?.code, STATUS_CODES) as 0 | 1 | 2,
          statusMessage: r.text(status?.message, `${path}.status.message`) || null,
          attributes,
          events,
          resource,
          runId: spanRunIdOf(attributes),
        });
      });
    });
  });
  return out;
}
