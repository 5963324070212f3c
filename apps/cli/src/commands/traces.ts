import { Flags } from '@oclif/core';
import type { Listening } from '@junction/service-kit';
import { JunctionCommand } from '../base-command.js';
import { CliError } from '../cli-error.js';
import { listenTraces } from '../traces-line.js';

const port = (what: string, key: string) =>
  Flags.integer({
    description: `port of ${what} (default: ${key} in config.yaml)`,
    min: 1,
    max: 65535,
  });

export default class Traces extends JunctionCommand {
  static override description =
    'Run only the trace receiver and viewer until SIGINT/SIGTERM: OTLP/HTTP on 4318 (POST /v1/traces, protobuf or JSON) writing spans to the store with retention, and the trace viewer on 16686. For tool servers and other programs when no `junction serve` runs; `serve` runs both itself.';

  static override examples = [
    '<%= config.bin %> traces',
    '<%= config.bin %> traces --receiver-port 14318 --viewer-port 26686',
  ];

  static override flags = {
    'receiver-port': port('the OTLP/HTTP trace receiver', 'traces.receiver_port'),
    'viewer-port': port('the trace viewer', 'traces.viewer_port'),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Traces);
    const { createContext } = await import('../context.js');
    const { createService } = await import('../service.js');
    const ctx = await createContext();
    const { config } = ctx;
    if (!config.traces.enabled) {
      throw new CliError(
        'TRACES_DISABLED',
        'traces.enabled is false (config.yaml or JUNCTION_TRACES_ENABLED): set it to true to run the trace receiver and viewer.',
      );
    }
    const host = config.api.host;
    const service = await createService(ctx, {
      logStream: process.stderr,
      version: this.config.version,
      executes: false,
      traces: true,
    });
    const traces = service.traces!;
    const servers: Listening[] = [];
    try {
      servers.push(
        ...(await listenTraces(traces, host, {
          receiver: flags['receiver-port'] ?? config.traces.receiver_port,
          viewer: flags['viewer-port'] ?? config.traces.viewer_port,
        })),
      );
      await service.start();
      const health = service.tracesHealth();
      this.log(`Junction ${this.config.version} keeping traces:`);
      this.log(`  receiver  ${health.receiver} → local store`);
      this.log(`  viewer    ${health.viewer}`);
      this.log(
        `  retention ${config.traces.retention_days} day(s), at most ${config.traces.max_megabytes} MB`,
      );
      service.logger.info('keeping traces', { traces: health });
      const signal = await new Promise<string>((resolve) => {
        process.once('SIGINT', () => resolve('SIGINT'));
        process.once('SIGTERM', () => resolve('SIGTERM'));
      });
      this.log(`Stopped (${signal}).`);
    } finally {
      await Promise.all(servers.map((s) => s.stop(1_000)));
      await service.stop(0);
      await ctx.close();
    }
  }
}
