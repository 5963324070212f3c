// OAuth on MCP over HTTP (spec §5.4): the platform is the authorization server, this server the
// protected resource. Clients discover the platform from the RFC 9728 metadata named in every
// 401, sign in there (PKCE, S256) and send `Authorization: Bearer <access token>`; each token is
// checked by RFC 7662 introspection. The token goes no further than the introspection call:
// not to the McpServer, tool servers, logs, audit rows or error texts.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AuditOutcome } from '@junction/store';
import type { Logger } from '@junction/telemetry';
import type { Auditor } from './audit.js';
import {
  createTokenIntrospector,
  tokenKey,
  type TokenClaims,
  type TokenIntrospector,
  type TokenVerdict,
} from './token-introspection.js';

/** OAuth for MCP over HTTP; the values come from config `management.oauth` and `management.base_url`. */
export interface McpOAuthOptions {
  /** The authorization server clients sign in with: the platform's base URL (`management.base_url`). */
  issuer: string;
  /** The platform's authorization endpoint (`management.oauth.auth_url`). */
  authUrl: string;
  /** The platform's token endpoint (`management.oauth.token_url`). */
  tokenUrl: string;
  /** Where tokens are introspected, RFC 7662 (`management.oauth.introspect_url`). */
  introspectUrl: string;
  /** The OAuth application's id (`management.oauth.client_id`); sent with every introspection. */
  clientId: string;
  /** Scopes a token must hold, all of them (`management.oauth.scopes`); none when empty. */
  scopes: string[];
  /**
   * The audience a token must name when its introspection answer names any (`aud`). Default
   * `clientId`; no check when both are empty. This server's own resource URL (`<base>/mcp`) is
   * accepted too, as tokens bound with an RFC 8707 resource indicator name it.
   */
  audience?: string;
  /**
   * The URL clients reach this server at, when it is not `http://<Host header>` (behind a
   * TLS-terminating proxy, say `https://mcp.example.com`). Names the resource and its metadata.
   */
  publicBaseUrl?: string;
  /** Longest wait for an introspection answer; default 10 s (then 503). */
  introspectTimeoutMs?: number;
  /** How long a definite introspection answer is reused, never past the token's `exp`; default 5 min. */
  cacheTtlMs?: number;
  /** The fetch the introspection call uses; default the global one. */
  fetch?: typeof fetch;
  /** Milliseconds since the epoch; default Date.now. */
  now?: () => number;
}

/** Why a request was refused. */
type RefusalCode =
  | 'OAUTH_TOKEN_MISSING'
  | 'OAUTH_API_KEY_REFUSED'
  | 'OAUTH_TOKEN_INACTIVE'
  | 'OAUTH_TOKEN_EXPIRED'
  | 'OAUTH_AUDIENCE_MISMATCH'
  | 'OAUTH_SCOPE_INSUFFICIENT'
  | 'OAUTH_INTROSPECTION_FAILED'
  | 'OAUTH_INTROSPECTION_MALFORMED';

interface RefusalKind {
  status: 401 | 403 | 503;
  /** The OAuth error code of the body and of the challenge's `error`. */
  error: string;
  /** Whether the challenge carries `error="…"` (not for a request that sent no token, RFC 6750 §3.1). */
  challengeError: boolean;
  /** How the refusal is audited; undefined: not audited. */
  outcome?: AuditOutcome;
}

/** The one table from refusal to status, body, challenge and audit outcome. */
const REFUSALS: Record<RefusalCode, RefusalKind> = {
  // Every OAuth client's first request: the discovery handshake, not an authentication attempt.
  OAUTH_TOKEN_MISSING: { status: 401, error: 'authentication_required', challengeError: false },
  OAUTH_API_KEY_REFUSED: {
    status: 401,
    error: 'invalid_token',
    challengeError: true,
    outcome: 'denied',
  },
  OAUTH_TOKEN_INACTIVE: {
    status: 401,
    error: 'invalid_token',
    challengeError: true,
    outcome: 'denied',
  },
  OAUTH_TOKEN_EXPIRED: {
    status: 401,
    error: 'invalid_token',
    challengeError: true,
    outcome: 'denied',
  },
  OAUTH_AUDIENCE_MISMATCH: {
    status: 403,
    error: 'invalid_token',
    challengeError: true,
    outcome: 'denied',
  },
  OAUTH_SCOPE_INSUFFICIENT: {
    status: 403,
    error: 'insufficient_scope',
    challengeError: true,
    outcome: 'denied',
  },
  OAUTH_INTROSPECTION_FAILED: {
    status: 503,
    error: 'temporarily_unavailable',
    challengeError: false,
    outcome: 'error',
  },
  OAUTH_INTROSPECTION_MALFORMED: {
    status: 503,
    error: 'temporarily_unavailable',
    challengeError: false,
    outcome: 'error',
  },
};

