// Reaching the coding bus: the embedded server when coding.nats.url points at a loopback port
// nobody listens on, else the configured server. A bus that cannot be had is logged as
// `Failed to create NATS backend` with the reason and what to do; Junction keeps working.
import net from 'node:net';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { redactUrl, type Logger } from '@junction/telemetry';
import { EmbeddedNats } from './embedded-nats.js';
import { CodingBusError } from './errors.js';

export interface CodingBusOptions {
  /** coding.nats.url. */
  url: string;
  /** JetStream storage of an embedded server. */
  storeDir: string;
  logger: Logger;
  /** coding.nats.server_path. */
  serverPath?: string;
  /** Client name the server sees. Default `junction`. */
  name?: string;
}

/** The bus this process has, or why it has none. */
export type CodingBus =
  | {
      ok: true;
      url: string;
      connection: NatsConnection;
      embedded?: EmbeddedNats;
      close(): Promise<void>;
    }
  | { ok: false; error: CodingBusError; close(): Promise<void> };

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** True when something accepts TCP connections on host:port (within 500 ms). */
function listening(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (yes: boolean): void => {
      socket.destroy();
      resolve(yes);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.setTimeout(500, () => done(false));
  });
}

/**
 * Starts (when it should be embedded) and connects to the coding bus. Never throws: a bus that
 * cannot be had is `{ok: false, error}`, logged as `Failed to create NATS backend`.
 */
export async function openCodingBus(options: CodingBusOptions): Promise<CodingBus> {
  const { logger } = options;
  let embedded: EmbeddedNats | undefined;
  const fail = async (error: CodingBusError): Promise<CodingBus> => {
    logger.error(`Failed to create NATS backend: ${error.message}`, {
      code: error.code,
      url: redactUrl(options.url),
    });
    await embedded?.stop();
    return { ok: false, error, close: async () => undefined };
  };
  let url = options.url;
  try {
    const parsed = new URL(url.replace(/^nats:/, 'http:'));
    const port = Number(parsed.port || 4222);
    if (LOOPBACK.has(parsed.hostname) && !(await listening('127.0.0.1', port))) {
      embedded = new EmbeddedNats({
        port,
        storeDir: options.storeDir,
        logger,
        ...(options.serverPath !== undefined ? { serverPath: options.serverPath } : {}),
      });
      await embedded.start();
      url = embedded.url;
      logger.info('embedded nats-server started', { url, pid: embedded.pid });
    }
  } catch (err) {
    if (err instanceof CodingBusError) return fail(err);
    throw err;
  }
  let connection: NatsConnection;
  try {
    connection = await connect({
      servers: url,
      name: options.name ?? 'junction',
      // An embedded server that restarts is back within seconds: keep trying.
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      timeout: 5000,
    });
  } catch (err) {
    return fail(
      new CodingBusError(
        'NATS_UNREACHABLE',
        `cannot connect to ${redactUrl(url)} (${(err as Error).message}); start that NATS server, or remove coding.nats.url to let Junction run its own.`,
        { url: redactUrl(url) },
      ),
    );
  }
  return {
    ok: true,
    url: redactUrl(url),
    connection,
    ...(embedded ? { embedded } : {}),
    async close() {
      await connection.drain().catch(() => connection.close());
      await embedded?.stop();
    },
  };
}
