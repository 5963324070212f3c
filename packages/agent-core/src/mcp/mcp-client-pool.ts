// One live MCP client per server key, opened on first use and reused: stdio servers are
// spawned as children, HTTP servers are reached over Streamable HTTP with an SSE fallback.
// Every failure becomes an AgentCoreError that says what happened without leaking the
// env values and headers of the server's template (they usually carry API keys).
import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { existsSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import {
  MIN_SECRET_LENGTH,
  createNoopLogger,
  createRedactor,
  redactUrl,
} from '@junction/telemetry';
import type { Logger, Redactor } from '@junction/telemetry';
import type { ToolAnnotations } from '@junction/store';
import { AgentCoreError } from '../errors.js';
import type { AgentCoreErrorCode } from '../errors.js';
import {
  createHttpTransport,
  describeNetworkCode,
  endHttpSession,
  httpStatusOf,
  networkErrorCodeOf,
  shouldFallBackToSse,
} from './mcp-http-transport.js';
import type { HttpTransportKind } from './mcp-http-transport.js';
import {
  WatchedStdioTransport,
  describeExit,
  settlesWithin,
  stderrReason,
} from './mcp-stdio-transport.js';

/** How to reach one MCP server: a command to spawn (stdio) or a URL (http). */
export interface McpServerSpec {
  /** The server's name in its template; errors and logs name it. */
  name: string;
  transport: 'stdio' | 'http';
  command?: string;
  args?: string[];
  /** Added to the SDK's safe default environment (PATH, HOME, …) of the child. */
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
}

/** A tool as a server lists it. */
export interface DiscoveredTool {
  name: string;
  description: string | null;
  /** The tool's JSON Schema for its arguments. */
  inputSchema: Record<string, unknown>;
  /** What the server says of its behaviour (readOnlyHint, idempotentHint, …), when it does. */
  annotations?: ToolAnnotations;
}

/** What a tool call returned; a tool that failed is `isError: true`, not an exception. */
export interface ToolCallResult {
  content: Array<Record<string, unknown>>;
  structuredContent?: Record<string, unknown>;
  isError: boolean;
}

/** The behaviour hints of a tool's MCP annotations (the ones that are booleans). */
function hintsOf(annotations: Record<string, unknown>): ToolAnnotations {
  const hints: ToolAnnotations = {};
  for (const key of [
    'readOnlyHint',
    'idempotentHint',
    'destructiveHint',
    'openWorldHint',
  ] as const) {
    const value = annotations[key];
    if (typeof value === 'boolean') hints[key] = value;
  }
  return hints;
}

/** Options of one `callTool`. */
export interface CallToolOptions {
  /** Bound on the call; default the pool's requestTimeoutMs. */
  timeoutMs?: number;
  /** Aborting stops waiting (and connecting); what was sent stays sent. */
  signal?: AbortSignal;
  /** Awaited once connected, right before tools/call is sent; throwing stops the call unsent. */
  beforeSend?: () => Promise<void> | void;
  /** The request's `_meta` (the run's idempotency key of the call). */
  meta?: Record<string, unknown>;
}

/** The error of a `beforeSend` hook: the call was not sent, so it is the caller's, unwrapped. */
class NotSent extends Error {
  override readonly cause: unknown;

  private constructor(cause: unknown) {
    super('not sent');
    this.cause = cause;
  }

  /** Awaits `hook`, wrapping what it throws so the request loop hands it back untouched. */
  static async wrap(hook: () => Promise<void> | void): Promise<void> {
    try {
      await hook();
    } catch (err) {
      throw new NotSent(err);
    }
  }
}

/** Options of McpClientPool. */
export interface McpClientPoolOptions {
  logger?: Logger;
  /** Bound on starting a server and the MCP initialize handshake. Default 30 s. */
  connectTimeoutMs?: number;
  /** Default bound on listing tools and on one tool call. Default 60 s. */
  requestTimeoutMs?: number;
  /** Client name sent to servers. Default `junction`. */
  clientName?: string;
  /** Client version sent to servers. Default `0.1.0`. */
  clientVersion?: string;
}

/** Default bound on connecting to a server, in milliseconds. */
export const DEFAULT_MCP_CONNECT_TIMEOUT_MS = 30_000;
/** Default bound on one list or call request, in milliseconds. */
export const DEFAULT_MCP_REQUEST_TIMEOUT_MS = 60_000;

// A ping after a request timed out tells a slow tool from a wedged server.
const HEALTH_CHECK_TIMEOUT_MS = 5_000;
// Grace for a closing child before SIGKILL, and for an HTTP session DELETE.
const EXIT_GRACE_MS = 2_000;
const SESSION_DELETE_TIMEOUT_MS = 1_000;
// How long to wait for the last stderr bytes of a dead child before writing the error.
const STDERR_SETTLE_MS = 250;
const MAX_TOOL_PAGES = 1_000;
const HANDSHAKE_SETTLE_MS = 100;
// A request is sent at most twice, and only when the first try surely never reached the server.
const MAX_ATTEMPTS = 2;

type ConnectionKind = 'stdio' | HttpTransportKind;

// Why a connection ended; decides the error in-flight and later requests see.
type CloseReason =
  | 'exited' // the child exited or the transport closed by itself
  | 'unreachable' // an HTTP server stopped accepting connections
  | 'unresponsive' // connect or health-check ping timed out; the child is killed
  | 'failed' // the connect handshake failed
  | 'closed' // close(key)
  | 'replaced' // the key's spec changed; closed once idle
  | 'pool-closed'; // closeAll()

interface Connection {
  readonly key: string;
  readonly spec: McpServerSpec;
  readonly fingerprint: string;
  readonly kind: ConnectionKind;
  readonly client: Client;
  readonly transport: Transport;
  readonly stdio: WatchedStdioTransport | undefined;
  readonly redactor: Redactor;
  /** Aborted when the connection ends; every request listens to it. */
  readonly lifetime: AbortController;
  readonly logger: Logger;
  inFlight: number;
  retired: boolean;
  closeReason: CloseReason | undefined;
  /** Ready once the handshake succeeded; only a ready connection is closed gracefully. */
  ready: boolean;
  /** Why an HTTP server counts as gone: `connection refused, ECONNREFUSED`, `HTTP 404`. */
  lostReason: string | undefined;
  teardown: Promise<void> | undefined;
  healthCheck: Promise<void> | undefined;
}

interface PendingConnect {
  readonly fingerprint: string;
  readonly promise: Promise<Connection>;
  readonly controller: AbortController;
}

interface RequestContext {
  readonly signal: AbortSignal;
  /** Milliseconds left before the caller's timeout (at least 1). */
  remaining(): number;
}

/** A pool of MCP clients keyed by server: connects on first use, reuses, reconnects after a crash. */
export class McpClientPool {
  private readonly logger: Logger;
  private readonly connectTimeoutMs: number;
  private readonly requestTimeoutMs: number;
  private readonly clientInfo: { name: string; version: string };
  private readonly live = new Map<string, Connection>();
  private readonly pending = new Map<string, PendingConnect>();
  private readonly draining = new Set<Connection>();
  private readonly teardowns = new Set<Promise<void>>();
  private closed = false;

  constructor(options: McpClientPoolOptions = {}) {
    this.logger = (options.logger ?? createNoopLogger()).child({ component: 'mcp-client-pool' });
    this.connectTimeoutMs = positiveMs(options.connectTimeoutMs, DEFAULT_MCP_CONNECT_TIMEOUT_MS);
    this.requestTimeoutMs = positiveMs(options.requestTimeoutMs, DEFAULT_MCP_REQUEST_TIMEOUT_MS);
    this.clientInfo = {
      name: options.clientName ?? 'junction',
      version: options.clientVersion ?? '0.1.0',
    };
  }

  /** Connects (or reuses a live connection) and lists every tool, following pagination cursors. */
  async listTools(
    key: string,
    spec: McpServerSpec,
    options: { timeoutMs?: number } = {},
  ): Promise<DiscoveredTool[]> {
    const timeoutMs = positiveMs(options.timeoutMs, this.requestTimeoutMs);
    return this.run(key, spec, 'listing tools', timeoutMs, undefined, async (conn, request) => {
      // A server without the tools capability has no tools; asking would be an error.
      if (conn.client.getServerCapabilities()?.tools === undefined) return [];
      const tools: DiscoveredTool[] = [];
      const cursors = new Set<string>();
      let cursor: string | undefined;
      for (let page = 0; page < MAX_TOOL_PAGES; page += 1) {
        const result = await conn.client.listTools(cursor === undefined ? undefined : { cursor }, {
          signal: request.signal,
          timeout: request.remaining(),
        });
        for (const tool of result.tools) {
          tools.push({
            name: tool.name,
            description: tool.description ?? null,
            inputSchema: { ...tool.inputSchema },
            ...(tool.annotations ? { annotations: hintsOf(tool.annotations) } : {}),
          });
        }
        cursor = result.nextCursor;
        if (cursor === undefined) return tools;
        if (cursors.has(cursor)) {
          throw new McpError(
            ErrorCode.InternalError,
            `tools/list returned cursor "${cursor}" twice`,
          );
        }
        cursors.add(cursor);
      }
      throw new McpError(
        ErrorCode.InternalError,
        `tools/list returned more than ${MAX_TOOL_PAGES} pages`,
      );
    });
  }

  /**
   * Calls one tool, connecting first if needed; a tool that fails is a result with `isError: true`.
   * `beforeSend` is awaited once the server is connected, right before the tools/call request
   * goes out; when it throws, nothing is sent and its error is the call's.
   */
  async callTool(
    key: string,
    spec: McpServerSpec,
    tool: string,
    args: Record<string, unknown>,
    options: CallToolOptions = {},
  ): Promise<ToolCallResult> {
    const timeoutMs = positiveMs(options.timeoutMs, this.requestTimeoutMs);
    const action = `calling tool "${tool}"`;
    return this.run(key, spec, action, timeoutMs, options.signal, async (conn, request) => {
      if (options.beforeSend) await NotSent.wrap(options.beforeSend);
      const params = {
        name: tool,
        arguments: args,
        ...(options.meta ? { _meta: options.meta } : {}),
      };
      const result = await conn.client.callTool(params, undefined, {
        signal: request.signal,
        timeout: request.remaining(),
      });
      const content = Array.isArray(result.content)
        ? result.content.map((item): Record<string, unknown> => ({ ...item }))
        : [];
      const structured = result.structuredContent;
      return {
        content,
        ...(structured !== undefined && structured !== null
          ? { structuredContent: { ...structured } }
          : {}),
        isError: result.isError === true,
      };
    });
  }

  /** Closes the connection of `key` (stopping its child); the next use connects again. */
  async close(key: string): Promise<void> {
    const work: Promise<unknown>[] = [];
    const pending = this.pending.get(key);
    if (pending !== undefined) {
      pending.controller.abort();
      work.push(pending.promise.catch(() => undefined));
    }
    const live = this.live.get(key);
    if (live !== undefined) work.push(this.teardown(live, 'closed'));
    for (const conn of this.draining) {
      if (conn.key === key) work.push(this.teardown(conn, 'closed'));
    }
    await Promise.all(work);
  }

  /** Closes every connection and waits until no child process is left; later calls fail with MCP_POOL_CLOSED. */
  async closeAll(): Promise<void> {
    this.closed = true;
    const work: Promise<unknown>[] = [];
    for (const pending of this.pending.values()) {
      pending.controller.abort();
      work.push(pending.promise.catch(() => undefined));
    }
    for (const conn of [...this.live.values(), ...this.draining]) {
      work.push(this.teardown(conn, 'pool-closed'));
    }
    await Promise.all(work);
    // Teardowns started earlier (a crash, a timeout) must finish too: they wait for the child.
    await Promise.all([...this.teardowns]);
  }

  /** Keys with a live connection. */
  activeKeys(): string[] {
    return [...this.live.keys()].sort();
  }

  // Runs `op` on the key's connection under a timeout, the caller's signal and the
  // connection's lifetime, and turns every failure into an AgentCoreError.
  private async run<T>(
    key: string,
    spec: McpServerSpec,
    action: string,
    timeoutMs: number,
    callerSignal: AbortSignal | undefined,
    op: (conn: Connection, request: RequestContext) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      if (callerSignal?.aborted) throw cancelledError(spec, key, action, callerSignal.reason);
      // Reserved for us (inFlight counted), so a spec change cannot close it under this request.
      const conn = await this.acquire(key, spec, action, callerSignal);
      const linked = linkSignals(callerSignal, conn.lifetime.signal);
      try {
        // It ended between acquire and now; nothing was sent, so take a fresh one.
        if (conn.closeReason !== undefined && attempt < MAX_ATTEMPTS - 1) continue;
        const deadline = Date.now() + timeoutMs;
        return await op(conn, {
          signal: linked.signal,
          remaining: () => Math.max(1, deadline - Date.now()),
        });
      } catch (error) {
        if (error instanceof NotSent) throw error.cause;
        if (
          attempt < MAX_ATTEMPTS - 1 &&
          callerSignal?.aborted !== true &&
          isSessionLost(conn, error)
        ) {
          // The server forgot our session (it restarted): the request was never handled, so
          // a fresh connection may safely send it again.
          conn.logger.info('MCP session expired; reconnecting', { status: httpStatusOf(error) });
          void this.teardown(conn, 'exited');
          continue;
        }
        throw await this.requestError(conn, error, action, timeoutMs, callerSignal);
      } finally {
        linked.dispose();
        conn.inFlight -= 1;
        if (conn.retired && conn.inFlight === 0) void this.teardown(conn, 'replaced');
      }
    }
  }

  // The key's live connection for `spec`, reserved (inFlight + 1) for the caller, which must
  // release it; concurrent first uses share one connection attempt.
  private async acquire(
    key: string,
    spec: McpServerSpec,
    action: string,
    callerSignal: AbortSignal | undefined,
  ): Promise<Connection> {
    const fingerprint = fingerprintOf(spec);
    for (;;) {
      if (this.closed) throw poolClosedError(spec, key);
      const live = this.live.get(key);
      if (live !== undefined) {
        if (live.fingerprint !== fingerprint) {
          this.retire(live);
          continue;
        }
        if (live.healthCheck !== undefined) {
          await untilAborted(live.healthCheck, callerSignal, () =>
            cancelledError(spec, key, action, callerSignal?.reason),
          );
          continue;
        }
        live.inFlight += 1;
        return live;
      }
      const pending = this.pending.get(key) ?? this.startConnect(key, spec, fingerprint);
      if (pending.fingerprint !== fingerprint) {
        await untilAborted(
          pending.promise.then(
            () => undefined,
            () => undefined,
          ),
          callerSignal,
          () => cancelledError(spec, key, action, callerSignal?.reason),
        );
        continue;
      }
      const conn = await untilAborted(pending.promise, callerSignal, () =>
        cancelledError(spec, key, action, callerSignal?.reason),
      );
      conn.inFlight += 1;
      return conn;
    }
  }

  private startConnect(key: string, spec: McpServerSpec, fingerprint: string): PendingConnect {
    const controller = new AbortController();
    const promise = this.connect(key, spec, fingerprint, controller.signal).then(
      (conn) => {
        this.pending.delete(key);
        if (controller.signal.aborted || this.closed) {
          void this.teardown(conn, this.closed ? 'pool-closed' : 'closed');
          throw this.closed ? poolClosedError(spec, key) : connectCancelledError(spec, key);
        }
        this.live.set(key, conn);
        return conn;
      },
      (error: unknown) => {
        this.pending.delete(key);
        throw error;
      },
    );
    // Callers that gave up (their signal) no longer await it; the rejection is still handled.
    promise.catch(() => undefined);
    const entry: PendingConnect = { fingerprint, promise, controller };
    this.pending.set(key, entry);
    return entry;
  }

  private async connect(
    key: string,
    spec: McpServerSpec,
    fingerprint: string,
    signal: AbortSignal,
  ): Promise<Connection> {
    const redactor = redactorFor(spec);
    const started = Date.now();
    if (spec.transport === 'stdio') {
      if (spec.command === undefined || spec.command.trim() === '') {
        throw invalidSpecError(spec, key, 'it uses stdio but has no "command"');
      }
      const transport = new WatchedStdioTransport({
        command: spec.command,
        args: spec.args ?? [],
        env: spec.env ?? {},
        cwd: spec.cwd,
      });
      const conn = this.newConnection(key, spec, fingerprint, 'stdio', transport, redactor);
      await this.initialize(conn, this.connectTimeoutMs, signal);
      conn.logger.debug('MCP server connected', {
        pid: transport.childProcessId,
        duration_ms: Date.now() - started,
      });
      return conn;
    }
    if (spec.transport !== 'http') {
      throw invalidSpecError(
        spec,
        key,
        `its transport "${String(spec.transport)}" is not stdio or http`,
      );
    }
    const url = parseHttpUrl(spec, key);
    const headers = spec.headers ?? {};
    const deadline = started + this.connectTimeoutMs;
    const streamable = this.newConnection(
      key,
      spec,
      fingerprint,
      'streamable-http',
      createHttpTransport('streamable-http', url, headers),
      redactor,
    );
    try {
      await this.initialize(streamable, deadline - Date.now(), signal);
      streamable.logger.debug('MCP server connected', { duration_ms: Date.now() - started });
      return streamable;
    } catch (error) {
      const status = error instanceof AgentCoreError ? error.details.status : undefined;
      if (typeof status !== 'number' || !shouldFallBackToSse(status) || signal.aborted) throw error;
      streamable.logger.debug('Streamable HTTP refused; trying the SSE transport', { status });
      const sse = this.newConnection(
        key,
        spec,
        fingerprint,
        'sse',
        createHttpTransport('sse', url, headers),
        redactor,
      );
      await this.initialize(sse, deadline - Date.now(), signal, status);
      sse.logger.debug('MCP server connected over SSE', { duration_ms: Date.now() - started });
      return sse;
    }
  }

  private newConnection(
    key: string,
    spec: McpServerSpec,
    fingerprint: string,
    kind: ConnectionKind,
    transport: Transport,
    redactor: Redactor,
  ): Connection {
    const client = new Client(this.clientInfo, { capabilities: {} });
    const stdio = transport instanceof WatchedStdioTransport ? transport : undefined;
    const conn: Connection = {
      key,
      spec: { ...spec },
      fingerprint,
      kind,
      client,
      transport,
      stdio,
      redactor,
      lifetime: unboundedController(),
      logger: this.logger.child({
        server: spec.name,
        key,
        transport: kind,
        ...(spec.url !== undefined ? { url: redactUrl(spec.url) } : {}),
      }),
      inFlight: 0,
      retired: false,
      closeReason: undefined,
      ready: false,
      lostReason: undefined,
      teardown: undefined,
      healthCheck: undefined,
    };
    client.onclose = () => this.onConnectionLost(conn);
    client.onerror = (error: Error) => this.onTransportError(conn, error);
    stdio?.onExit(() => this.onConnectionLost(conn));
    return conn;
  }

  // Runs the MCP handshake within `timeoutMs`; on failure the connection is torn down.
  private async initialize(
    conn: Connection,
    timeoutMs: number,
    signal: AbortSignal,
    streamableStatus?: number,
  ): Promise<void> {
    const onAbort = (): void => void this.teardown(conn, this.closed ? 'pool-closed' : 'closed');
    signal.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(
      () => void this.teardown(conn, 'unresponsive'),
      Math.max(1, timeoutMs),
    );
    // transport.start() (an SSE stream that never opens) can hang where no request timeout
    // reaches, so the handshake also races the connection's end.
    const ended = new Promise<never>((_resolve, reject) => {
      const fail = (): void => reject(new Error('connection ended during connect'));
      if (conn.lifetime.signal.aborted) fail();
      else conn.lifetime.signal.addEventListener('abort', fail, { once: true });
    });
    ended.catch(() => undefined);
    // Not the lifetime signal itself: the SDK never unhooks a request's abort listener, and
    // would send a stale cancellation for the handshake when the connection closes.
    const handshake = linkSignals(conn.lifetime.signal);
    try {
      if (signal.aborted) onAbort();
      const connecting = conn.client.connect(conn.transport, {
        // Our own timer decides; the SDK's must not fire first and close the transport itself.
        timeout: timeoutMs * 2 + 1_000,
        signal: handshake.signal,
      });
      connecting.catch(() => undefined);
      try {
        await Promise.race([connecting, ended]);
      } catch (error) {
        // When the handshake failed it closed the connection itself, so `ended` may win the
        // race by a tick; its own error (an HTTP status, a spawn error) says more.
        throw (await handshakeError(connecting)) ?? error;
      }
      if (conn.closeReason !== undefined) throw new Error('connection ended during connect');
      conn.ready = true;
    } catch (error) {
      if (conn.closeReason === undefined) conn.closeReason = 'failed';
      void this.teardown(conn, 'failed');
      throw await this.connectError(conn, error, streamableStatus);
    } finally {
      handshake.dispose();
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
  }

  // The child exited or the transport closed: forget the connection; the next use reconnects.
  private onConnectionLost(conn: Connection): void {
    if (conn.closeReason !== undefined) return;
    const wasLive = this.live.get(conn.key) === conn;
    void this.teardown(conn, 'exited');
    if (!wasLive) return;
    void (async () => {
      const stdio = conn.stdio;
      if (stdio === undefined) {
        conn.logger.warn('MCP server closed the connection; it will reconnect on next use');
        return;
      }
      await settlesWithin(stdio.stderrEnded, STDERR_SETTLE_MS);
      const exit = stdio.exit;
      conn.logger.warn('MCP server exited; it will restart on next use', {
        pid: stdio.childProcessId,
        ...(exit !== undefined ? { exit_code: exit.code, signal: exit.signal } : {}),
        stderr: conn.redactor.text(stderrReason(stdio.stderrTail()) ?? ''),
      });
    })();
  }

  private onTransportError(conn: Connection, error: Error): void {
    conn.logger.debug('MCP transport error', { error: conn.redactor.text(error.message) });
    if (conn.kind === 'stdio' || conn.closeReason !== undefined) return;
    // An HTTP server that died shows up as a broken stream, not a closed transport: ask it.
    const broken =
      networkErrorCodeOf(error) !== undefined ||
      /SSE stream disconnected|Maximum reconnection attempts|Failed to reconnect/.test(
        error.message,
      );
    if (broken && (this.live.get(conn.key) === conn || this.draining.has(conn))) {
      this.checkHealth(conn);
    }
  }

  // Pings the server; one that does not answer is torn down, so no caller waits on it again.
  private checkHealth(conn: Connection): void {
    if (conn.closeReason !== undefined || conn.healthCheck !== undefined) return;
    const timeout = Math.min(this.connectTimeoutMs, HEALTH_CHECK_TIMEOUT_MS);
    const linked = linkSignals(conn.lifetime.signal);
    conn.healthCheck = conn.client.ping({ timeout, signal: linked.signal }).then(
      () => {
        linked.dispose();
        conn.healthCheck = undefined;
      },
      (error: unknown) => {
        linked.dispose();
        if (conn.closeReason !== undefined) return;
        const code = networkErrorCodeOf(error);
        const status = httpStatusOf(error);
        const reachable = code === undefined && status === undefined;
        conn.lostReason =
          code !== undefined
            ? `${describeNetworkCode(code)}, ${code}`
            : status !== undefined
              ? `HTTP ${status}`
              : undefined;
        conn.logger.warn('MCP server stopped answering; closing the connection', {
          reason: conn.lostReason ?? `no answer to ping within ${timeout} ms`,
        });
        void this.teardown(conn, reachable ? 'unresponsive' : 'unreachable');
      },
    );
  }

  // The spec of a key changed: new callers get a new connection, running calls finish on this one.
  private retire(conn: Connection): void {
    if (this.live.get(conn.key) === conn) this.live.delete(conn.key);
    conn.retired = true;
    if (conn.inFlight === 0) void this.teardown(conn, 'replaced');
    else this.draining.add(conn);
  }

  private teardown(conn: Connection, reason: CloseReason): Promise<void> {
    if (conn.closeReason === undefined) conn.closeReason = reason;
    if (this.live.get(conn.key) === conn) this.live.delete(conn.key);
    this.draining.delete(conn);
    if (!conn.lifetime.signal.aborted) conn.lifetime.abort();
    if (conn.teardown !== undefined) return conn.teardown;
    const graceful =
      conn.ready && (reason === 'closed' || reason === 'replaced' || reason === 'pool-closed');
    const work = async (): Promise<void> => {
      const stdio = conn.stdio;
      // A wedged child, or one that never finished its handshake, will not notice stdin
      // closing; do not wait the SDK's grace period for it.
      if (reason === 'unresponsive' || !conn.ready) stdio?.kill('SIGTERM');
      if (graceful) await settlesWithin(endHttpSession(conn.transport), SESSION_DELETE_TIMEOUT_MS);
      await conn.client.close().catch(() => undefined);
      if (stdio !== undefined) await stdio.waitForExit(EXIT_GRACE_MS);
      conn.logger.debug('MCP connection closed', { reason: conn.closeReason });
    };
    const done = work().catch((error: unknown) => {
      conn.logger.debug('MCP connection did not close cleanly', {
        error: conn.redactor.text(error instanceof Error ? error.message : String(error)),
      });
    });
    conn.teardown = done;
    this.teardowns.add(done);
    void done.finally(() => this.teardowns.delete(done));
    return done;
  }

  private async connectError(
    conn: Connection,
    error: unknown,
    streamableStatus: number | undefined,
  ): Promise<AgentCoreError> {
    const { spec, key, redactor } = conn;
    const server = `MCP server "${spec.name}"`;
    const where = describeTarget(conn);
    const details = baseDetails(conn, 'connect');
    const make = errorMaker(redactor, details, error);

    switch (conn.closeReason) {
      case 'unresponsive':
        return make(
          'MCP_TIMEOUT',
          `${server} (${where}) did not finish connecting within ${this.connectTimeoutMs} ms. It may be hung or slow to start; check the server or raise the connect timeout.`,
          { timeoutMs: this.connectTimeoutMs, ...(await stderrDetails(conn)) },
        );
      case 'pool-closed':
        return poolClosedError(spec, key);
      case 'closed':
        return connectCancelledError(spec, key);
      default:
        break;
    }
    const stdio = conn.stdio;
    if (stdio?.exit !== undefined) {
      const stderr = await stderrDetails(conn);
      const reason = stderr.stderrReason;
      return make(
        'MCP_CONNECT_FAILED',
        `${server} exited with ${describeExit(stdio.exit)} during connect${
          reason !== undefined ? `: ${reason}` : ' (it wrote nothing to stderr)'
        }`,
        { exitCode: stdio.exit.code, signal: stdio.exit.signal, ...stderr },
      );
    }
    const spawnCode = (error as { code?: unknown } | null)?.code;
    if (stdio !== undefined && typeof spawnCode === 'string' && spawnCode.startsWith('E')) {
      const command = spec.command ?? '';
      let problem = `command "${command}" failed to start (${spawnCode})`;
      if (spawnCode === 'ENOENT') {
        problem =
          spec.cwd !== undefined && !existsSync(spec.cwd)
            ? `its working directory "${spec.cwd}" does not exist`
            : `command "${command}" was not found (ENOENT); check "command" in the template and PATH`;
      } else if (spawnCode === 'EACCES') {
        problem = `command "${command}" is not executable (EACCES)`;
      }
      return make('MCP_CONNECT_FAILED', `${server} could not be started: ${problem}`, {
        errno: spawnCode,
      });
    }
    const status = httpStatusOf(error);
    if (status === 401 || status === 403) {
      return make(
        'MCP_CONNECT_FAILED',
        `${server} at ${where} refused the connection with HTTP ${status}: check the headers (API key or token) in its template`,
        { status },
      );
    }
    if (status !== undefined) {
      const tried =
        streamableStatus !== undefined
          ? `HTTP ${streamableStatus} to Streamable HTTP and HTTP ${status} to SSE`
          : `HTTP ${status}`;
      return make(
        'MCP_CONNECT_FAILED',
        `${server} at ${where} answered ${tried}: check its url in the template`,
        { status, ...(streamableStatus !== undefined ? { streamableStatus } : {}) },
      );
    }
    const network = networkErrorCodeOf(error);
    if (network !== undefined) {
      return make(
        'MCP_CONNECT_FAILED',
        `Could not reach ${server} at ${where}: ${describeNetworkCode(network)} (${network}). Is the server running?`,
        { errno: network },
      );
    }
    if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed) {
      return make('MCP_CONNECT_FAILED', `${server} rejected the MCP handshake: ${error.message}`, {
        jsonRpcCode: error.code,
      });
    }
    const message = error instanceof Error ? error.message : String(error);
    return make('MCP_CONNECT_FAILED', `Could not connect to ${server} (${where}): ${message}`, {
      ...(await stderrDetails(conn)),
    });
  }

  private async requestError(
    conn: Connection,
    error: unknown,
    action: string,
    timeoutMs: number,
    callerSignal: AbortSignal | undefined,
  ): Promise<AgentCoreError> {
    if (error instanceof AgentCoreError) return error;
    const { spec, key, redactor } = conn;
    const server = `MCP server "${spec.name}"`;
    const details = { ...baseDetails(conn, 'request'), action };
    const make = errorMaker(redactor, details, error);

    if (callerSignal?.aborted === true)
      return cancelledError(spec, key, action, callerSignal.reason);
    if (
      conn.closeReason === undefined &&
      error instanceof McpError &&
      error.code === ErrorCode.ConnectionClosed
    ) {
      this.onConnectionLost(conn);
    }
    if (conn.closeReason === undefined) {
      const network = conn.kind === 'stdio' ? undefined : networkErrorCodeOf(error);
      if (network !== undefined) {
        conn.lostReason = `${describeNetworkCode(network)}, ${network}`;
        void this.teardown(conn, 'unreachable');
      }
    }
    switch (conn.closeReason) {
      case undefined:
        break;
      case 'pool-closed':
        return poolClosedError(spec, key);
      case 'unresponsive':
        return make(
          'MCP_TIMEOUT',
          `${server} stopped answering while ${action}; the connection was closed`,
          {
            timeoutMs,
          },
        );
      case 'unreachable':
        return make(
          'MCP_SERVER_EXITED',
          `${server} at ${describeTarget(conn)} stopped answering (${conn.lostReason ?? 'connection lost'}) while ${action}`,
        );
      case 'exited': {
        const stdio = conn.stdio;
        if (stdio === undefined) {
          return make('MCP_SERVER_EXITED', `${server} closed the connection while ${action}`);
        }
        const stderr = await stderrDetails(conn);
        const exit = stdio.exit;
        const how = exit !== undefined ? `exited with ${describeExit(exit)}` : 'closed its output';
        const reason = stderr.stderrReason !== undefined ? `: ${stderr.stderrReason}` : '';
        return make(
          'MCP_SERVER_EXITED',
          `${server} ${how} while ${action}${reason}. It is started again on next use.`,
          {
            ...(exit !== undefined ? { exitCode: exit.code, signal: exit.signal } : {}),
            ...stderr,
          },
        );
      }
      default:
        return make(
          'MCP_REQUEST_FAILED',
          `The connection to ${server} was closed while ${action}`,
          {
            closeReason: conn.closeReason,
          },
        );
    }
    if (error instanceof McpError) {
      if (error.code === ErrorCode.RequestTimeout) {
        // Slow tool or wedged server? A ping decides; a wedged one is torn down.
        this.checkHealth(conn);
        return make('MCP_TIMEOUT', `${server} did not finish ${action} within ${timeoutMs} ms`, {
          timeoutMs,
        });
      }
      return make('MCP_REQUEST_FAILED', `${server} failed ${action}: ${error.message}`, {
        jsonRpcCode: error.code,
      });
    }
    const status = httpStatusOf(error);
    if (status !== undefined) {
      const hint =
        status === 401 || status === 403
          ? ': check the headers (API key or token) in its template'
          : '';
      return make(
        'MCP_REQUEST_FAILED',
        `${server} answered HTTP ${status} while ${action}${hint}`,
        { status },
      );
    }
    const message = error instanceof Error ? error.message : String(error);
    return make('MCP_REQUEST_FAILED', `${server} failed ${action}: ${message}`);
  }
}

