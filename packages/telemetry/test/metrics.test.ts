import { describe, expect, it } from '@jest/globals';
import {
  METRIC_NAMES,
  PROMETHEUS_CONTENT_TYPE,
  createLogger,
  createMetrics,
} from '../src/index.js';
import { captureStream } from './capture.js';
import { parseExposition } from './prometheus-parse.js';
import type { Sample } from './prometheus-parse.js';

const EXPECTED_TYPES: Record<string, string> = {
  agent_runs_total: 'counter',
  agent_runs_success: 'counter',
  agent_runs_failed: 'counter',
  agent_run_duration_seconds: 'histogram',
  agent_steps_total: 'counter',
  llm_requests_total: 'counter',
  llm_tokens_input: 'counter',
  llm_tokens_output: 'counter',
  llm_latency_seconds: 'histogram',
  llm_errors_total: 'counter',
  station_uptime_seconds: 'gauge',
  mcp_servers_active: 'gauge',
  scheduler_runs_pending: 'gauge',
  database_size_bytes: 'gauge',
};

function samplesOf(samples: Sample[], name: string, labels: Record<string, string> = {}): Sample[] {
  return samples.filter(
    (sample) =>
      sample.name === name &&
      Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
}

function valueOf(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const found = samplesOf(samples, name, labels);
  if (found.length > 1) throw new Error(`${name} matched ${found.length} samples`);
  return found[0]?.value;
}

describe('createMetrics and renderPrometheus', () => {
  it('lists the 14 spec metrics with their exact names and types, even before any sample', async () => {
    const text = await createMetrics().renderPrometheus();
    const { types, helps } = parseExposition(text);
    expect(Object.fromEntries(types)).toEqual(EXPECTED_TYPES);
    expect([...helps.keys()].sort()).toEqual(Object.keys(EXPECTED_TYPES).sort());
    expect(Object.values(METRIC_NAMES).sort()).toEqual(Object.keys(EXPECTED_TYPES).sort());
    // No serializer suffixes: the counters keep the published names.
    expect(text).not.toMatch(
      /agent_runs_success_total|llm_tokens_input_total|_total_total|_seconds_seconds|_bytes_bytes/,
    );
    expect(PROMETHEUS_CONTENT_TYPE).toBe('text/plain; version=0.0.4; charset=utf-8');
  });

  it('counts runs per agent with consistent labels so ratios divide', async () => {
    const metrics = createMetrics();
    metrics.recordRun({ agentName: 'ops', status: 'success', durationSeconds: 3, steps: 4 });
    metrics.recordRun({ agentName: 'ops', status: 'error', durationSeconds: 40, steps: 2 });
    metrics.recordRun({ agentName: 'ops', status: 'success', durationSeconds: 0.2, steps: 1 });
    metrics.recordRun({ agentName: 'billing', status: 'error', durationSeconds: 7000, steps: 25 });
    const { samples } = parseExposition(await metrics.renderPrometheus());

    expect(valueOf(samples, 'agent_runs_total', { agent_name: 'ops' })).toBe(3);
    expect(valueOf(samples, 'agent_runs_success', { agent_name: 'ops' })).toBe(2);
    expect(valueOf(samples, 'agent_runs_failed', { agent_name: 'ops' })).toBe(1);
    expect(valueOf(samples, 'agent_runs_failed', { agent_name: 'billing' })).toBe(1);
    expect(valueOf(samples, 'agent_runs_success', { agent_name: 'billing' })).toBeUndefined();
    expect(valueOf(samples, 'agent_steps_total', { agent_name: 'ops' })).toBe(7);
    expect(valueOf(samples, 'agent_steps_total', { agent_name: 'billing' })).toBe(25);
    for (const sample of samplesOf(samples, 'agent_runs_total')) {
      expect(Object.keys(sample.labels)).toEqual(['agent_name']);
    }
  });

  it('renders histograms as cumulative buckets with +Inf equal to _count, and the right _sum', async () => {
    const metrics = createMetrics();
    for (const [durationSeconds, status] of [
      [0.2, 'success'],
      [3, 'success'],
      [4, 'success'],
      [45, 'success'],
      [7200, 'success'],
    ] as const) {
      metrics.recordRun({ agentName: 'ops', status, durationSeconds, steps: 1 });
    }
    const { samples } = parseExposition(await metrics.renderPrometheus());
    const labels = { agent_name: 'ops', status: 'success' };
    const buckets = samplesOf(samples, 'agent_run_duration_seconds_bucket', labels);
    const les = buckets.map((bucket) => bucket.labels.le);
    expect(les).toEqual([
      '0.5',
      '1',
      '2.5',
      '5',
      '10',
      '30',
      '60',
      '120',
      '300',
      '600',
      '1800',
      '3600',
      '+Inf',
    ]);
    const counts = buckets.map((bucket) => bucket.value);
    expect(counts).toEqual([1, 1, 1, 3, 3, 3, 4, 4, 4, 4, 4, 4, 5]);
    for (let i = 1; i < counts.length; i += 1)
      expect(counts[i]).toBeGreaterThanOrEqual(counts[i - 1] ?? 0);
    expect(valueOf(samples, 'agent_run_duration_seconds_count', labels)).toBe(5);
    expect(valueOf(samples, 'agent_run_duration_seconds_sum', labels)).toBeCloseTo(7252.2, 6);
  });

  it('counts model calls, tokens, latency and errors per model and provider', async () => {
    const metrics = createMetrics();
    metrics.recordLlm({
      model: 'gpt-4o-mini',
      provider: 'openai',
      inputTokens: 100,
      outputTokens: 20,
      latencySeconds: 0.8,
    });
    metrics.recordLlm({
      model: 'gpt-4o-mini',
      provider: 'openai',
      inputTokens: 50,
      outputTokens: 5,
      latencySeconds: 1.7,
    });
    metrics.recordLlm({
      model: 'gpt-4o-mini',
      provider: 'openai',
      latencySeconds: 30,
      error: true,
    });
    metrics.recordLlm({
      model: 'llama3',
      provider: 'ollama',
      inputTokens: 7,
      outputTokens: 3,
      latencySeconds: 0.05,
    });
    const { samples } = parseExposition(await metrics.renderPrometheus());
    const openai = { model: 'gpt-4o-mini', provider: 'openai' };
    expect(valueOf(samples, 'llm_requests_total', openai)).toBe(3);
    expect(valueOf(samples, 'llm_errors_total', openai)).toBe(1);
    expect(valueOf(samples, 'llm_tokens_input', openai)).toBe(150);
    expect(valueOf(samples, 'llm_tokens_output', openai)).toBe(25);
    expect(valueOf(samples, 'llm_latency_seconds_count', openai)).toBe(3);
    expect(valueOf(samples, 'llm_latency_seconds_bucket', { ...openai, le: '1' })).toBe(1);
    expect(valueOf(samples, 'llm_latency_seconds_bucket', { ...openai, le: '2.5' })).toBe(2);
    expect(valueOf(samples, 'llm_latency_seconds_bucket', { ...openai, le: '+Inf' })).toBe(3);
    expect(
      valueOf(samples, 'llm_errors_total', { model: 'llama3', provider: 'ollama' }),
    ).toBeUndefined();
    expect(valueOf(samples, 'llm_tokens_input', { model: 'llama3', provider: 'ollama' })).toBe(7);
  });

  it('escapes quotes, backslashes and newlines in label values', async () => {
    const metrics = createMetrics();
    const agentName = 'say "hi"\\now\nnext line';
    metrics.recordRun({ agentName, status: 'success', durationSeconds: 1, steps: 1 });
    const text = await metrics.renderPrometheus();
    expect(text).toContain('agent_runs_success{agent_name="say \\"hi\\"\\\\now\\nnext line"} 1\n');
    // Every sample stays on one line and parses back to the original value.
    const { samples } = parseExposition(text);
    expect(valueOf(samples, 'agent_runs_total', { agent_name: agentName })).toBe(1);
  });

  it('ignores negative and non-finite amounts instead of corrupting counters', async () => {
    const metrics = createMetrics();
    metrics.recordLlm({
      model: 'm',
      provider: 'p',
      inputTokens: -5,
      outputTokens: Number.NaN,
      latencySeconds: Infinity,
    });
    const { samples } = parseExposition(await metrics.renderPrometheus());
    expect(valueOf(samples, 'llm_requests_total', { model: 'm' })).toBe(1);
    expect(samplesOf(samples, 'llm_tokens_input')).toHaveLength(0);
    expect(samplesOf(samples, 'llm_latency_seconds_count')).toHaveLength(0);
  });
});

describe('gauges', () => {
  it('reports uptime since the start time', async () => {
    const metrics = createMetrics({ startTime: new Date(1_000), now: () => 6_500 });
    const { samples } = parseExposition(await metrics.renderPrometheus());
    expect(valueOf(samples, 'station_uptime_seconds')).toBe(5.5);
  });

  it('reports a positive uptime by default (since the process started)', async () => {
    const { samples } = parseExposition(await createMetrics().renderPrometheus());
    expect(valueOf(samples, 'station_uptime_seconds')).toBeGreaterThan(0);
  });

  it('reads the gauge sources at scrape time, sync or async', async () => {
    const metrics = createMetrics();
    let servers = 2;
    metrics.setGaugeSource('mcp_servers_active', () => servers);
    metrics.setGaugeSource('scheduler_runs_pending', async () => 4);
    metrics.setGaugeSource('database_size_bytes', () => 1_048_576);
    let { samples } = parseExposition(await metrics.renderPrometheus());
    expect(valueOf(samples, 'mcp_servers_active')).toBe(2);
    expect(valueOf(samples, 'scheduler_runs_pending')).toBe(4);
    expect(valueOf(samples, 'database_size_bytes')).toBe(1_048_576);

    servers = 3;
    metrics.setGaugeSource('database_size_bytes', undefined);
    metrics.setGaugeSource('scheduler_runs_pending', () => {
      throw new Error('store closed');
    });
    ({ samples } = parseExposition(await metrics.renderPrometheus()));
    expect(valueOf(samples, 'mcp_servers_active')).toBe(3);
    // A removed or failing source shows no sample rather than its last value.
    expect(valueOf(samples, 'database_size_bytes')).toBeUndefined();
    expect(valueOf(samples, 'scheduler_runs_pending')).toBeUndefined();
  });

  it('renders everything else when a gauge source throws, rejects or hangs, and logs the failure once', async () => {
    const out = captureStream();
    const logger = createLogger({ stream: out.stream, env: {} });
    const metrics = createMetrics({ logger, collectTimeoutMillis: 100 });
    metrics.recordRun({ agentName: 'ops', status: 'success', durationSeconds: 1, steps: 1 });
    metrics.setGaugeSource('mcp_servers_active', () => {
      throw new Error('registry unavailable');
    });
    metrics.setGaugeSource('database_size_bytes', () => Promise.reject(new Error('stat failed')));
    metrics.setGaugeSource('scheduler_runs_pending', () => new Promise<number>(() => undefined));

    for (let i = 0; i < 2; i += 1) {
      const text = await metrics.renderPrometheus();
      const { samples, types } = parseExposition(text);
      expect(types.size).toBe(14);
      expect(valueOf(samples, 'agent_runs_total', { agent_name: 'ops' })).toBe(1);
      expect(valueOf(samples, 'station_uptime_seconds')).toBeGreaterThan(0);
      expect(samplesOf(samples, 'mcp_servers_active')).toHaveLength(0);
      expect(samplesOf(samples, 'database_size_bytes')).toHaveLength(0);
      expect(samplesOf(samples, 'scheduler_runs_pending')).toHaveLength(0);
    }
    const failures = out.json().filter((record) => record.msg === 'metric gauge source failed');
    expect(failures.map((record) => record.metric).sort()).toEqual([
      'database_size_bytes',
      'mcp_servers_active',
    ]);
  });

  it('logs when a failing source recovers', async () => {
    const out = captureStream();
    const metrics = createMetrics({ logger: createLogger({ stream: out.stream, env: {} }) });
    let broken = true;
    metrics.setGaugeSource('mcp_servers_active', () => {
      if (broken) throw new Error('down');
      return 1;
    });
    await metrics.renderPrometheus();
    broken = false;
    const { samples } = parseExposition(await metrics.renderPrometheus());
    expect(valueOf(samples, 'mcp_servers_active')).toBe(1);
    expect(out.json().map((record) => record.msg)).toEqual([
      'metric gauge source failed',
      'metric gauge source recovered',
    ]);
  });
});
