import { Flags } from '@oclif/core';
import type { McpHttpHandler } from '@junction/mcp-server';
import type { Listening } from '@junction/service-kit';
import { listenTraces, portHint, queueLine, tracesLine } from '../traces-line.js';
import { JunctionCommand } from '../base-command.js';
import { serviceFlags, untilSignal } from '../flags.js';

const port = (what: string, key: string) =>
  Flags.integer({
    description: `port of ${what} (default: ${key} in config.yaml)`,
    min: 1,
    max: 65535,
  });

/** How long open connections may stay once the listeners stop accepting. */
const CONNECTION_GRACE_MS = 2_000;

/** A port in use names the flag and the config.yaml key that change it. */

export default class Serve extends JunctionCommand {
  static override description =
    'Run Junction as a service until SIGINT/SIGTERM, on embedded defaults: the REST API with /health and /metrics (8585), MCP over HTTP at /mcp (8586), the webhook routes /execute and /runs/<id> (8587), the workers that execute queued runs, and alert notifications. Binds api.host (127.0.0.1).';

  static override examples = [
    '<%= config.bin %> serve',
    '<%= config.bin %> serve --mcp-port 9586 --debug',
    'JUNCTION_WEBHOOK_ENABLED=true <%= config.bin %> serve',
  ];

  static override flags = {
    'api-port': port('the REST API, /health and /metrics', 'api.port'),
    'mcp-port': port('MCP over HTTP', 'mcp.port'),
    'webhook-port': port('the webhook routes', 'webhook.port'),
    'receiver-port': port('the OTLP/HTTP trace receiver', 'traces.receiver_port'),
    'viewer-port': port('the trace viewer', 'traces.viewer_port'),
    workers: Flags.boolean({
      description:
        'work runs and workflow runs here (default); --no-workers: only accept them, for `junction worker` processes (or api-servers) sharing the store to execute',
      default: true,
      allowNo: true,
    }),
    ...serviceFlags,
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    const { createContext } = await import('../context.js');
    const { createService } = await import('../service.js');
    const { isLoopback, listen, runSlotsOf, urlOf, ServiceError } = await import(
      '@junction/service-kit'
    );
    const ctx = await createContext();
    const { config } = ctx;
    const version = this.config.version;
    const host = config.api.host;
    const ports = {
      api: flags['api-port'] ?? config.api.port,
      mcp: flags['mcp-port'] ?? config.mcp.port,
      webhook: flags['webhook-port'] ?? config.webhook.port,
      receiver: flags['receiver-port'] ?? config.traces.receiver_port,
      viewer: flags['viewer-port'] ?? config.traces.viewer_port,
    };
    const startedAt = new Date();
    const service = await createService(ctx, {
      logStream: process.stderr,
      debug: flags.debug,
      version,
      startedAt,
      management: 'serve',
      traces: true,
      ...(flags.workers ? {} : { workers: { runs: false, workflows: false } }),
    });
    const { logger } = service;
    const servers: Listening[] = [];
    let mcpHandler: McpHttpHandler | undefined;
    try {
      const restApp = service.restApp();
      mcpHandler = service.mcpHttp(ports.mcp);
      const webhookApp = service.webhookApp();
      // Every port is bound before the workers start: a port in use leaves nothing running
      // (each listener is kept as soon as it is bound, so a later failure stops it again).
      servers.push(
        await listen(restApp, {
          host,
          port: ports.api,
          what: 'REST API',
          hint: portHint('--api-port', 'api.port'),
        }),
      );
      servers.push(
        await listen(mcpHandler.app, {
          host,
          port: ports.mcp,
          what: 'MCP over HTTP',
          hint: portHint('--mcp-port', 'mcp.port'),
        }),
      );
      const webhook = await listen(webhookApp, {
        host,
        port: ports.webhook,
        what: 'webhook routes',
        hint: portHint('--webhook-port', 'webhook.port'),
      });
      servers.push(webhook);
      // Approval links name the port the routes listen on (--webhook-port included).
      service.webhookListening(webhook.port);
      // The trace receiver and viewer are a comfort, not the service: a port someone else holds
      // is said and skipped (their spans still go to the store; the dashboard shows them).
      const { traces } = service;
      if (traces) {
        traces.bound('dashboard', urlOf(host, ports.api));
        const bound = await listenTraces(
          traces,
          host,
          { receiver: ports.receiver, viewer: ports.viewer },
          (what, err, port) => {
            if (!(err instanceof ServiceError) || err.code !== 'PORT_IN_USE') throw err;
            logger.warn(`${what} not started: ${err.message}`, { port });
            process.stderr.write(`Warning: ${what} not started: ${err.message}\n`);
          },
        );
        servers.push(...bound);
      }
      if (!isLoopback(host) && service.apiKeys.length === 0) {
        const warning = `api.host is ${host}, not a loopback address, and no API key is set: REST and MCP answer anyone who can reach this machine. Set api.keys (or JUNCTION_API_KEY), or bind 127.0.0.1.`;
        logger.warn(warning, { host });
        process.stderr.write(`Warning: ${warning}\n`);
      }
      await service.start();
      const base = `http://${host}`;
      this.log(`Junction ${version} serving:`);
      this.log(`  REST     ${base}:${ports.api}/api/v1   (/health, /metrics)`);
      this.log(`  MCP      ${base}:${ports.mcp}/mcp`);
      this.log(
        `  webhook  ${base}:${ports.webhook}/execute ${config.webhook.enabled ? '' : '(disabled: webhook.enabled is false)'}`.trimEnd(),
      );
      this.log(`  dashboard ${base}:${ports.api}/ui/`);
      this.log(`  traces   ${tracesLine(service.tracesHealth())}`);
      this.log(`  queue    ${queueLine(service)}`);
      const workers = runSlotsOf(service.config);
      this.log(
        `serving MCP, REST and webhooks; ${workers > 0 ? `${workers} workers` : 'no workers: runs wait for `junction worker` processes on this store'}`,
      );
      logger.info('serving', {
        host,
        ...ports,
        workers,
        traces: service.tracesHealth(),
      });
      const signal = await untilSignal();
      logger.info('shutting down', { signal, drain_seconds: flags['drain-seconds'] });
      const { requeued } = await this.#stop(servers, mcpHandler, service, flags['drain-seconds']);
      this.log(`Stopped (${signal}); ${requeued} in-flight run(s) re-queued.`);
    } finally {
      await this.#stop(servers, mcpHandler, service, 0);
      await ctx.close();
    }
  }

  #stopping: Promise<{ requeued: number }> | undefined;

  /** Stops accepting, ends MCP sessions, drains the workers (bounded), then closes the runtime. */
  #stop(
    servers: Listening[],
    mcpHandler: { close(): Promise<void> } | undefined,
    service: { stop(drainMs?: number): Promise<{ requeued: number }> },
    drainSeconds: number,
  ): Promise<{ requeued: number }> {
    this.#stopping ??= (async () => {
      // MCP sessions hold streams open: they are ended while the listeners stop accepting.
      await Promise.all([
        ...servers.map((s) => s.stop(CONNECTION_GRACE_MS)),
        mcpHandler?.close() ?? Promise.resolve(),
      ]);
      return service.stop(drainSeconds * 1000);
    })();
    return this.#stopping;
  }
}
