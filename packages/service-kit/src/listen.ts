// Binding an HTTP surface: a port that cannot be bound is a one-line error naming the port and
// how the operator changes it (an environment variable for the apps, a flag for the CLI).
import type { Duplex } from 'node:stream';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServiceError } from './service-error.js';

/** How an operator moves a listener elsewhere: the endings of its listen errors. */
export interface PortHint {
  /** Completes "Stop the process that holds it, or …" (PORT_IN_USE): "set JUNCTION_API_PORT to another port". */
  inUse: string;
  /** The sentence that ends LISTEN_FAILED for a port below 1024 (EACCES). Without it, EACCES ends with `otherwise`. */
  privileged?: string;
  /** The sentence that ends any other LISTEN_FAILED: "Check api.host in config.yaml." */
  otherwise: string;
  /** JSON-safe details naming the setting, added to the error's: `{ variable: "JUNCTION_API_PORT" }`. */
  details: Record<string, string>;
}

/** Where a surface listens and how an operator changes it. */
export interface ListenTarget {
  host: string;
  port: number;
  /** What is served there, for messages: "REST API". */
  what: string;
  hint: PortHint;
}

export interface Listening {
  server: http.Server;
  /** The bound port (the one the OS chose when the target's port was 0). */
  port: number;
  /** Stops accepting, lets in-flight requests finish for at most `graceMs`, then drops every connection. Idempotent. */
  stop(graceMs: number): Promise<void>;
}

/** The hint for a port set by an environment variable, as the container apps read it. */
export function envPortHint(variable: string): PortHint {
  return {
    inUse: `set ${variable} to another port`,
    privileged: `Set ${variable} to a port of 1024 or more.`,
    otherwise: `Check JUNCTION_HOST (an address of this machine, or 0.0.0.0) and ${variable}.`,
    details: { variable },
  };
}

/**
 * Answers a request Node refuses before any route sees it (headers or URL over 16 KB, a
 * malformed request line) with JSON like every other error, instead of Node's empty body.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const [status, reason, code, message] = tooLarge
    ? [
        431,
        'Request Header Fields Too Large',
        'HEADERS_TOO_LARGE',
        'The request line and headers are larger than 16 KB. Send a shorter URL and fewer or shorter headers.',
      ]
    : [400, 'Bad Request', 'INVALID_REQUEST', 'The request could not be read as HTTP.'];
  const body = JSON.stringify({ error: { code, message } });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Listens on `target`; rejects with PORT_IN_USE or LISTEN_FAILED, never with a raw socket error. */
export async function listen(app: http.RequestListener, target: ListenTarget): Promise<Listening> {
  const server = http.createServer(app);
  server.on('clientError', answerClientError);
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
        // Keep-alive sockets that stay busy past the grace period are cut.
        const cut = setTimeout(() => server.closeAllConnections(), graceMs).unref();
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
      });
      return stopped;
    },
  };
}

function listenError(err: NodeJS.ErrnoException, target: ListenTarget): ServiceError {
  const { host, port, what, hint } = target;
  const details = { host, port, ...hint.details };
  if (err.code === 'EADDRINUSE') {
    return new ServiceError(
      'PORT_IN_USE',
      `Port ${port} (${what}) is already in use on ${host}. Stop the process that holds it, or ${hint.inUse}.`,
      details,
      { cause: err },
    );
  }
  if (err.code === 'EACCES' && hint.privileged !== undefined) {
    return new ServiceError(
      'LISTEN_FAILED',
      `Not allowed to listen on port ${port} (${what}): ports below 1024 need privileges. ${hint.privileged}`,
      details,
      { cause: err },
    );
  }
  return new ServiceError(
    'LISTEN_FAILED',
    `Cannot listen on ${host}:${port} (${what}): ${err.message}. ${hint.otherwise}`,
    details,
    { cause: err },
  );
}