/** Seconds a client is asked to wait after a 503. */
const RETRY_AFTER_SECONDS = 5;
const RESOURCE_NAME = 'Junction MCP server';
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';
export const AUTHORIZATION_SERVER_PATH = '/.well-known/oauth-authorization-server';
const SIGN_IN =
  'Sign in through the management platform with an MCP client that supports OAuth (it follows the resource_metadata link of WWW-Authenticate), then send "Authorization: Bearer <access token>".';

/** Who a request's token belongs to, once it is admitted. */
export interface OAuthPrincipal {
  /** Binds sessions: a session started by one user is not served to another. */
  key: string;
  /** For audit actors: `username`, else `sub`. */
  user?: string;
}

export interface OAuthGuard {
  /** `GET /.well-known/oauth-protected-resource[/mcp]`: RFC 9728 metadata; no token needed. */
  resourceMetadata: RequestHandler;
  /**
   * `GET /.well-known/oauth-authorization-server`: the platform's endpoints for clients of the
   * 2025-03-26 MCP revision, which look for them at the MCP server's own origin.
   */
  serverMetadata: RequestHandler;
  /** Admits a request with a valid token; answers every other one (the metadata routes come first). */
  authenticate: RequestHandler;
  /** The principal of an admitted request. */
  principalOf(req: Request): OAuthPrincipal | undefined;
}

export interface OAuthGuardInput {
  options: McpOAuthOptions;
  auditor: Auditor;
  logger: Logger;
  /** `api.keys`: with OAuth on they open nothing, and a bearer that is one is never sent out. */
  isApiKey?: (value: string) => boolean;
  /** True for the requests that need no token (the reachability GET). */
  isOpen: (req: Request) => boolean;
}

/** The bearer token of an Authorization header, or undefined when there is none. */
function bearerOf(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header.trim());
  return match?.[1];
}

/** A quoted-string of a challenge parameter (RFC 9110 §5.6.4). */
function quoted(value: string): string {
  return `"${value.replace(/[\\"]/g, '\\$&')}"`;
}

/** Refuses, at start, an endpoint that is not an absolute http(s) URL. */
function checkUrl(name: keyof McpOAuthOptions, value: string | undefined): void {
  let protocol: string | undefined;
  try {
    protocol = new URL(value ?? '').protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new TypeError(
      `oauth.${name} must be an absolute http(s) URL; got ${JSON.stringify(value ?? '')}. Check management.base_url and management.oauth.`,
    );
  }
}

/** What a refusal's WWW-Authenticate challenge adds to its `error`. */
interface Challenge {
  description?: string;
  scope?: string;
}

/** What an audit row adds to the token's claims. */
interface AuditExtra {
  durationMs?: number;
  error?: string;
  details?: Record<string, unknown>;
}

/** A refusal of a token the platform vouched for, with what its audit row adds. */
interface ClaimsRefusal {
  code: 'OAUTH_AUDIENCE_MISMATCH' | 'OAUTH_SCOPE_INSUFFICIENT';
  message: string;
  challenge: Challenge;
  details: Record<string, unknown>;
}

type FailedVerdict = Extract<TokenVerdict, { status: 'failed' }>;
type InactiveVerdict = Extract<TokenVerdict, { status: 'inactive' }>;

/** Refuses, at start, any endpoint of `options` that is not an absolute http(s) URL. */
function checkEndpoints(options: McpOAuthOptions): void {
  for (const name of ['issuer', 'authUrl', 'tokenUrl', 'introspectUrl'] as const) {
    checkUrl(name, options[name]);
  }
  if (options.publicBaseUrl !== undefined) checkUrl('publicBaseUrl', options.publicBaseUrl);
}

/**
 * Checks bearer tokens for the guard: refuses each request it cannot admit with the REFUSALS
 * table's answer (and audit row), admits the others with their principal.
 */
class TokenGate {
  /** Scopes a token must hold: trimmed, blanks dropped, each once. */
  readonly required: string[];
  private readonly input: OAuthGuardInput;
  private readonly introspector: TokenIntrospector;
  /** The audience a token must name when it names any; '' for no check. */
  private readonly audience: string;
  private readonly publicBase: string | undefined;
  private readonly principals = new WeakMap<Request, OAuthPrincipal>();

  constructor(input: OAuthGuardInput) {
    const { options } = input;
    this.input = input;
    this.introspector = createTokenIntrospector({
      introspectUrl: options.introspectUrl,
      clientId: options.clientId,
      ...(options.introspectTimeoutMs !== undefined
        ? { timeoutMs: options.introspectTimeoutMs }
        : {}),
      ...(options.cacheTtlMs !== undefined ? { cacheTtlMs: options.cacheTtlMs } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.now ? { now: options.now } : {}),
    });
    this.required = [...new Set(options.scopes.map((s) => s.trim()).filter((s) => s !== ''))];
    this.audience = options.audience?.trim() || options.clientId.trim();
    this.publicBase = options.publicBaseUrl?.replace(/\/+$/, '');
  }

