import { AggregationTemporality, InstrumentType, MetricReader } from '@opentelemetry/sdk-metrics';

/**
 * A metric reader that only collects when asked (a Prometheus scrape); it pushes nothing on its own.
 * Counters and histograms are cumulative, as Prometheus expects. Observable gauges are delta: a
 * gauge shows only what its callback observed in this collection, so a removed or failing source
 * makes the sample disappear instead of repeating a stale value forever.
 */
export class PullMetricReader extends MetricReader {
  constructor() {
    super({
      aggregationTemporalitySelector: (type: InstrumentType): AggregationTemporality =>
        type === InstrumentType.OBSERVABLE_GAUGE
          ? AggregationTemporality.DELTA
          : AggregationTemporality.CUMULATIVE,
    });
  }

  protected override async onForceFlush(): Promise<void> {
    // Nothing buffered: every collect() reads the instruments directly.
  }

  protected override async onShutdown(): Promise<void> {
    // No exporter or timer to stop.
  }
}
