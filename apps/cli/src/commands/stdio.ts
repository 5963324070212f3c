import { Flags } from '@oclif/core';
import { JunctionCommand } from '../base-command.js';

export default class Stdio extends JunctionCommand {
  static override description =
    'Serve MCP over stdin/stdout (JSON-RPC) for one client, with workers that run the agents it calls. stdout carries JSON-RPC only; logs go to stderr and the log file.';

  static override examples = [
    '<%= config.bin %> stdio',
    '<%= config.bin %> stdio --debug',
    'In an MCP client config: {"command": "junction", "args": ["stdio"]}',
  ];

  static override flags = {
    debug: Flags.boolean({ description: 'log at debug level (to stderr)', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Stdio);
    const { createContext } = await import('../context.js');
    const { createService } = await import('../service.js');
    const { connectStdio } = await import('@junction/mcp-server');
    const ctx = await createContext();
    const service = await createService(ctx, {
      logStream: process.stderr,
      debug: flags.debug,
      version: this.config.version,
      management: 'stdio',
    });
    try {
      await service.start();
      const server = service.mcpStdio();
      const ended = new Promise<string>((resolve) => {
        server.server.onclose = (): void => resolve('the client closed the connection');
        process.stdin.once('end', () => resolve('stdin ended'));
        process.once('SIGINT', () => resolve('SIGINT'));
        process.once('SIGTERM', () => resolve('SIGTERM'));
      });
      await connectStdio(server);
      service.logger.info('MCP over stdio ready', { version: this.config.version });
      const why = await ended;
      service.logger.info('MCP over stdio stopping', { reason: why });
      await server.close().catch(() => undefined);
    } finally {
      await service.stop();
      await ctx.close();
    }
  }
}