  /** Where clients reach this server. */
  baseOf(req: Request): string {
    // The Host header was checked against the allow-list before any of this runs.
    return this.publicBase ?? `http://${req.headers.host ?? ''}`;
  }

  principalOf(req: Request): OAuthPrincipal | undefined {
    return this.principals.get(req);
  }

  async authenticate(req: Request, res: Response, next: NextFunction): Promise<void> {
    // Every path, not only /mcp: express also routes /mcp/ to /mcp, and a path check here
    // would have to know every such spelling. Unknown paths answer 404 once admitted.
    if (this.input.isOpen(req)) {
      next();
      return;
    }
    const token = bearerOf(req.headers.authorization);
    if (token === undefined) {
      this.refuse(
        req,
        res,
        'OAUTH_TOKEN_MISSING',
        `Authentication required: this MCP server accepts OAuth access tokens from the management platform. ${SIGN_IN} If sign-in keeps failing, check management.oauth (enabled, client_id) and that your user belongs to the organization.`,
      );
      return;
    }
    await this.admitOrRefuse(req, res, next, token);
  }

  private async admitOrRefuse(
    req: Request,
    res: Response,
    next: NextFunction,
    token: string,
  ): Promise<void> {
    if (this.input.isApiKey?.(token)) {
      this.refuseApiKey(req, res);
      return;
    }
    const check = await this.introspector.check(token);
    const { verdict } = check;
    const timing = check.durationMs !== undefined ? { durationMs: check.durationMs } : {};
    if (verdict.status === 'failed') {
      this.refuseUnchecked(req, res, verdict, timing);
      return;
    }
    if (verdict.status === 'inactive') {
      this.refuseInactive(req, res, verdict, timing);
      return;
    }
    const { claims } = verdict;
    const refusal = this.audienceRefusal(req, claims) ?? this.scopeRefusal(claims);
    if (refusal) {
      this.audit(req, refusal.code, claims, { ...timing, details: refusal.details });
      this.refuse(req, res, refusal.code, refusal.message, refusal.challenge);
      return;
    }
    // One row per token the platform vouched for, not one per request answered from the cache.
    if (check.introspected) this.audit(req, undefined, claims, timing);
    const user = claims.username ?? claims.subject;
    const who = claims.subject ?? claims.username;
    this.principals.set(req, {
      key: who !== undefined ? `${claims.clientId ?? ''}\n${who}` : `token\n${tokenKey(token)}`,
      ...(user !== undefined ? { user } : {}),
    });
    next();
  }

  private refuseApiKey(req: Request, res: Response): void {
    // Never introspected: that would hand one of this server's keys to the platform.
    this.audit(req, 'OAUTH_API_KEY_REFUSED', undefined);
    this.refuse(
      req,
      res,
      'OAUTH_API_KEY_REFUSED',
      `Unauthorized: API keys do not open /mcp while management.oauth is enabled. ${SIGN_IN}`,
      { description: 'API keys are not accepted here; use an OAuth access token' },
    );
  }

  /** Refuses a token the platform could not be asked about, or answered unreadably: 503. */
  private refuseUnchecked(
    req: Request,
    res: Response,
    verdict: FailedVerdict,
    timing: AuditExtra,
  ): void {
    const code =
      verdict.reason === 'malformed'
        ? 'OAUTH_INTROSPECTION_MALFORMED'
        : 'OAUTH_INTROSPECTION_FAILED';
    this.input.logger.warn('MCP OAuth: a token could not be checked', {
      reason: code,
      detail: verdict.detail,
    });
    this.audit(req, code, undefined, { ...timing, error: verdict.detail });
    this.refuse(
      req,
      res,
      code,
      `Service Unavailable: the access token could not be checked, because ${verdict.detail}. Nobody is let in until the platform answers; try again shortly, and if this persists check management.oauth.introspect_url.`,
    );
  }

  private refuseInactive(
    req: Request,
    res: Response,
    verdict: InactiveVerdict,
    timing: AuditExtra,
  ): void {
    const code = verdict.reason === 'expired' ? 'OAUTH_TOKEN_EXPIRED' : 'OAUTH_TOKEN_INACTIVE';
    this.audit(req, code, verdict.claims, timing);
    this.refuse(
      req,
      res,
      code,
      `Unauthorized: the access token is ${verdict.reason === 'expired' ? 'expired' : 'not active (expired, revoked or unknown to the platform)'}. ${SIGN_IN} If sign-in keeps failing, check management.oauth (enabled, client_id) and that your user belongs to the organization.`,
      {
        description:
          verdict.reason === 'expired'
            ? 'The access token expired'
            : 'The access token is not active',
      },
    );
  }

