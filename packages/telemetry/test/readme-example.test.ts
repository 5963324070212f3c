import { describe, expect, it } from '@jest/globals';
import {
  SPAN_AGENT_EXECUTE,
  agentExecuteAttributes,
  createLogger,
  createMetrics,
  createTracing,
  tracingOptionsFromEnv,
  withSpan,
} from '../src/index.js';
import { readmeExample } from '@junction/tooling/fixtures/readme-example.mjs';

describe('README example', () => {
  it('is the code below, verbatim, and it runs', async () => {
    // README-EXAMPLE-START
    const secrets = ['whk_live_0123456789']; // e.g. webhook.api_key from config.yaml
    const logger = createLogger({ level: 'info', format: 'text', secrets });
    const tracing = createTracing({ ...tracingOptionsFromEnv(process.env), logger });
    const metrics = createMetrics({ logger });
    metrics.setGaugeSource('mcp_servers_active', () => 3);

    const started = Date.now();
    const attributes = agentExecuteAttributes({ agentId: 7, agentName: 'ops', maxSteps: 25 });
    const answer = await withSpan(tracing.tracer, SPAN_AGENT_EXECUTE, attributes, async () => {
      return 'done'; // model turns and tool calls go here, each in its own withSpan
    });
    const durationSeconds = (Date.now() - started) / 1000;
    metrics.recordRun({ agentName: 'ops', status: 'success', durationSeconds, steps: 1 });
    logger.info('run finished', { agent_name: 'ops', run_id: 42, status: 'completed' });

    // GET /metrics answers with this body and Content-Type: PROMETHEUS_CONTENT_TYPE.
    const body = await metrics.renderPrometheus();
    await tracing.shutdown();
    await logger.close();
    // README-EXAMPLE-END

    expect(answer).toBe('done');
    expect(body).toContain('agent_runs_success{agent_name="ops"} 1\n');
    expect(body).toContain('mcp_servers_active 3\n');

    const { example, readme } = readmeExample(import.meta.url);
    expect(example.split('\n').length).toBeGreaterThan(10);
    expect(readme).toContain(example);
  });
});
