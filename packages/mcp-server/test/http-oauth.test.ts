// OAuth on MCP over HTTP against a real listener and a real (fake) authorization server: the
// discovery 401, the RFC 9728 metadata, every verdict of introspection, the cache, the audit
// rows, and a whole sign-in (authorization code + PKCE) driven by the MCP SDK's own client.
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  UnauthorizedError,
  type OAuthClientProvider,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type { AuditLogEntry } from '@junction/store';
import {
  startFakeAuthServer,
  type FakeAuthServer,
  type FakeTokenFields,
} from '@junction/tooling/fixtures/fake-auth-server.mjs';
import { keyRing } from '@junction/tooling/fixtures/key-ring.mjs';
import { createMcpHttpHandler, type McpHttpHandler } from '../src/index.js';
import { JUNCTION_TOOLS } from '../src/mcp-server.js';
import { call, createHarness, type Harness } from './harness.js';
import { eventually } from '@junction/tooling/fixtures/eventually.mjs';

const CLIENT_ID = 'junction-station-7';
const SCOPE = 'mcp:use';
const REDIRECT = 'http://127.0.0.1:1/oauth/callback';
const API_KEY_VALUE = 'mcp-api-key-5d1e0c9b77';
const TIMEOUT_MS = 1000;

let h: Harness;
let auth: FakeAuthServer;
let server: http.Server;
let handler: McpHttpHandler;
let port: number;
let base: string;
/** The handler's clock runs this far ahead of the real one. */
let clockOffsetMs = 0;
/** Every token a test sent: none may turn up in an audit row or a log line. */
const sentTokens: string[] = [];

beforeAll(async () => {
  h = await createHarness();
  auth = await startFakeAuthServer({ clientId: CLIENT_ID, redirectUris: [REDIRECT] });
  server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  const { transport: _stdio, ...deps } = h.deps;
  handler = createMcpHttpHandler({
    deps,
    port,
    keys: keyRing([API_KEY_VALUE]),
    oauth: {
      issuer: auth.url,
      authUrl: `${auth.url}/oauth/authorize/`,
      tokenUrl: `${auth.url}/oauth/token/`,
      introspectUrl: `${auth.url}/oauth/introspect/`,
      clientId: CLIENT_ID,
      scopes: [SCOPE],
      introspectTimeoutMs: TIMEOUT_MS,
      now: () => Date.now() + clockOffsetMs,
    },
  });
  server.on('request', handler.app);
});
afterAll(async () => {
  await handler?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await auth?.stop();
  await h?.close();
});
beforeEach(() => auth.reset());

const METADATA_URL = (): string => `${base}/.well-known/oauth-protected-resource`;

let tokenCount = 0;
/** A token the fake knows, for a user of its own (so its audit rows can be told apart). */
function token(fields: FakeTokenFields = {}): { token: string; user: string } {
  tokenCount += 1;
  const value = `tok-${tokenCount}-${randomUUID()}`;
  const user = `user-${tokenCount}`;
  auth.addToken(value, { scope: SCOPE, username: user, sub: `sub-${tokenCount}`, ...fields });
  return { token: value, user };
}

