import { describe, expect, it } from '@jest/globals';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import {
  escapeLabelValue,
  sanitizeMetricName,
  serializePrometheus,
} from '../src/prometheus-text.js';
import { PullMetricReader } from '../src/pull-metric-reader.js';
import { parseExposition } from './prometheus-parse.js';

async function render(
  build: (provider: MeterProvider) => void,
  families: Parameters<typeof serializePrometheus>[1] = [],
): Promise<string> {
  const reader = new PullMetricReader();
  const provider = new MeterProvider({ readers: [reader] });
  build(provider);
  const { resourceMetrics } = await reader.collect();
  await provider.shutdown();
  return serializePrometheus(resourceMetrics, families);
}

describe('serializePrometheus', () => {
  it('writes HELP, TYPE and samples, keeping names without _total and ending with a newline', async () => {
    const text = await render((provider) => {
      provider
        .getMeter('m')
        .createCounter('jobs_done', { description: 'Jobs done.' })
        .add(2, { queue: 'a' });
    });
    expect(text).toBe(
      '# HELP jobs_done Jobs done.\n# TYPE jobs_done counter\njobs_done{queue="a"} 2\n',
    );
  });

  it('maps up-down counters and gauges to gauge, and sanitizes dotted names and labels', async () => {
    const text = await render((provider) => {
      const meter = provider.getMeter('m');
      meter
        .createUpDownCounter('queue.depth', { description: 'Depth' })
        .add(-3, { 'queue.name': 'x' });
      meter.createGauge('temperature').record(21.5);
    });
    const { types, samples } = parseExposition(text);
    expect(types.get('queue_depth')).toBe('gauge');
    expect(types.get('temperature')).toBe('gauge');
    expect(samples).toEqual([
      { name: 'queue_depth', labels: { queue_name: 'x' }, value: -3 },
      { name: 'temperature', labels: {}, value: 21.5 },
    ]);
  });

  it('merges one name from several meters into one family', async () => {
    const text = await render((provider) => {
      provider.getMeter('a').createCounter('shared').add(1, { from: 'a' });
      provider.getMeter('b').createCounter('shared').add(2, { from: 'b' });
    });
    expect(text.match(/# TYPE shared counter/g)).toHaveLength(1);
    expect(parseExposition(text).samples.map((sample) => sample.value)).toEqual([1, 2]);
  });

  it('lists declared families without samples and escapes their help text', async () => {
    const text = await render(
      () => undefined,
      [{ name: 'idle', type: 'gauge', help: 'Line one\nback\\slash' }],
    );
    expect(text).toBe('# HELP idle Line one\\nback\\\\slash\n# TYPE idle gauge\n');
  });

  it('formats special values as +Inf, -Inf and NaN', async () => {
    const text = await render((provider) => {
      const meter = provider.getMeter('m');
      meter.createObservableGauge('g').addCallback((result) => {
        result.observe(Infinity, { v: 'pos' });
        result.observe(-Infinity, { v: 'neg' });
        result.observe(Number.NaN, { v: 'nan' });
      });
    });
    expect(text).toContain('g{v="pos"} +Inf\n');
    expect(text).toContain('g{v="neg"} -Inf\n');
    expect(text).toContain('g{v="nan"} NaN\n');
  });

  it('returns an empty string when there is nothing to list', async () => {
    expect(await render(() => undefined)).toBe('');
  });
});

describe('escapeLabelValue and sanitizeMetricName', () => {
  it('escapes backslash, double quote and newline only', () => {
    expect(escapeLabelValue('a\\b"c\nd\te')).toBe('a\\\\b\\"c\\nd\te');
  });

  it('keeps valid names and repairs invalid ones', () => {
    expect(sanitizeMetricName('agent_runs_success')).toBe('agent_runs_success');
    expect(sanitizeMetricName('http.server.duration')).toBe('http_server_duration');
    expect(sanitizeMetricName('9lives')).toBe('_9lives');
  });
});
