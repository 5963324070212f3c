// Binding an HTTP surface: a port in use is a clear error naming the port and how to change it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CliError } from './cli-error.js';

export interface Listening {
  server: http.Server;
  port: number;
  /** Stops accepting, lets `closeSessions` end long-lived streams, then drops idle connections. */
  stop(closeSessions?: () => Promise<void>): Promise<void>;
}

export async function listen(
  app: http.RequestListener,
  where: { host: string; port: number; what: string; flag: string; configKey: string },
): Promise<Listening> {
  const server = http.createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') {
        reject(
          new CliError(
            'PORT_IN_USE',
            `Port ${where.port} (${where.what}) is already in use on ${where.host}. Stop the process that holds it, or pick another port with ${where.flag} <port> (or ${where.configKey} in config.yaml).`,
            { port: where.port, host: where.host, flag: where.flag },
          ),
        );
      } else {
        reject(
          new CliError(
            'LISTEN_FAILED',
            `Cannot listen on ${where.host}:${where.port} (${where.what}): ${err.message}. Check api.host in config.yaml.`,
            { port: where.port, host: where.host },
          ),
        );
      }
    });
    server.listen(where.port, where.host, () => resolve());
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    async stop(closeSessions): Promise<void> {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await closeSessions?.();
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), 2_000);
      await closed;
      clearTimeout(timer);
    },
  };
}