function initializeBody(): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'raw', version: '0' },
    },
  });
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/** An MCP request: initialize unless told otherwise, with `bearer` as the token. */
async function mcp(
  bearer: string | undefined,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  if (bearer !== undefined) sentTokens.push(bearer);
  const method = init.method ?? 'POST';
  const res = await fetch(`${base}/mcp`, {
    method,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(bearer !== undefined ? { authorization: `Bearer ${bearer}` } : {}),
      ...init.headers,
    },
    ...(method === 'POST' ? { body: init.body ?? initializeBody() } : {}),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

function bodyOf(answer: Answer): { error: string; message: string } {
  return JSON.parse(answer.text) as { error: string; message: string };
}

/** OAuth audit rows, newest first. */
async function oauthRows(): Promise<AuditLogEntry[]> {
  return h.store.auditLog.list({ source: 'mcp', action: 'oauth.authenticate', limit: 500 });
}

async function rowsOf(actor: string): Promise<AuditLogEntry[]> {
  return (await oauthRows()).filter((row) => row.actor === actor);
}

describe('without a token', () => {
  it('answers POST, GET and DELETE /mcp 401 with the discovery challenge and what to do', async () => {
    const answers = [
      await mcp(undefined),
      await mcp(undefined, { method: 'GET', headers: { accept: 'text/event-stream' } }),
      await mcp(undefined, { method: 'DELETE', headers: { 'mcp-session-id': 'abc' } }),
      await mcp(undefined, { headers: { authorization: 'Bearer ' } }),
      await mcp(undefined, { headers: { authorization: 'Basic dXNlcjpwYXNz' } }),
      await mcp(undefined, { headers: { 'x-api-key': API_KEY_VALUE } }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toBe(
        `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource"`,
      );
      expect(answer.headers.get('content-type')).toContain('application/json');
      const body = bodyOf(answer);
      expect(body.error).toBe('authentication_required');
      expect(body.message).toContain('Sign in through the management platform');
      expect(body.message).toContain('management.oauth');
    }
    expect(auth.introspections).toHaveLength(0);
  });

  it('serves the RFC 9728 metadata, also at the path-suffixed address, without a token', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const res = await fetch(`${base}${path}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        resource: `${base}/mcp`,
        authorization_servers: [auth.url],
        bearer_methods_supported: ['header'],
        scopes_supported: [SCOPE],
        resource_name: 'Junction MCP server',
      });
    }
  });

  it("serves the platform's endpoints to older clients that look for them here", async () => {
    const res = await fetch(`${base}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      issuer: auth.url,
      authorization_endpoint: `${auth.url}/oauth/authorize/`,
      token_endpoint: `${auth.url}/oauth/token/`,
      code_challenge_methods_supported: ['S256'],
    });
  });

  it('keeps the reachability GET open, as with API keys', async () => {
    const res = await fetch(`${base}/mcp`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ name: 'junction', endpoint: '/mcp' });
  });

  it('still checks the Host before anything else', async () => {
    const res = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path: '/.well-known/oauth-protected-resource',
          headers: { host: 'evil.example' },
        },
        (r) => {
          r.resume();
          resolve(r.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(res).toBe(403);
  });
});

describe('introspection', () => {
  it('admits an active token, and sends token, token_type_hint and client_id as a form', async () => {
    const { token: t } = token();
    const answer = await mcp(t);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('mcp-session-id')).toEqual(expect.any(String));
    expect(auth.introspections).toEqual([
      { token: t, token_type_hint: 'access_token', client_id: CLIENT_ID },
    ]);
  });

  it('refuses an inactive token with 401 invalid_token', async () => {
    const { token: t } = token({ active: false });
    const answer = await mcp(t);
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${METADATA_URL()}", error="invalid_token", error_description="The access token is not active"`,
    );
    expect(bodyOf(answer)).toMatchObject({ error: 'invalid_token' });
    expect(bodyOf(answer).message).toContain('not active');
    expect(answer.text).not.toContain(t);
  });

  it('refuses a token the platform does not know with 401', async () => {
    const answer = await mcp(`unknown-${randomUUID()}`);
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('refuses a token whose exp has passed with 401, even when the answer says active', async () => {
    const { token: t } = token({ active: true, exp: Math.floor(Date.now() / 1000) - 5 });
    const answer = await mcp(t);
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(bodyOf(answer).message).toContain('expired');
  });

  it('refuses a token issued for another audience with 403', async () => {
    const { token: t } = token({ aud: 'some-other-app' });
    const answer = await mcp(t);
    expect(answer.status).toBe(403);
    expect(bodyOf(answer)).toMatchObject({ error: 'invalid_token' });
    expect(bodyOf(answer).message).toContain('another audience');
    expect(answer.headers.get('www-authenticate')).toContain(
      `resource_metadata="${METADATA_URL()}"`,
    );
  });

  it('admits an audience list naming the client id, the resource URL, or no audience at all', async () => {
    for (const aud of [['other', CLIENT_ID], `${base}/mcp`, null]) {
      const { token: t } = token({ aud });
      expect((await mcp(t)).status).toBe(200);
    }
  });

  it('refuses a token without a required scope with 403 insufficient_scope naming the scopes', async () => {
    const { token: t } = token({ scope: 'profile email' });
    const answer = await mcp(t);
    expect(answer.status).toBe(403);
    expect(answer.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${METADATA_URL()}", error="insufficient_scope", scope="${SCOPE}"`,
    );
    expect(bodyOf(answer)).toMatchObject({ error: 'insufficient_scope' });
    expect(bodyOf(answer).message).toContain(SCOPE);
    const noScope = token({ scope: null });
    expect((await mcp(noScope.token)).status).toBe(403);
  });

  it('answers a malformed introspection answer 503, and does not cache it', async () => {
    const { token: t } = token();
    for (const mode of ['malformed', 'no-active'] as const) {
      auth.setMode(mode);
      const answer = await mcp(t);
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('5');
      expect(answer.headers.get('www-authenticate')).toBeNull();
      expect(bodyOf(answer)).toMatchObject({ error: 'temporarily_unavailable' });
      expect(bodyOf(answer).message).toContain('could not be checked');
    }
    auth.setMode('ok');
    expect((await mcp(t)).status).toBe(200);
    expect(auth.introspections).toHaveLength(3);
  });

  it('admits nobody while introspection is down, answers 500 or is too slow', async () => {
    const cases = [
      ['down', 'could not be reached'],
      ['error', 'HTTP 500'],
      ['slow', `within ${TIMEOUT_MS} ms`],
    ] as const;
    for (const [mode, says] of cases) {
      auth.setMode(mode, { delayMs: TIMEOUT_MS + 500 });
      for (const fields of [{}, { active: false }]) {
        const answer = await mcp(token(fields).token);
        expect(answer.status).toBe(503);
        expect(bodyOf(answer).message).toContain(says);
      }
    }
    expect(auth.introspections).toHaveLength(6);
  });

  it('asks once for three requests with the same token (cache hit)', async () => {
    const { token: t } = token();
    for (let i = 0; i < 3; i++) expect((await mcp(t)).status).toBe(200);
    expect(auth.introspections).toHaveLength(1);
  });

  it('caches a definite no too', async () => {
    const { token: t } = token({ active: false });
    for (let i = 0; i < 3; i++) expect((await mcp(t)).status).toBe(401);
    expect(auth.introspections).toHaveLength(1);
  });

  it('shares one introspection among concurrent requests with the same token', async () => {
    auth.setMode('slow', { delayMs: 200 });
    const { token: t, user } = token();
    const answers = await Promise.all(Array.from({ length: 5 }, () => mcp(t)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(auth.introspections).toHaveLength(1);
    // One authentication, one audit row.
    expect(await rowsOf(user)).toHaveLength(1);
  });

  it('never uses a cached answer past the token exp: asks again, and refuses it expired', async () => {
    const { token: t } = token({ exp: Math.floor((Date.now() + clockOffsetMs) / 1000) + 2 });
    expect((await mcp(t)).status).toBe(200);
    expect((await mcp(t)).status).toBe(200);
    expect(auth.introspections).toHaveLength(1);
    clockOffsetMs += 2500;
    const late = await mcp(t);
    expect(late.status).toBe(401);
    expect(bodyOf(late).message).toContain('expired');
    expect(auth.introspections).toHaveLength(2);
  });

  it('asks again after five minutes, so a revoked token stops working', async () => {
    const { token: t } = token();
    expect((await mcp(t)).status).toBe(200);
    auth.revoke(t);
    clockOffsetMs += 4 * 60_000;
    expect((await mcp(t)).status).toBe(200);
    clockOffsetMs += 60_000 + 1;
    expect((await mcp(t)).status).toBe(401);
    expect(auth.introspections).toHaveLength(2);
  });

  it('refuses an API key as the bearer without sending it to the platform', async () => {
    const answer = await mcp(API_KEY_VALUE);
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(bodyOf(answer).message).toContain('API keys do not open /mcp');
    expect(auth.introspections).toHaveLength(0);
  });
});

describe('sessions and the audit trail', () => {
  it("serves a session only to its user: another user's valid token gets 404", async () => {
    const alice = token();
    const bob = token();
    const init = await mcp(alice.token);
    const session = String(init.headers.get('mcp-session-id'));
    const list = (bearer: string): Promise<Answer> =>
      mcp(bearer, {
        headers: { 'mcp-session-id': session, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
    const stolen = await list(bob.token);
    expect(stolen.status).toBe(404);
    expect(stolen.text).toContain('Session not found');
    expect((await list(alice.token)).status).toBe(200);
  });

  it('writes one success row per authenticated token with actor, client and scopes', async () => {
    const { token: t, user } = token({ client_id: 'claude-desktop' });
    for (let i = 0; i < 3; i++) expect((await mcp(t)).status).toBe(200);
    const rows = await rowsOf(user);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      source: 'mcp',
      transport: 'http',
      action: 'oauth.authenticate',
      actor: user,
      outcome: 'success',
      details: {
        client_id: 'claude-desktop',
        scopes: [SCOPE],
        subject: expect.stringMatching(/^sub-/),
        remote_address: '127.0.0.1',
      },
    });
  });

  it('writes a denied row for every refusal of a presented token, an error row when it could not be checked', async () => {
    const scopeless = token({ scope: 'profile' });
    await mcp(scopeless.token);
    await mcp(scopeless.token);
    expect(await rowsOf(scopeless.user)).toEqual([
      expect.objectContaining({
        outcome: 'denied',
        details: expect.objectContaining({
          reason: 'OAUTH_SCOPE_INSUFFICIENT',
          missing_scopes: [SCOPE],
          scopes: ['profile'],
        }),
      }),
      expect.objectContaining({ outcome: 'denied' }),
    ]);
    const inactive = token({ active: false, username: null, sub: null });
    await mcp(inactive.token);
    auth.setMode('error');
    await mcp(token().token);
    const [failed, denied] = await oauthRows();
    expect(denied).toMatchObject({
      actor: null,
      outcome: 'denied',
      details: { reason: 'OAUTH_TOKEN_INACTIVE' },
    });
    expect(failed).toMatchObject({
      actor: null,
      outcome: 'error',
      details: {
        reason: 'OAUTH_INTROSPECTION_FAILED',
        error: 'the introspection endpoint answered HTTP 500',
      },
    });
  });

  it('is what `junction logs audit --filter mcp` shows: source mcp, transport http', async () => {
    const rows = await oauthRows();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.source).toBe('mcp');
      expect(row.transport).toBe('http');
    }
  });
});

/** An MCP client's OAuth side, with fetch standing in for the browser. */
class SignInProvider implements OAuthClientProvider {
  code: string | undefined;
  #tokens: OAuthTokens | undefined;
  #verifier = '';

  get redirectUrl(): string {
    return REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'sign-in test',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    return 'state-1';
  }

  clientInformation(): OAuthClientInformationMixed {
    return { client_id: CLIENT_ID };
  }

  tokens(): OAuthTokens | undefined {
    return this.#tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.#tokens = tokens;
    sentTokens.push(tokens.access_token);
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    return this.#verifier;
  }

  /** The user approves at once: follow the authorization URL and take the code off the redirect. */
  async redirectToAuthorization(url: URL): Promise<void> {
    const res = await fetch(url, { redirect: 'manual' });
    const location = new URL(String(res.headers.get('location')));
    expect(location.origin + location.pathname).toBe(REDIRECT);
    expect(location.searchParams.get('state')).toBe('state-1');
    this.code = location.searchParams.get('code') ?? undefined;
  }
}

describe('signing in with the MCP SDK client (authorization code + PKCE)', () => {
  it('discovers the platform, signs in, connects with the token and calls tools as the user', async () => {
    const url = new URL(`${base}/mcp`);
    const provider = new SignInProvider();
    const first = new Client({ name: 'oauth-client', version: '1.0.0' });
    await expect(
      first.connect(new StreamableHTTPClientTransport(url, { authProvider: provider })),
    ).rejects.toThrow(UnauthorizedError);
    // The authorization request the SDK built from the metadata: S256, our client, our resource.
    expect(auth.authorizations[0]).toMatchObject({
      client_id: CLIENT_ID,
      response_type: 'code',
      code_challenge_method: 'S256',
      scope: SCOPE,
      resource: `${base}/mcp`,
    });
    expect(provider.code).toEqual(expect.any(String));

    const signingIn = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await signingIn.finishAuth(provider.code as string);
    expect(provider.tokens()?.access_token).toEqual(expect.any(String));

    const client = new Client({ name: 'oauth-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    try {
      expect((await client.listTools()).tools).toHaveLength(JUNCTION_TOOLS.length);
      expect((await call(client, 'list_environments')).isError).toBeFalsy();
    } finally {
      await client.close();
    }
    // initialize, initialized, the event stream, two calls: one introspection.
    expect(auth.introspections).toHaveLength(1);
    const [authenticated] = await rowsOf('alice');
    expect(authenticated).toMatchObject({ outcome: 'success', details: { client_id: CLIENT_ID } });
    const toolRow = await eventually("the tool call's audit row", async () => {
      await h.store.auditLog.flush();
      const [row] = await h.store.auditLog.list({ action: 'list_environments', limit: 1 });
      return row;
    });
    expect(toolRow?.actor).toBe('alice via oauth-client/1.0.0 (127.0.0.1)');
  });
});

describe('the fake authorization server', () => {
  const authorize = async (params: Record<string, string>): Promise<Response> =>
    fetch(`${auth.url}/oauth/authorize/?${new URLSearchParams(params)}`, { redirect: 'manual' });
  const verifier = 'dBjftJeZ4CVP-mJ92K9Zd3v-YMv3MrL83MLf1_qTLPc';
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const request = {
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT,
    response_type: 'code',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 's',
  };

  it('requires PKCE with S256: plain or no challenge is an error redirect', async () => {
    for (const bad of [
      { ...request, code_challenge_method: 'plain' },
      { ...request, code_challenge_method: '' },
      { ...request, code_challenge: '' },
    ]) {
      const res = await authorize(bad);
      expect(res.status).toBe(302);
      const location = new URL(String(res.headers.get('location')));
      expect(location.searchParams.get('error')).toBe('invalid_request');
      expect(location.searchParams.get('code')).toBeNull();
    }
    expect((await authorize({ ...request, client_id: 'nobody' })).status).toBe(400);
    expect((await authorize({ ...request, redirect_uri: 'http://evil.example/cb' })).status).toBe(
      400,
    );
  });

  it('exchanges a code once, and only with the matching verifier', async () => {
    const codeOf = async (): Promise<string> =>
      String(
        new URL(String((await authorize(request)).headers.get('location'))).searchParams.get(
          'code',
        ),
      );
    const exchange = (code: string, codeVerifier: string): Promise<Response> =>
      fetch(`${auth.url}/oauth/token/`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          code_verifier: codeVerifier,
          redirect_uri: REDIRECT,
          client_id: CLIENT_ID,
        }).toString(),
      });
    const wrong = await exchange(await codeOf(), verifier.replace('d', 'e'));
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_grant' });
    const code = await codeOf();
    const good = await exchange(code, verifier);
    expect(good.status).toBe(200);
    expect(await good.json()).toMatchObject({
      token_type: 'Bearer',
      access_token: expect.any(String),
    });
    expect((await exchange(code, verifier)).status).toBe(400);
  });
});

