import { Flags } from '@oclif/core';
import { JunctionCommand } from '../base-command.js';

export default class Serve extends JunctionCommand {
  static override description =
    'Run Junction as a service until SIGINT/SIGTERM: MCP over HTTP (POST/GET /mcp, default 127.0.0.1:8586) and the workers that execute queued runs.';

  static override examples = [
    '<%= config.bin %> serve',
    '<%= config.bin %> serve --mcp-port 9586 --debug',
  ];

  static override flags = {
    'mcp-port': Flags.integer({
      description: 'port of MCP over HTTP (default: mcp.port in config.yaml, 8586)',
      min: 1,
      max: 65535,
    }),
    debug: Flags.boolean({ description: 'log at debug level', default: false }),
    'drain-seconds': Flags.integer({
      description: 'on SIGTERM, how long in-flight runs may finish before they are re-queued',
      default: 10,
      min: 0,
      max: 3600,
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    const { createContext } = await import('../context.js');
    const { createService } = await import('../service.js');
    const { listen } = await import('../listen.js');
    const mcp = await import('@junction/mcp-server');
    const ctx = await createContext();
    const host = ctx.config.api.host;
    const port = flags['mcp-port'] ?? ctx.config.mcp.port;
    const service = await createService(ctx, { logStream: process.stderr, debug: flags.debug });
    const { logger } = service.runtime;
    try {
      const handler = mcp.createMcpHttpHandler({
        port,
        deps: {
          store: service.runtime.store,
          workspace: ctx.workspace,
          pool: service.runtime.pool,
          queue: service.queue,
          logger,
          version: this.config.version,
          checkAgent: (agent) => service.checkAgent(agent),
        },
      });
      // Bound before the workers start: a port in use leaves nothing running.
      const server = await listen(handler.app, {
        host,
        port,
        what: 'MCP over HTTP',
        flag: '--mcp-port',
        configKey: 'mcp.port',
      });
      await service.start();
      this.log(`Junction ${this.config.version} serving MCP on http://${host}:${port}/mcp`);
      logger.info('serving', { mcp_url: `http://${host}:${port}/mcp` });
      const signal = await new Promise<string>((resolve) => {
        process.once('SIGINT', () => resolve('SIGINT'));
        process.once('SIGTERM', () => resolve('SIGTERM'));
      });
      logger.info('shutting down', { signal, drain_seconds: flags['drain-seconds'] });
      await server.stop(async () => handler.close());
      const { requeued } = await service.stop(flags['drain-seconds'] * 1000);
      this.log(`Stopped (${signal}); ${requeued} in-flight run(s) re-queued.`);
    } finally {
      await service.stop();
      await ctx.close();
    }
  }
}
