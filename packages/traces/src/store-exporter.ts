// The span exporter that keeps this process's own spans in the store, beside those received.
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Logger } from '@junction/telemetry';
import { spanRecordsOf } from './readable.js';
import type { TraceStore } from './trace-store.js';

/** What a StoreSpanExporter writes to, and where it tells of a failed write. */
export interface StoreSpanExporterOptions {
  store: TraceStore;
  /** Failed writes are logged here (warn) as well as reported to the span processor. */
  logger?: Logger;
}

/**
 * A SpanExporter writing finished spans to `store.spans`: one insert per export, SUCCESS once
 * it is written, FAILED when it is not. It never throws; shutdown and forceFlush wait for
 * the writes in flight, and after shutdown every export is FAILED.
 */
export class StoreSpanExporter implements SpanExporter {
  readonly #store: TraceStore;
  readonly #logger: Logger | undefined;
  readonly #inFlight = new Set<Promise<void>>();
  #shutDown = false;

  constructor(options: StoreSpanExporterOptions) {
    this.#store = options.store;
    this.#logger = options.logger;
  }

  /** Writes `spans` to the store and reports the outcome to `resultCallback`, once. */
  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    const report = (result: ExportResult): void => {
      try {
        resultCallback(result);
      } catch (err) {
        // The processor's callback is not ours to fail on; its error only goes to the log.
        this.#logger?.warn('the span export callback failed', {
          error: err instanceof Error ? err.message : String(err),
        });
      }
    };
    if (this.#shutDown) {
      report({
        code: ExportResultCode.FAILED,
        error: new Error('The span exporter is shut down.'),
      });
      return;
    }
    const write = (async (): Promise<ExportResult> => {
      try {
        await this.#store.spans.insert(spanRecordsOf(spans));
        return { code: ExportResultCode.SUCCESS };
      } catch (err) {
        const error = err instanceof Error ? err : new Error(String(err));
        this.#logger?.warn('could not store spans', { spans: spans.length, error: error.message });
        return { code: ExportResultCode.FAILED, error };
      }
    })().then(report);
    this.#inFlight.add(write);
    void write.finally(() => this.#inFlight.delete(write));
  }

  /** Waits for the writes in flight; exports after this fail. */
  async shutdown(): Promise<void> {
    this.#shutDown = true;
    await this.forceFlush();
  }

  /** Waits for the writes in flight (the exporter holds no spans of its own). */
  async forceFlush(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
  }
}
