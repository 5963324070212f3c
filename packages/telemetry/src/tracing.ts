import fs from 'node:fs';
import { propagation, trace } from '@opentelemetry/api';
import type { Attributes, Context, Tracer } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import type { ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type {
  ReadableSpan,
  Span,
  SpanExporter,
  SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { ensureContextManager } from './context-manager.js';
import { TelemetryError } from './errors.js';
import type { Logger } from './logger.js';
import { redactUrl } from './redact.js';
import { createSampler } from './samplers.js';
import { SPAN_ATTR, runIdOf } from './spans.js';

/**
 * Where spans go: an OTLP/HTTP receiver, memory (tests), a given exporter (`spanExporter`: the
 * local trace store), or nowhere (spans and trace ids still exist).
 */
export type TraceExporterKind = 'otlp' | 'memory' | 'custom' | 'none';

/** The OTLP/HTTP receiver used when `exporter: 'otlp'` is asked for without an endpoint (spec port 4318). */
export const DEFAULT_OTLP_ENDPOINT = 'http://localhost:4318';

/** Options of createTracing. */
export interface TracingOptions {
  /** `service.name` resource attribute. Default `junction`. */
  serviceName?: string;
  /** `service.version` resource attribute. */
  serviceVersion?: string;
  /** Extra resource attributes (`deployment.environment`, station name, ...). */
  resourceAttributes?: Attributes;
  /** OTLP/HTTP base URL (`otel_endpoint`, `OTEL_EXPORTER_OTLP_ENDPOINT`); `/v1/traces` is appended unless present. */
  endpoint?: string;
  /** Headers sent with every export (`OTEL_EXPORTER_OTLP_HEADERS`, e.g. `Authorization`). */
  headers?: Record<string, string>;
  /** PEM file of the CA that signs the receiver's TLS certificate (`OTEL_EXPORTER_OTLP_CERTIFICATE`). */
  certificatePath?: string;
  /** `OTEL_TRACES_SAMPLER` name. Default `parentbased_always_on`. */
  sampler?: string;
  /** `OTEL_TRACES_SAMPLER_ARG`: ratio 0..1 for the traceidratio samplers. */
  samplerArg?: number | string;
  /** Default `otlp` when `endpoint` is set, `custom` when `spanExporter` is given, else `none`. */
  exporter?: TraceExporterKind;
  /** The exporter of `exporter: 'custom'` (batched like OTLP export). */
  spanExporter?: SpanExporter;
  /** How `custom` export is described in `/health` and the start-up line (e.g. `local store`). */
  destination?: string;
  /** Register the provider as the process-global tracer provider and W3C propagator. Default false. */
  register?: boolean;
  /** Batching of OTLP export. */
  batch?: {
    scheduledDelayMillis?: number;
    maxExportBatchSize?: number;
    maxQueueSize?: number;
    exportTimeoutMillis?: number;
  };
  /** Export failures are logged here (once per outage, not once per batch). */
  logger?: Logger;
}

/** A tracer provider with its tracer and exporter. */
export interface Tracing {
  readonly provider: NodeTracerProvider;
  readonly tracer: Tracer;
  readonly exporter: TraceExporterKind;
  /** The resolved `.../v1/traces` URL when exporting over OTLP. */
  readonly url?: string;
  /** Where spans go, for people: the OTLP URL (credentials removed), the custom destination, `memory` or `nowhere`. */
  readonly destination: string;
  /** Finished spans, when `exporter` is `memory`. */
  readonly memoryExporter?: InMemorySpanExporter;
  /** Exports every finished span now. Never rejects: export failures go to `logger` (telemetry must not break the app). */
  forceFlush(): Promise<void>;
  /** Exports what is left and stops; spans started afterwards are dropped. Never rejects, like forceFlush. */
  shutdown(): Promise<void>;
}

const TRACES_PATH = '/v1/traces';

/** The OTLP traces URL for a base endpoint: `http://host:4318` → `http://host:4318/v1/traces`; a URL already ending in `/v1/traces` is kept. */
export function resolveTracesUrl(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint.trim());
  } catch (cause) {
    throw invalidEndpoint(endpoint, cause);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidEndpoint(endpoint);
  const pathname = url.pathname.replace(/\/+$/, '');
  url.pathname = pathname.endsWith(TRACES_PATH) ? pathname : `${pathname}${TRACES_PATH}`;
  return url.href;
}

function invalidEndpoint(endpoint: string, cause?: unknown): TelemetryError {
  const shown = redactUrl(endpoint);
  return new TelemetryError(
    'TELEMETRY_INVALID_ENDPOINT',
    `The trace endpoint "${shown}" (otel_endpoint / OTEL_EXPORTER_OTLP_ENDPOINT) is not an http(s) URL; use a base URL such as http://localhost:4318.`,
    { endpoint: shown },
    { cause: cause },
  );
}

function readCertificate(file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (cause) {
    throw new TelemetryError(
      'TELEMETRY_CERTIFICATE_UNREADABLE',
      `Cannot read the trace receiver's CA certificate ${file} (OTEL_EXPORTER_OTLP_CERTIFICATE); give the path of a readable PEM file.`,
      { file },
      { cause: cause },
    );
  }
}

// Logs the first failure of an outage and the recovery, so a dead receiver does not flood the log.
class ReportingSpanExporter implements SpanExporter {
  private failing = false;

  constructor(
    private readonly inner: SpanExporter,
    private readonly logger: Logger,
    private readonly url: string,
  ) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code === ExportResultCode.FAILED && !this.failing) {
        this.failing = true;
        this.logger.warn('trace export failed; spans are dropped until the receiver answers', {
          url: this.url,
          error: result.error,
        });
      } else if (result.code === ExportResultCode.SUCCESS && this.failing) {
        this.failing = false;
        this.logger.info('trace export recovered', { url: this.url });
      }
      resultCallback(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** Sets `run_id` on every span started inside a run (withSpan's `runId` puts it in the context). */
class RunIdSpanProcessor implements SpanProcessor {
  onStart(span: Span, parentContext: Context): void {
    const runId = runIdOf(parentContext);
    if (runId !== undefined && span.attributes[SPAN_ATTR.RUN_ID] === undefined) {
      span.setAttribute(SPAN_ATTR.RUN_ID, runId);
    }
  }
  onEnd(): void {}
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * The OTLP/HTTP exporter of spans to `url` (a full `/v1/traces` URL) with the options' headers,
 * CA certificate and export timeout, its failures reported once through the options' logger.
 * createTracing's `otlp` uses it; so does an exporter that picks its receiver when it sends.
 */
export function createOtlpSpanExporter(
  url: string,
  options: Pick<TracingOptions, 'headers' | 'certificatePath' | 'batch' | 'logger'> = {},
): SpanExporter {
  const ca =
    options.certificatePath === undefined ? undefined : readCertificate(options.certificatePath);
  const exporter: SpanExporter = new OTLPTraceExporter({
    url,
    ...(options.headers === undefined ? {} : { headers: { ...options.headers } }),
    ...(ca === undefined ? {} : { httpAgentOptions: { keepAlive: true, ca } }),
    ...(options.batch?.exportTimeoutMillis === undefined
      ? {}
      : { timeoutMillis: options.batch.exportTimeoutMillis }),
  });
  return options.logger === undefined
    ? exporter
    : new ReportingSpanExporter(exporter, options.logger, redactUrl(url));
}

/** Creates a tracer provider (not registered globally unless `register`) exporting over OTLP/HTTP in batches, to memory, to a given exporter, or nowhere. */
export function createTracing(options: TracingOptions = {}): Tracing {
  const kind: TraceExporterKind =
    options.exporter ??
    (options.endpoint ? 'otlp' : options.spanExporter !== undefined ? 'custom' : 'none');
  // With nowhere to send spans there is nothing to record: spans are non-recording (their
  // trace ids still exist and nest, so runs and logs keep a trace_id) and cost almost nothing.
  // The configured sampler is still checked, so a bad setting fails the same with or without export.
  const configured = createSampler(options.sampler, options.samplerArg);
  const sampler = kind === 'none' ? new AlwaysOffSampler() : configured;
  const resource = defaultResource().merge(
    resourceFromAttributes({
      ...options.resourceAttributes,
      [ATTR_SERVICE_NAME]: options.serviceName ?? 'junction',
      ...(options.serviceVersion === undefined
        ? {}
        : { [ATTR_SERVICE_VERSION]: options.serviceVersion }),
    }),
  );

  const spanProcessors: SpanProcessor[] = [new RunIdSpanProcessor()];
  let memoryExporter: InMemorySpanExporter | undefined;
  let url: string | undefined;
  let destination = kind === 'memory' ? 'memory' : 'nowhere';
  if (kind === 'custom') {
    if (options.spanExporter === undefined) {
      throw new TelemetryError(
        'TELEMETRY_INVALID_EXPORTER',
        "exporter 'custom' needs a spanExporter; pass one, or choose otlp, memory or none.",
      );
    }
    destination = options.destination ?? 'a custom exporter';
    spanProcessors.push(new BatchSpanProcessor(options.spanExporter, options.batch));
  } else if (kind === 'memory') {
    memoryExporter = new InMemorySpanExporter();
    spanProcessors.push(new SimpleSpanProcessor(memoryExporter));
  } else if (kind === 'otlp') {
    url = resolveTracesUrl(options.endpoint ?? DEFAULT_OTLP_ENDPOINT);
    destination = redactUrl(url);
    spanProcessors.push(
      new BatchSpanProcessor(createOtlpSpanExporter(url, options), options.batch),
    );
  }

  const provider = new NodeTracerProvider({ resource, sampler, spanProcessors });
  // Without an async-aware context manager the API cannot tell which span is active,
  // so a span started inside `withSpan` would not become a child.
  ensureContextManager();
  const register = options.register ?? false;
  if (register) provider.register({ contextManager: null });

  const tracer = provider.getTracer(options.serviceName ?? 'junction', options.serviceVersion);
  let stopped = false;
  return {
    provider,
    tracer,
    exporter: kind,
    destination,
    ...(url === undefined ? {} : { url }),
    ...(memoryExporter === undefined ? {} : { memoryExporter }),
    forceFlush: async (): Promise<void> => {
      // A failed export was already reported by the exporter; see ReportingSpanExporter.
      await provider.forceFlush().catch(() => undefined);
    },
    shutdown: async (): Promise<void> => {
      if (stopped) return;
      stopped = true;
      await provider.shutdown().catch(() => undefined);
      if (register) {
        trace.disable();
        propagation.disable();
      }
    },
  };
}