function positiveMs(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
}

// Specs are built once per sync and reused for every call; hashing one per call showed in profiles.
const fingerprints = new WeakMap<McpServerSpec, string>();

function fingerprintOf(spec: McpServerSpec): string {
  let fingerprint = fingerprints.get(spec);
  if (fingerprint === undefined) {
    fingerprint = hashSpec(spec);
    fingerprints.set(spec, fingerprint);
  }
  return fingerprint;
}

function hashSpec(spec: McpServerSpec): string {
  const sorted = (record: Record<string, string> | undefined): Array<[string, string]> =>
    Object.entries(record ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // Hashed so the pool keeps no second copy of the secrets in the spec.
  return createHash('sha256')
    .update(
      JSON.stringify([
        spec.name,
        spec.transport,
        spec.command ?? null,
        spec.args ?? [],
        sorted(spec.env),
        spec.cwd ?? null,
        spec.url ?? null,
        sorted(spec.headers),
      ]),
    )
    .digest('hex');
}

// Env and header values of a spec are treated as secrets wherever they could surface.
function redactorFor(spec: McpServerSpec): Redactor {
  const secrets = new Set<string>();
  const add = (value: string): void => {
    if (value.trim().length >= MIN_SECRET_LENGTH) secrets.add(value);
  };
  for (const value of Object.values(spec.env ?? {})) add(value);
  for (const value of Object.values(spec.headers ?? {})) {
    add(value);
    // "Bearer <token>": the token alone is the secret too.
    for (const part of value.split(/\s+/)) add(part);
  }
  return createRedactor([...secrets]);
}

function parseHttpUrl(spec: McpServerSpec, key: string): URL {
  if (spec.url === undefined || spec.url.trim() === '') {
    throw invalidSpecError(spec, key, 'it uses http but has no "url"');
  }
  let url: URL;
  try {
    url = new URL(spec.url);
  } catch (error) {
    throw invalidSpecError(spec, key, `its url "${redactUrl(spec.url)}" is not a valid URL`, error);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalidSpecError(
      spec,
      key,
      `its url must start with http:// or https://, got ${url.protocol}`,
    );
  }
  return url;
}

function describeTarget(conn: Connection): string {
  if (conn.kind === 'stdio') return `command "${conn.spec.command ?? ''}"`;
  return redactUrl(conn.spec.url ?? '');
}

function baseDetails(conn: Connection, phase: 'connect' | 'request'): Record<string, unknown> {
  return {
    server: conn.spec.name,
    key: conn.key,
    transport: conn.kind,
    phase,
    ...(conn.kind === 'stdio'
      ? { command: conn.spec.command }
      : { url: redactUrl(conn.spec.url ?? '') }),
  };
}

async function stderrDetails(
  conn: Connection,
): Promise<{ stderr?: string; stderrReason?: string }> {
  const stdio = conn.stdio;
  if (stdio === undefined) return {};
  await settlesWithin(stdio.stderrEnded, STDERR_SETTLE_MS);
  const tail = conn.redactor.text(stdio.stderrTail());
  const reason = stderrReason(tail);
  return tail.trim() === ''
    ? {}
    : { stderr: tail, ...(reason !== undefined ? { stderrReason: reason } : {}) };
}

// The original error, unless its text carries a secret; then a redacted copy.
function safeCause(error: unknown, redactor: Redactor): unknown {
  if (!(error instanceof Error)) return error;
  const message = redactor.text(error.message);
  if (message === error.message) return error;
  const copy = new Error(message);
  copy.name = error.name;
  return copy;
}

// The rejection of a failed handshake that settles within a moment, if any.
async function handshakeError(connecting: Promise<void>): Promise<unknown> {
  let failure: unknown;
  await settlesWithin(
    connecting.catch((error: unknown) => {
      failure = error;
    }),
    HANDSHAKE_SETTLE_MS,
  );
  return failure;
}

function isSessionLost(conn: Connection, error: unknown): boolean {
  return conn.kind !== 'stdio' && conn.closeReason === undefined && httpStatusOf(error) === 404;
}

// A signal that aborts when any of `signals` does, until disposed.
/** Builds errors that share one connection's details and one redacted cause. */
function errorMaker(
  redactor: Redactor,
  details: Record<string, unknown>,
  error: unknown,
): (code: AgentCoreErrorCode, message: string, extra?: Record<string, unknown>) => AgentCoreError {
  const cause = safeCause(error, redactor);
  return (code, message, extra = {}) =>
    new AgentCoreError(code, redactor.text(message), { ...details, ...extra }, { cause });
}

/** A controller whose signal any number of concurrent requests on one connection may watch. */
function unboundedController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}

