// MCP over Streamable HTTP: one session (transport + McpServer) per initialize, kept until
// the client deletes it or the handler closes (the sessions live in session-table.ts). This
// builds an express app; it never listens.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import express, {
  type ErrorRequestHandler,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import { ErrorCode, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { bodyReadFailure, type BodyReadFailure } from '@junction/config-templates';
import { httpStatus, isJunctionError } from '@junction/errors';
import type { Logger } from '@junction/telemetry';
import { createAuditor } from './audit.js';
import type { McpServerDeps } from './deps.js';
import {
  AUTHORIZATION_SERVER_PATH,
  createOAuthGuard,
  PROTECTED_RESOURCE_PATH,
  type McpOAuthOptions,
  type OAuthGuard,
  type OAuthPrincipal,
} from './oauth-guard.js';
import { SessionTable, type Session } from './session-table.js';

/** Default largest request body: 1 MiB. */
const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** JSON-RPC code the SDK uses for an unknown session. */
const SESSION_NOT_FOUND = -32001;
/** Generic server error code for HTTP-level refusals (JSON-RPC reserves -32000..-32099). */
const SERVER_ERROR = -32000;
const SESSION_HEADER = 'mcp-session-id';
/** Longest header value echoed back in a refusal. */
const MAX_ECHO = 100;
/** Default: a session with no request and no open stream for 30 minutes is closed. */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60 * 1000;

/** What MCP over HTTP needs of its keys: whether one is needed, the key presented, a constant-time match. */
export interface McpKeyRing {
  readonly required: boolean;
  presented(headers: IncomingHttpHeaders): string | undefined;
  matches(key: string): boolean;
}

export interface McpHttpOptions {
  deps: Omit<McpServerDeps, 'transport'>;
  /** Host header values accepted (DNS-rebinding protection). Default: 127.0.0.1:<port>, localhost:<port>, [::1]:<port> given `port`. */
  allowedHosts?: string[];
  /** Origin values accepted when an Origin header is present. Default: http://127.0.0.1:<port>, http://localhost:<port>, http://[::1]:<port>. */
  allowedOrigins?: string[];
  port: number;
  /** Largest request body; default 1 MiB → 413 with a JSON-RPC error body. */
  maxBodyBytes?: number;
  /**
   * The keys (config `api.keys`, held by service-kit's `keyRing`): when any is set, every MCP
   * request but the reachability GET needs `Authorization: Bearer <key>` (or `X-API-Key`);
   * 401 otherwise. With `oauth` set the keys open nothing here (see `oauth`).
   */
  keys?: McpKeyRing;
  /**
   * OAuth (config `management.oauth`): every MCP request but the reachability GET needs
   * `Authorization: Bearer <access token>` of the platform, checked by introspection. It
   * replaces the key check on /mcp: the bearer token is an OAuth token, an API key is refused
   * (and never sent to the platform), as the spec lets in only the organization's signed-in
   * users. Serves the RFC 9728 metadata at `/.well-known/oauth-protected-resource`.
   */
  oauth?: McpOAuthOptions;
  /**
   * A session with no request and no open stream for this long is closed (its server and
   * transport freed); its next request is answered 404 and the client starts a new one.
   * Default 30 minutes.
   */
  sessionIdleMs?: number;
  /** The rate limit (service-kit's), after the Host check and before credentials; its refusal is a JSON-RPC error with its status. */
  limit?: express.RequestHandler;
}

export interface McpHttpHandler {
  /** express app serving POST/GET/DELETE /mcp; mount it or listen on it. */
  app: express.Express;
  /** Live sessions. */
  sessions(): number;
  /** Closes every session transport and server. */
  close(): Promise<void>;
}

/** Answers with a JSON-RPC error object and an HTTP status. */
function rpcError(
  res: Response,
  status: number,
  code: number,
  message: string,
  id: unknown = null,
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res
    .status(status)
    .json({ jsonrpc: '2.0', error: { code, message }, id: isJsonRpcId(id) ? id : null });
}

function isJsonRpcId(id: unknown): id is string | number {
  return typeof id === 'string' || typeof id === 'number';
}

function echo(value: string): string {
  return JSON.stringify(value.length > MAX_ECHO ? `${value.slice(0, MAX_ECHO)}…` : value);
}

function lower(values: readonly string[]): Set<string> {
  return new Set(values.map((v) => v.toLowerCase()));
}

function sessionIdOf(req: IncomingMessage): string | undefined {
  const value = req.headers[SESSION_HEADER];
  return Array.isArray(value) ? value[0] : value;
}

/** An error express's body parser raised, with the fields it sets. */
/** Answers a body that could not be read (too large, not JSON, not UTF-8, not decodable). */
function bodyRefusal(res: Response, failure: BodyReadFailure, maxBodyBytes: number): void {
  switch (failure.kind) {
    case 'too_large':
      rpcError(
        res,
        413,
        SERVER_ERROR,
        `Payload Too Large: the request body exceeds ${maxBodyBytes} bytes.`,
      );
      return;
    case 'not_json':
      rpcError(res, 400, ErrorCode.ParseError, 'Parse error: the request body is not valid JSON.');
      return;
    case 'unsupported':
      rpcError(res, 415, SERVER_ERROR, `Unsupported Media Type. ${failure.message}`);
      return;
    case 'undecodable':
    case 'incomplete':
    case 'unreadable':
      rpcError(res, 400, SERVER_ERROR, `Bad Request. ${failure.message}`);
  }
}

/** The reachability GET: no session, no event stream; open whatever the credentials. */
function isReachability(req: Request): boolean {
  return (
    req.method === 'GET' &&
    sessionIdOf(req) === undefined &&
    !String(req.headers.accept ?? '').includes('text/event-stream')
  );
}

/** Refuses a foreign Host, or a foreign Origin when one is sent (DNS-rebinding protection). */
function hostCheck(allowedHosts: Set<string>, allowedOrigins: Set<string>): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const host = req.headers.host;
    if (!host || !allowedHosts.has(host.toLowerCase())) {
      rpcError(
        res,
        403,
        SERVER_ERROR,
        host
          ? `Forbidden: Host header ${echo(host)} is not allowed.`
          : 'Forbidden: the Host header is missing.',
      );
      return;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins.has(origin.toLowerCase())) {
      rpcError(res, 403, SERVER_ERROR, `Forbidden: Origin header ${echo(origin)} is not allowed.`);
      return;
    }
    next();
  };
}