  /** A token naming audiences must name this server's: its audience or its resource URL. */
  private audienceRefusal(req: Request, claims: TokenClaims): ClaimsRefusal | undefined {
    const { audience } = this;
    const resource = `${this.baseOf(req)}/mcp`;
    if (
      audience === '' ||
      claims.audiences.length === 0 ||
      claims.audiences.includes(audience) ||
      claims.audiences.includes(resource)
    ) {
      return undefined;
    }
    return {
      code: 'OAUTH_AUDIENCE_MISMATCH',
      message: `Forbidden: the access token was issued for another audience, not for this server (${JSON.stringify(audience)}). Sign in again through this server's OAuth application (management.oauth.client_id).`,
      challenge: { description: 'The access token was issued for another audience' },
      details: { audience: claims.audiences },
    };
  }

  /** A token must hold every required scope. */
  private scopeRefusal(claims: TokenClaims): ClaimsRefusal | undefined {
    const { required } = this;
    const held = new Set(claims.scopes);
    const missing = required.filter((scope) => !held.has(scope));
    if (missing.length === 0) return undefined;
    return {
      code: 'OAUTH_SCOPE_INSUFFICIENT',
      message: `Forbidden: the access token lacks the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')}. Sign in again and grant ${required.join(' ')}.`,
      challenge: { scope: required.join(' ') },
      details: { missing_scopes: missing },
    };
  }

  /** Records an authentication: success when `code` is undefined, else the refusal's outcome. */
  private audit(
    req: Request,
    code: RefusalCode | undefined,
    claims: TokenClaims | undefined,
    extra: AuditExtra = {},
  ): void {
    const outcome = code === undefined ? 'success' : REFUSALS[code].outcome;
    if (outcome === undefined) return;
    // Not awaited: the row joins the next group insert; record() never throws.
    void this.input.auditor.record(
      {
        action: 'oauth.authenticate',
        arguments: {},
        outcome,
        durationMs: extra.durationMs ?? 0,
        details: {
          ...(code !== undefined ? { reason: code } : {}),
          client_id: claims?.clientId ?? null,
          scopes: claims?.scopes ?? [],
          ...(claims?.subject !== undefined ? { subject: claims.subject } : {}),
          ...(req.socket.remoteAddress ? { remote_address: req.socket.remoteAddress } : {}),
          ...extra.details,
        },
        ...(extra.error !== undefined ? { error: extra.error } : {}),
      },
      claims?.username ?? claims?.subject ?? null,
    );
  }

  /** Answers with the REFUSALS table's status and body, and its challenge or Retry-After. */
  private refuse(
    req: Request,
    res: Response,
    code: RefusalCode,
    message: string,
    challenge: Challenge = {},
  ): void {
    const kind = REFUSALS[code];
    if (kind.status === 503) {
      res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
    } else {
      const metadataUrl = `${this.baseOf(req)}${PROTECTED_RESOURCE_PATH}`;
      const params = [`resource_metadata=${quoted(metadataUrl)}`];
      if (kind.challengeError) params.push(`error=${quoted(kind.error)}`);
      if (challenge.description) params.push(`error_description=${quoted(challenge.description)}`);
      if (challenge.scope) params.push(`scope=${quoted(challenge.scope)}`);
      res.setHeader('WWW-Authenticate', `Bearer ${params.join(', ')}`);
    }
    res.status(kind.status).json({ error: kind.error, message });
  }
}

/** Builds the OAuth guard of the MCP HTTP handler. */
export function createOAuthGuard(input: OAuthGuardInput): OAuthGuard {
  const { options } = input;
  checkEndpoints(options);
  const gate = new TokenGate(input);
  const { required } = gate;
  return {
    resourceMetadata(req, res): void {
      res.json({
        resource: `${gate.baseOf(req)}/mcp`,
        authorization_servers: [options.issuer],
        bearer_methods_supported: ['header'],
        ...(required.length > 0 ? { scopes_supported: required } : {}),
        resource_name: RESOURCE_NAME,
      });
    },
    serverMetadata(_req, res): void {
      res.json({
        issuer: options.issuer,
        authorization_endpoint: options.authUrl,
        token_endpoint: options.tokenUrl,
        introspection_endpoint: options.introspectUrl,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        ...(required.length > 0 ? { scopes_supported: required } : {}),
      });
    },
    authenticate: (req, res, next) => gate.authenticate(req, res, next),
    principalOf: (req) => gate.principalOf(req),
  };
}
