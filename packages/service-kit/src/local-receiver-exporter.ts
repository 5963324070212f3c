// Spans of a process that keeps no traces itself (`junction worker`, `agent run`) go to the
// receiver of a running `serve` (or `junction traces`) of the same workspace — looked up with
// findLocalReceiver each time spans are sent, not once at start: a worker started before serve,
// or kept while serve restarts, finds the receiver when there is one.
import {
  createOtlpSpanExporter,
  resolveTracesUrl,
  type Logger,
  type TracingOptions,
} from '@junction/telemetry';
import { findLocalReceiver } from './traces.js';

type SpanExporter = NonNullable<TracingOptions['spanExporter']>;
type Spans = Parameters<SpanExporter['export']>[0];
type Done = Parameters<SpanExporter['export']>[1];

/** What /health and the start-up line say of where such a process's spans go. */
export const LIVE_RECEIVER = 'the receiver of a running serve of this workspace, when there is one';

export interface LocalReceiverExporterOptions {
  configHome: string;
  logger: Logger;
  headers?: Record<string, string>;
  certificatePath?: string;
}

/** A span exporter that sends to the workspace's live receiver, or drops spans while none runs. */
export class LocalReceiverExporter implements SpanExporter {
  readonly #options: LocalReceiverExporterOptions;
  #current: { url: string; exporter: SpanExporter } | undefined;

  constructor(options: LocalReceiverExporterOptions) {
    this.#options = options;
  }

  export(spans: Spans, done: Done): void {
    const found = findLocalReceiver(this.#options.configHome);
    // Nobody keeps traces now: the spans go nowhere, as they would without a receiver.
    if (found === undefined) return done({ code: 0 });
    const url = resolveTracesUrl(found);
    if (this.#current?.url !== url) {
      void this.#current?.exporter.shutdown();
      const { logger, headers, certificatePath } = this.#options;
      this.#current = {
        url,
        exporter: createOtlpSpanExporter(url, {
          logger,
          ...(headers ? { headers } : {}),
          ...(certificatePath ? { certificatePath } : {}),
        }),
      };
    }
    this.#current.exporter.export(spans, done);
  }

  async forceFlush(): Promise<void> {
    await this.#current?.exporter.forceFlush?.();
  }

  async shutdown(): Promise<void> {
    await this.#current?.exporter.shutdown();
  }
}