/** Admits a request with one of `keys` (or the reachability GET); answers 401 otherwise. */
function keyCheck(keys: McpKeyRing): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (isReachability(req)) {
      next();
      return;
    }
    const given = keys.presented(req.headers);
    if (given === undefined || given === '') {
      res.setHeader('WWW-Authenticate', 'Bearer realm="junction-mcp"');
      rpcError(
        res,
        401,
        SERVER_ERROR,
        'Unauthorized: send "Authorization: Bearer <key>" with a key from api.keys.',
      );
      return;
    }
    if (!keys.matches(given)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="junction-mcp", error="invalid_token"');
      rpcError(res, 401, SERVER_ERROR, 'Unauthorized: the key is not one of api.keys.');
      return;
    }
    next();
  };
}

/** What the credential check is built from. */
interface CredentialsInput {
  deps: Omit<McpServerDeps, 'transport'>;
  logger: Logger;
  keys?: McpKeyRing;
  oauth?: McpOAuthOptions;
}

/**
 * Mounts the credential check: OAuth (with its metadata routes) when configured, else the keys
 * when any is required. Returns the OAuth guard, which knows whose each admitted request is.
 */
function mountCredentials(app: express.Express, input: CredentialsInput): OAuthGuard | undefined {
  const { deps, logger, keys } = input;
  const oauth = input.oauth
    ? createOAuthGuard({
        options: input.oauth,
        // OAuth rows go through the same redacting auditor as tool calls.
        auditor: createAuditor({
          store: deps.store,
          logger,
          transport: 'http',
          processEnv: deps.processEnv ?? process.env,
        }),
        logger,
        ...(keys?.required ? { isApiKey: (value: string) => keys.matches(value) } : {}),
        isOpen: isReachability,
      })
    : undefined;
  if (oauth) {
    app.get([PROTECTED_RESOURCE_PATH, `${PROTECTED_RESOURCE_PATH}/mcp`], oauth.resourceMetadata);
    app.get(AUTHORIZATION_SERVER_PATH, oauth.serverMetadata);
    app.use(oauth.authenticate);
  } else if (keys?.required) {
    app.use(keyCheck(keys));
  }
  return oauth;
}

