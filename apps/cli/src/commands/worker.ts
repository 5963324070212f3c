import { Flags } from '@oclif/core';
import type { Listening } from '@junction/service-kit';
import { JunctionCommand } from '../base-command.js';
import { serviceFlags, untilSignal } from '../flags.js';
import { portHint, queueLine } from '../traces-line.js';

export default class Worker extends JunctionCommand {
  static override description =
    'Work runs until SIGINT/SIGTERM, and nothing else: claim and execute the agent runs queued in the store by any process sharing it (serve, api-server, webhook-server, other hosts), advance workflow runs and fire schedules (unless workers.workflows / workers.scheduler say otherwise). With queue.nats.url set, runs announced over NATS JetStream are taken at once. Serves only /health and /metrics, when --health-port is given.';

  static override examples = [
    '<%= config.bin %> worker',
    '<%= config.bin %> worker --concurrency 8 --health-port 8585',
    'JUNCTION_QUEUE_NATS_URL=nats://nats:4222 JUNCTION_DATABASE_URL=ws://sqld:8080 <%= config.bin %> worker',
  ];

  static override flags = {
    concurrency: Flags.integer({
      description: 'runs executed at the same time (default: workers.concurrency in config.yaml)',
      min: 1,
      max: 256,
    }),
    'health-port': Flags.integer({
      description: 'serve /health and /metrics on this port of api.host (for probes); default none',
      min: 1,
      max: 65535,
    }),
    ...serviceFlags,
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Worker);
    const { createContext } = await import('../context.js');
    const { createService } = await import('../service.js');
    const { listen } = await import('@junction/service-kit');
    const ctx = await createContext();
    const version = this.config.version;
    const service = await createService(ctx, {
      logStream: process.stderr,
      debug: flags.debug,
      version,
      workers: {
        runs: true,
        ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
      },
    });
    const { logger, config } = service;
    let probe: Listening | undefined;
    try {
      if (flags['health-port'] !== undefined) {
        probe = await listen(service.probeApp(), {
          host: config.api.host,
          port: flags['health-port'],
          what: 'health port',
          hint: portHint('--health-port', 'api.port'),
        });
      }
      await service.start();
      this.log(`Junction ${version} worker ${service.executor?.workers.workerId ?? ''}`.trimEnd());
      this.log(`  runs     ${config.workers.concurrency} at a time`);
      this.log(
        `  workflows ${config.workers.workflows ? 'advanced here' : 'off (workers.workflows)'}`,
      );
      this.log(
        `  schedules ${config.workers.scheduler ? 'fired here when this process holds the lease' : 'off (workers.scheduler)'}`,
      );
      this.log(`  queue    ${queueLine(service)}`);
      if (probe) this.log(`  health   http://${config.api.host}:${probe.port}/health`);
      logger.info('working', {
        concurrency: config.workers.concurrency,
        workflows: config.workers.workflows,
        scheduler: config.workers.scheduler,
        ...(probe ? { health_port: probe.port } : {}),
      });
      const signal = await untilSignal();
      logger.info('shutting down', { signal, drain_seconds: flags['drain-seconds'] });
      const { requeued } = await service.stop(flags['drain-seconds'] * 1000);
      await probe?.stop(1000);
      this.log(`Stopped (${signal}); ${requeued} in-flight run(s) re-queued.`);
    } finally {
      await probe?.stop(0);
      await service.stop(0);
      await ctx.close();
    }
  }
}