describe('options', () => {
  it('refuses endpoints that are not http(s) URLs and timings that are not positive', () => {
    const { transport: _stdio, ...deps } = h.deps;
    const oauth = {
      issuer: auth.url,
      authUrl: `${auth.url}/oauth/authorize/`,
      tokenUrl: `${auth.url}/oauth/token/`,
      introspectUrl: `${auth.url}/oauth/introspect/`,
      clientId: CLIENT_ID,
      scopes: [],
    };
    const build = (changes: Record<string, unknown>): McpHttpHandler =>
      createMcpHttpHandler({ deps, port: 1, oauth: { ...oauth, ...changes } });
    expect(() => build({ introspectUrl: 'platform.example/oauth/introspect/' })).toThrow(
      'oauth.introspectUrl must be an absolute http(s) URL; got "platform.example/oauth/introspect/". Check management.base_url and management.oauth.',
    );
    expect(() => build({ issuer: '' })).toThrow(/oauth\.issuer must be an absolute http\(s\) URL/);
    expect(() => build({ cacheTtlMs: 0 })).toThrow(/cacheTtlMs must be a positive number/);
    expect(() => build({ introspectTimeoutMs: -1 })).toThrow(
      /introspectTimeoutMs must be a positive number/,
    );
  });
});

describe('the token itself', () => {
  it('is in no audit row and no log line', async () => {
    expect(sentTokens.length).toBeGreaterThan(20);
    const rows = JSON.stringify(await h.store.auditLog.list({ limit: 1000 }));
    const logs = h.logLines.join('\n');
    for (const sent of sentTokens) {
      expect(rows).not.toContain(sent);
      expect(logs).not.toContain(sent);
    }
  });
});
