// Binding an HTTP surface: a port in use is a one-line error naming the port and the
// environment variable that changes it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiServerError } from './api-server-error.js';

/** Where a surface listens and how an operator changes it. */
export interface ListenTarget {
  host: string;
  port: number;
  /** What is served there, for messages: "REST API". */
  what: string;
  /** The environment variable of the port: JUNCTION_API_PORT. */
  variable: string;
}

export interface Listening {
  server: http.Server;
  port: number;
  /** Stops accepting, lets in-flight requests finish for at most `graceMs`, then drops every connection. Idempotent. */
  stop(graceMs: number): Promise<void>;
}

/** Listens on `target`; rejects with PORT_IN_USE or LISTEN_FAILED, never with a raw socket error. */
export async function listen(app: http.RequestListener, target: ListenTarget): Promise<Listening> {
  const server = http.createServer(app);
  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => reject(listenError(err, target));
    server.once('error', onError);
    server.listen(target.port, target.host, () => {
      // Later faults are not start-up errors: they must not be swallowed here.
      server.off('error', onError);
      resolve();
    });
  });
  let stopped: Promise<void> | undefined;
  return {
    server,
    port: (server.address() as AddressInfo).port,
    stop(graceMs: number): Promise<void> {
      stopped ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // Keep-alive sockets that stay busy past the grace period are cut.
        setTimeout(() => server.closeAllConnections(), graceMs).unref();
      });
      return stopped;
    },
  };
}

function listenError(err: NodeJS.ErrnoException, target: ListenTarget): ApiServerError {
  const { host, port, what, variable } = target;
  const details = { host, port, variable };
  if (err.code === 'EADDRINUSE') {
    return new ApiServerError(
      'PORT_IN_USE',
      `Port ${port} (${what}) is already in use on ${host}. Stop the process that holds it, or set ${variable} to another port.`,
      details,
      { cause: err },
    );
  }
  if (err.code === 'EACCES') {
    return new ApiServerError(
      'LISTEN_FAILED',
      `Not allowed to listen on port ${port} (${what}): ports below 1024 need privileges. Set ${variable} to a port of 1024 or more.`,
      details,
      { cause: err },
    );
  }
  return new ApiServerError(
    'LISTEN_FAILED',
    `Cannot listen on ${host}:${port} (${what}): ${err.message}. Check JUNCTION_HOST (an address of this machine, or 0.0.0.0) and ${variable}.`,
    details,
    { cause: err },
  );
}