function linkSignals(...signals: Array<AbortSignal | undefined>): {
  signal: AbortSignal;
  dispose(): void;
} {
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  const sources = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  for (const source of sources) {
    if (source.aborted) abort();
    else source.addEventListener('abort', abort, { once: true });
  }
  return {
    signal: controller.signal,
    dispose: () => {
      for (const source of sources) source.removeEventListener('abort', abort);
    },
  };
}

// Resolves with `promise`, or rejects with `onAbort()` as soon as `signal` aborts.
async function untilAborted<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  onAbort: () => Error,
): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) throw onAbort();
  let listener: (() => void) | undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    listener = () => reject(onAbort());
    signal.addEventListener('abort', listener, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    if (listener !== undefined) signal.removeEventListener('abort', listener);
  }
}

function poolClosedError(spec: McpServerSpec, key: string): AgentCoreError {
  return new AgentCoreError(
    'MCP_POOL_CLOSED',
    `The MCP client pool is closed; MCP server "${spec.name}" can no longer be used`,
    { server: spec.name, key },
  );
}

function connectCancelledError(spec: McpServerSpec, key: string): AgentCoreError {
  return new AgentCoreError(
    'MCP_CONNECT_FAILED',
    `Connecting to MCP server "${spec.name}" was cancelled because its connection was closed`,
    { server: spec.name, key, phase: 'connect', cancelled: true },
  );
}

function cancelledError(
  spec: McpServerSpec,
  key: string,
  action: string,
  reason: unknown,
): AgentCoreError {
  return new AgentCoreError(
    'MCP_REQUEST_FAILED',
    `${action[0]?.toUpperCase() ?? ''}${action.slice(1)} on MCP server "${spec.name}" was cancelled`,
    { server: spec.name, key, phase: 'request', action, cancelled: true },
    { cause: reason },
  );
}

function invalidSpecError(
  spec: McpServerSpec,
  key: string,
  problem: string,
  cause?: unknown,
): AgentCoreError {
  return new AgentCoreError(
    'MCP_CONNECT_FAILED',
    `MCP server "${spec.name}" cannot be started: ${problem}. Fix its template and sync again.`,
    { server: spec.name, key, phase: 'connect', transport: spec.transport },
    { cause },
  );
}