function requireJson(req: Request, res: Response, next: NextFunction): void {
  if (!req.is('application/json')) {
    const type = req.headers['content-type'];
    rpcError(
      res,
      415,
      SERVER_ERROR,
      `Unsupported Media Type: send the JSON-RPC message with Content-Type: application/json${type ? ` (got ${echo(type)})` : ''}.`,
    );
    return;
  }
  next();
}

/** What the /mcp routes work with. */
interface McpRoutesContext {
  sessions: SessionTable;
  /** Whose an admitted request is, with OAuth; undefined without. */
  principalOf: (req: Request) => OAuthPrincipal | undefined;
  maxBodyBytes: number;
  /** Reported by the reachability GET. */
  version: string;
}

/** The session a request names, or undefined after answering 404. */
function sessionFor(ctx: McpRoutesContext, req: Request, res: Response): Session | undefined {
  const session = ctx.sessions.find(sessionIdOf(req), ctx.principalOf(req)?.key);
  if (!session) {
    rpcError(res, 404, SESSION_NOT_FOUND, 'Session not found', (req.body as { id?: unknown })?.id);
    return undefined;
  }
  return session;
}

/** Mounts POST, GET and DELETE /mcp, and 405 for every other method there. */
function mountMcpRoutes(app: express.Express, ctx: McpRoutesContext): void {
  const { sessions } = ctx;
  app.post('/mcp', requireJson, express.json({ limit: ctx.maxBodyBytes }), async (req, res) => {
    if (sessionIdOf(req) !== undefined) {
      const session = sessionFor(ctx, req, res);
      if (session) await sessions.serve(session, req, res, req.body);
      return;
    }
    if (!isInitializeRequest(req.body)) {
      rpcError(
        res,
        400,
        SERVER_ERROR,
        `Bad Request: no ${SESSION_HEADER} header. Start a session with an initialize request, then send its ${SESSION_HEADER} with every request.`,
        (req.body as { id?: unknown } | undefined)?.id,
      );
      return;
    }
    await sessions.start(req, res, ctx.principalOf(req));
  });

  app.get('/mcp', async (req, res) => {
    if (sessionIdOf(req) === undefined) {
      answerSessionlessGet(req, res, ctx.version);
      return;
    }
    const session = sessionFor(ctx, req, res);
    if (session) await sessions.serve(session, req, res);
  });

  app.delete('/mcp', async (req, res) => {
    if (sessionIdOf(req) === undefined) {
      rpcError(res, 400, SERVER_ERROR, `Bad Request: DELETE needs the ${SESSION_HEADER} header.`);
      return;
    }
    const session = sessionFor(ctx, req, res);
    if (session) await sessions.serve(session, req, res);
  });

  app.all('/mcp', (req, res) => {
    res.setHeader('Allow', 'GET, POST, DELETE');
    rpcError(
      res,
      405,
      SERVER_ERROR,
      `Method Not Allowed: ${req.method} /mcp; use POST, GET or DELETE.`,
    );
  });
}

