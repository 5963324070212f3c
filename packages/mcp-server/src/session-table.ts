// The live sessions of MCP over HTTP: one transport + McpServer per initialize, kept until the
// client deletes it, it idles past its limit, or the table closes. It answers no HTTP itself:
// the handler decides what an unknown session gets.
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Logger } from '@junction/telemetry';
import type { McpServerDeps } from './deps.js';
import { buildMcpServer } from './mcp-server.js';
import type { OAuthPrincipal } from './oauth-guard.js';
import { guardToolCalls } from './request-guard.js';

export interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  closed: boolean;
  /** When its last request ended (or began, while one is open). */
  lastSeen: number;
  /** Requests and streams of this session still open. */
  open: number;
  /** With OAuth: whose session it is; another user's token never reaches it. */
  principal?: string;
}

export interface SessionTableInput {
  /** What each session's McpServer is built from. */
  deps: Omit<McpServerDeps, 'transport'>;
  logger: Logger;
  /** A session with no request and no open stream for this long is closed. */
  idleMs: number;
}

/** The session table of the MCP HTTP handler; sweeps idle sessions until closed. */
export class SessionTable {
  private readonly sessions = new Map<string, Session>();
  private readonly sweep: ReturnType<typeof setInterval>;
  private readonly input: SessionTableInput;

  constructor(input: SessionTableInput) {
    this.input = input;
    this.sweep = setInterval(
      () => this.closeIdle(),
      Math.max(10, Math.min(input.idleMs / 4, 60_000)),
    );
    this.sweep.unref();
  }

  /** Live sessions. */
  get size(): number {
    return this.sessions.size;
  }

  /** The live session `id` names, if it is `principal`'s (undefined without OAuth). */
  find(id: string | undefined, principal: string | undefined): Session | undefined {
    const session = id ? this.sessions.get(id) : undefined;
    // Another user's session is answered as unknown: its id is not confirmed to exist.
    if (!session || session.closed || session.principal !== principal) return undefined;
    return session;
  }

  /** Hands a request to its session, which counts as in use until the response ends. */
  async serve(session: Session, req: Request, res: Response, body?: unknown): Promise<void> {
    session.open += 1;
    session.lastSeen = Date.now();
    res.once('close', () => {
      session.open -= 1;
      session.lastSeen = Date.now();
    });
    await session.transport.handleRequest(req, res, body);
  }

  /** Starts a session with an initialize request, for `principal` when OAuth admitted one. */
  async start(req: Request, res: Response, principal: OAuthPrincipal | undefined): Promise<void> {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        this.sessions.set(id, session);
      },
    });
    const server = buildMcpServer(
      { ...this.input.deps, transport: 'http' },
      {
        ...(req.socket.remoteAddress ? { remoteAddress: req.socket.remoteAddress } : {}),
        ...(principal?.user !== undefined ? { user: principal.user } : {}),
      },
    );
    const session: Session = {
      transport,
      server,
      closed: false,
      lastSeen: Date.now(),
      open: 0,
      ...(principal ? { principal: principal.key } : {}),
    };
    transport.onclose = () => {
      void this.closeSession(session);
    };
    await server.connect(transport);
    guardToolCalls(transport);
    await this.serve(session, req, res, req.body);
    // A refused initialize (bad protocol version, wrong Accept) never becomes a session.
    if (!transport.sessionId || !this.sessions.has(transport.sessionId)) {
      await this.closeSession(session);
    }
  }

  /** Stops the sweep and closes every session transport and server. */
  async close(): Promise<void> {
    clearInterval(this.sweep);
    await Promise.all([...this.sessions.values()].map((s) => this.closeSession(s)));
  }

  private closeIdle(): void {
    const now = Date.now();
    for (const session of this.sessions.values()) {
      if (session.open === 0 && now - session.lastSeen >= this.input.idleMs) {
        this.input.logger.info('closing an idle MCP session', {
          session: session.transport.sessionId,
          idle_ms: now - session.lastSeen,
        });
        void this.closeSession(session);
      }
    }
  }

  private async closeSession(session: Session): Promise<void> {
    if (session.closed) return;
    session.closed = true;
    const id = session.transport.sessionId;
    if (id) this.sessions.delete(id);
    // Closing the server closes its transport (and any open SSE stream).
    await session.server.close().catch((err: unknown) => {
      this.input.logger.warn('closing an MCP session failed', {
        session: id,
        error: err instanceof Error ? err.message : String(err),
      });
    });
  }
}