/** GET /mcp without a session: the reachability check, or 400 for an event stream. */
function answerSessionlessGet(req: Request, res: Response, version: string): void {
  if ((req.headers.accept ?? '').includes('text/event-stream')) {
    rpcError(
      res,
      400,
      SERVER_ERROR,
      `Bad Request: an event stream needs the ${SESSION_HEADER} header of an initialized session.`,
    );
    return;
  }
  // The reachability check: no session, no stream, just who answers here.
  res.json({
    name: 'junction',
    version,
    transport: 'streamable-http',
    endpoint: '/mcp',
  });
}

function notFound(req: Request, res: Response): void {
  res.status(404).json({
    error: 'not_found',
    message: `Nothing is served at ${req.method} ${req.path}; the MCP endpoint is /mcp.`,
  });
}

/** Turns every error into a JSON-RPC error, never express's HTML page. */
function errorAnswer(logger: Logger, maxBodyBytes: number): ErrorRequestHandler {
  return (err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    // A body that could not be read: config-templates' one rule, in JSON-RPC's words.
    const failure = bodyReadFailure(err);
    if (failure) {
      bodyRefusal(res, failure, maxBodyBytes);
      return;
    }
    // The rate limit's refusal, raised before the MCP server: its status, its words. Any other
    // error (a store that cannot answer, …) stays the generic 500 below, its message in the log.
    if (isJunctionError(err) && err.code === 'RATE_LIMITED') {
      rpcError(res, httpStatus(err.code, err.kind), SERVER_ERROR, err.message);
      return;
    }
    const status = (err as { status?: unknown } | null)?.status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      rpcError(res, status, SERVER_ERROR, 'Bad Request: the request could not be read.');
      return;
    }
    logger.error('MCP HTTP request failed', {
      error: err instanceof Error ? err.message : String(err),
    });
    rpcError(
      res,
      500,
      ErrorCode.InternalError,
      'Internal error: the request could not be handled.',
    );
  };
}

/** Builds the MCP HTTP handler: an express app with its session table. */
export function createMcpHttpHandler(options: McpHttpOptions): McpHttpHandler {
  const { port, deps } = options;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const allowedHosts = lower(
    options.allowedHosts ?? [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`],
  );
  const allowedOrigins = lower(
    options.allowedOrigins ?? [
      `http://127.0.0.1:${port}`,
      `http://localhost:${port}`,
      `http://[::1]:${port}`,
    ],
  );
  const logger = deps.logger.child({ component: 'mcp-http' });
  const idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  if (!Number.isFinite(idleMs) || idleMs <= 0) {
    throw new RangeError(`sessionIdleMs must be a positive number of milliseconds; got ${idleMs}.`);
  }

  const app = express();
  app.disable('x-powered-by');
  // The endpoint is /mcp exactly; /MCP and /Mcp are other paths (404), as the docs say.
  app.set('case sensitive routing', true);

  // DNS-rebinding protection comes first: nothing else runs for a foreign Host or Origin.
  app.use(hostCheck(allowedHosts, allowedOrigins));

  // Before credentials, so guessing keys or tokens is limited too.
  if (options.limit) app.use(options.limit);

  // Credentials next: the Host check is no access control (a client picks its Host header).
  const oauth = mountCredentials(app, { deps, logger, keys: options.keys, oauth: options.oauth });

  const sessions = new SessionTable({ deps, logger, idleMs });
  mountMcpRoutes(app, {
    sessions,
    principalOf: (req) => oauth?.principalOf(req),
    maxBodyBytes,
    version: deps.version,
  });
  app.use(notFound);
  // Last: every error becomes JSON, never express's HTML page.
  app.use(errorAnswer(logger, maxBodyBytes));

  return {
    app,
    sessions: () => sessions.size,
    async close(): Promise<void> {
      await sessions.close();
    },
  };
}
