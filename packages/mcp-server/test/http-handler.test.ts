import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { createMcpHttpHandler, type McpHttpHandler } from '../src/index.js';
import { JUNCTION_TOOLS } from '../src/mcp-server.js';
import { call, createHarness, type Harness } from './harness.js';
import { keyRing } from '@junction/tooling/fixtures/key-ring.mjs';
import { eventually } from '@junction/tooling/fixtures/eventually.mjs';

const MAX_BODY = 16 * 1024;

let h: Harness;
let server: http.Server;
let handler: McpHttpHandler;
let port: number;

beforeAll(async () => {
  h = await createHarness({ agents: { chat: 'model: openai/gpt-test' } });
  server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  const { transport: _stdio, ...deps } = h.deps;
  handler = createMcpHttpHandler({ deps, port, maxBodyBytes: MAX_BODY });
  server.on('request', handler.app);
});
afterAll(async () => {
  await handler?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await h?.close();
});

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json(): Record<string, unknown>;
}

/** A plain HTTP request, so tests can send any Host, Origin or body they like. */
function raw(
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string; port?: number } = {},
): Promise<RawResponse> {
  const target = options.port ?? port;
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: target,
        method,
        path,
        headers: { host: `127.0.0.1:${target}`, ...options.headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            json: () => JSON.parse(text) as Record<string, unknown>,
          }),
        );
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

const JSON_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

function initializeBody(id = 1): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'raw', version: '0' },
    },
  });
}

async function connectClient(): Promise<{
  client: Client;
  transport: StreamableHTTPClientTransport;
}> {
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`));
  const client = new Client({ name: 'http-client', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

describe('Streamable HTTP sessions', () => {
  it('serves an SDK client: initialize, tools/list, tools/call, audited with the remote address', async () => {
    const before = handler.sessions();
    const { client, transport } = await connectClient();
    try {
      expect(transport.sessionId).toEqual(expect.any(String));
      expect(handler.sessions()).toBe(before + 1);
      expect(client.getServerVersion()).toMatchObject({ name: 'junction', version: '9.9.9-test' });
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(JUNCTION_TOOLS.length);
      const result = await call(client, 'list_environments');
      expect(result.structuredContent?.environments).toEqual([
        expect.objectContaining({ name: 'default' }),
      ]);
      // Rows are written just after the answer goes out.
      const row = await eventually("the call's audit row", async () => {
        await h.store.auditLog.flush();
        const [newest] = await h.store.auditLog.list({ source: 'mcp', limit: 1 });
        return newest?.action === 'list_environments' ? newest : undefined;
      });
      expect(row).toMatchObject({
        transport: 'http',
        action: 'list_environments',
        outcome: 'success',
        actor: 'http-client/1.0.0 (127.0.0.1)',
      });
    } finally {
      await client.close();
    }
  });

  it('runs an agent over HTTP', async () => {
    const { client } = await connectClient();
    try {
      h.fake.reset();
      h.fake.script([{ text: 'over http' }]);
      const result = await call(client, 'call_agent', { agent_name: 'chat', task: 'hi' });
      expect(result.structuredContent).toMatchObject({
        status: 'completed',
        final_response: 'over http',
      });
    } finally {
      await client.close();
    }
  });

  it('ends a session on DELETE; the session id is unknown afterwards', async () => {
    const { client, transport } = await connectClient();
    const id = transport.sessionId as string;
    const before = handler.sessions();
    await transport.terminateSession();
    expect(handler.sessions()).toBe(before - 1);
    const after = await raw('POST', '/mcp', {
      headers: { ...JSON_HEADERS, 'mcp-session-id': id },
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }),
    });
    expect(after.status).toBe(404);
    await client.close();
  });

  it('closes every session on close()', async () => {
    const { client } = await connectClient();
    expect(handler.sessions()).toBeGreaterThan(0);
    await handler.close();
    expect(handler.sessions()).toBe(0);
    await client.close();
  });

  it('does not keep a session for an initialize the transport refuses (wrong Accept)', async () => {
    const before = handler.sessions();
    const res = await raw('POST', '/mcp', {
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: initializeBody(),
    });
    expect(res.status).toBe(406);
    expect(handler.sessions()).toBe(before);
  });
});

describe('reachability check', () => {
  it('answers GET /mcp without a session with who serves here', async () => {
    const res = await raw('GET', '/mcp', { headers: { accept: 'application/json' } });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({
      name: 'junction',
      version: '9.9.9-test',
      transport: 'streamable-http',
      endpoint: '/mcp',
    });
  });

  it('refuses an event stream without a session with 400', async () => {
    const res = await raw('GET', '/mcp', { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
  });
});

describe('DNS-rebinding protection', () => {
  it('refuses a foreign Host with 403 naming the Host header', async () => {
    const res = await raw('GET', '/mcp', { headers: { host: 'evil.example:8586' } });
    expect(res.status).toBe(403);
    expect(res.json()).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message: 'Forbidden: Host header "evil.example:8586" is not allowed.',
      },
      id: null,
    });
  });

  it('refuses a foreign Origin with 403 naming the Origin header', async () => {
    const res = await raw('POST', '/mcp', {
      headers: { ...JSON_HEADERS, origin: 'http://evil.example' },
      body: initializeBody(),
    });
    expect(res.status).toBe(403);
    expect(String((res.json().error as { message: string }).message)).toBe(
      'Forbidden: Origin header "http://evil.example" is not allowed.',
    );
  });

  it('accepts localhost as Host and Origin, and requests without an Origin', async () => {
    const local = await raw('GET', '/mcp', {
      headers: { host: `localhost:${port}`, origin: `http://localhost:${port}` },
    });
    expect(local.status).toBe(200);
    const noOrigin = await raw('GET', '/mcp');
    expect(noOrigin.status).toBe(200);
  });
});

describe('bad requests', () => {
  it('answers an unknown session id with 404 "Session not found" on POST, GET and DELETE', async () => {
    for (const method of ['POST', 'GET', 'DELETE']) {
      const res = await raw(method, '/mcp', {
        headers: { ...JSON_HEADERS, 'mcp-session-id': 'no-such-session' },
        ...(method === 'POST'
          ? { body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }) }
          : {}),
      });
      expect(res.status).toBe(404);
      expect(res.json()).toEqual({
        jsonrpc: '2.0',
        error: { code: -32001, message: 'Session not found' },
        id: method === 'POST' ? 7 : null,
      });
    }
  });

  it('refuses a POST without a session that is not initialize with 400', async () => {
    const res = await raw('POST', '/mcp', {
      headers: JSON_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
    });
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: 3 });
    expect(res.text).toContain('initialize');
  });

  it('refuses a body over the limit with 413 and a JSON-RPC error, not HTML', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'x',
      params: { pad: 'a'.repeat(MAX_BODY) },
    });
    const res = await raw('POST', '/mcp', { headers: JSON_HEADERS, body: big });
    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toContain('application/json');
    expect(res.json()).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message: `Payload Too Large: the request body exceeds ${MAX_BODY} bytes.`,
      },
      id: null,
    });
  });

  it('refuses a POST that is not application/json with 415', async () => {
    const res = await raw('POST', '/mcp', {
      headers: { 'content-type': 'text/plain', accept: 'application/json, text/event-stream' },
      body: initializeBody(),
    });
    expect(res.status).toBe(415);
    expect(res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    expect(res.text).toContain('Content-Type: application/json');
  });

  it('answers a body that is not JSON with 400 and a JSON-RPC parse error', async () => {
    const res = await raw('POST', '/mcp', { headers: JSON_HEADERS, body: '{"jsonrpc": "2.0",' });
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 }, id: null });
  });

  it('answers other methods on /mcp with 405 and unknown paths with 404, both JSON', async () => {
    const put = await raw('PUT', '/mcp', { headers: JSON_HEADERS, body: '{}' });
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe('GET, POST, DELETE');
    expect(put.json()).toMatchObject({ error: { code: -32000 } });
    const missing = await raw('GET', '/nothing/here');
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toContain('application/json');
    expect(missing.json()).toMatchObject({ error: 'not_found' });
  });

  // Regression (issue 13, item 15): /MCP and /Mcp were served as /mcp.
  it('serves /mcp only in lower case: /MCP and /Mcp are 404', async () => {
    for (const route of ['/MCP', '/Mcp']) {
      const res = await raw('POST', route, { headers: JSON_HEADERS, body: '{}' });
      expect(res.status).toBe(404);
      expect(res.json()).toMatchObject({ error: 'not_found' });
    }
  });
});

describe('API keys on MCP over HTTP', () => {
  const KEY = 'mcp-key-7f3a9c1e55';
  let keyed: McpHttpHandler;
  let keyedServer: http.Server;
  let keyedPort: number;

  beforeAll(async () => {
    keyedServer = http.createServer();
    await new Promise<void>((resolve) => keyedServer.listen(0, '127.0.0.1', resolve));
    keyedPort = (keyedServer.address() as AddressInfo).port;
    const { transport: _stdio, ...deps } = h.deps;
    keyed = createMcpHttpHandler({ deps, port: keyedPort, keys: keyRing([KEY]) });
    keyedServer.on('request', keyed.app);
  });
  afterAll(async () => {
    await keyed?.close();
    keyedServer?.closeAllConnections();
    await new Promise((resolve) => keyedServer?.close(resolve));
  });

  const post = (headers: Record<string, string>): Promise<Response> =>
    fetch(`http://127.0.0.1:${keyedPort}/mcp`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, ...headers },
      body: initializeBody(),
    });

  it('refuses a request without a key or with a wrong one (401, JSON-RPC body), even with a loopback Host', async () => {
    const before = keyed.sessions();
    const missing = await post({});
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(JSON.stringify(await missing.json())).toContain('Authorization: Bearer');
    const wrong = await post({ authorization: 'Bearer not-the-key' });
    expect(wrong.status).toBe(401);
    expect(JSON.stringify(await wrong.json())).not.toContain(KEY);
    expect(keyed.sessions()).toBe(before);
  });

  it('serves an SDK client that sends the key, and keeps the reachability GET open', async () => {
    const reach = await fetch(`http://127.0.0.1:${keyedPort}/mcp`);
    expect(reach.status).toBe(200);
    const transport = new StreamableHTTPClientTransport(
      new URL(`http://127.0.0.1:${keyedPort}/mcp`),
      { requestInit: { headers: { authorization: `Bearer ${KEY}` } } },
    );
    const client = new Client({ name: 'keyed-client', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools).toHaveLength(JUNCTION_TOOLS.length);
    } finally {
      await client.close();
    }
    const viaHeader = await post({ 'x-api-key': KEY });
    expect(viaHeader.status).toBe(200);
  });
});

describe('idle sessions', () => {
  it('closes a session idle past sessionIdleMs, answers it 404, and keeps a busy one', async () => {
    const idleServer = http.createServer();
    await new Promise<void>((resolve) => idleServer.listen(0, '127.0.0.1', resolve));
    const idlePort = (idleServer.address() as AddressInfo).port;
    const { transport: _stdio, ...deps } = h.deps;
    // 1 s idle against calls every ~100 ms: a loaded CI machine stretching one round trip to
    // 300 ms expired the kept session once; the margin is now ten rounds.
    const idle = createMcpHttpHandler({ deps, port: idlePort, sessionIdleMs: 1000 });
    idleServer.on('request', idle.app);
    try {
      // A client that initialized and went away without DELETE (no stream left open).
      const init = await raw('POST', '/mcp', {
        port: idlePort,
        headers: JSON_HEADERS,
        body: initializeBody(),
      });
      expect(init.status).toBe(200);
      const gone = String(init.headers['mcp-session-id']);
      // One without a stream, kept by its requests alone.
      const keptInit = await raw('POST', '/mcp', {
        port: idlePort,
        headers: JSON_HEADERS,
        body: initializeBody(),
      });
      const kept = String(keptInit.headers['mcp-session-id']);
      const listTools = (session: string): Promise<RawResponse> =>
        raw('POST', '/mcp', {
          port: idlePort,
          headers: {
            ...JSON_HEADERS,
            'mcp-session-id': session,
            'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
        });
      // An SDK client that keeps calling every 100 ms (and holds its event stream open).
      const busy = new Client({ name: 'busy', version: '1.0.0' });
      await busy.connect(
        new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${idlePort}/mcp`)),
      );
      expect(idle.sessions()).toBe(3);
      for (let i = 0; i < 15; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect((await call(busy, 'list_environments')).isError).toBeFalsy();
        expect((await listTools(kept)).status).toBe(200);
      }
      expect(idle.sessions()).toBe(2);
      const late = await listTools(gone);
      expect(late.status).toBe(404);
      expect(late.text).toContain('Session not found');
      await busy.close();
    } finally {
      await idle.close();
      idleServer.closeAllConnections();
      await new Promise((resolve) => idleServer.close(resolve));
    }
  });

  it('refuses a sessionIdleMs that is not a positive number', () => {
    const { transport: _stdio, ...deps } = h.deps;
    expect(() => createMcpHttpHandler({ deps, port: 1, sessionIdleMs: 0 })).toThrow(
      /sessionIdleMs must be a positive number/,
    );
  });
});

// Regression (issue 13, item 9): a malformed tools/call answered with the SDK's schema dump.
describe('a malformed request over HTTP', () => {
  it.each([
    ['initialize without protocolVersion', 'initialize', { capabilities: {} }, 'protocolVersion'],
    ['resources/read without uri', 'resources/read', {}, 'uri'],
    ['tools/list with a number cursor', 'tools/list', { cursor: 7 }, 'cursor'],
  ])('%s is -32602 naming the field, not -32603', async (_, method, params, says) => {
    const init = await raw('POST', '/mcp', { headers: JSON_HEADERS, body: initializeBody() });
    const res = await raw('POST', '/mcp', {
      headers: {
        ...JSON_HEADERS,
        'mcp-session-id': String(init.headers['mcp-session-id']),
        'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'x', method, params }),
    });
    const data = res.text.split('\n').find((l) => l.startsWith('data: '));
    const answer = JSON.parse(data ? data.slice(6) : res.text) as {
      error: { code: number; message: string };
    };
    expect(answer.error.code).toBe(-32602);
    expect(answer.error.message).toContain(says);
    expect(answer.error.message).not.toContain('\n');
  });
});

describe('a malformed tools/call over HTTP', () => {
  it.each([
    ['arguments null', { name: 'list_agents', arguments: null }, 'params.arguments'],
    ['arguments an array', { name: 'list_agents', arguments: [1] }, 'got an array'],
    ['arguments a string', { name: 'list_agents', arguments: 'x' }, 'got a string'],
    ['name a number', { name: 7 }, 'params.name'],
    ['params missing', undefined, 'params must be an object, got none'],
    [
      'a "constructor" argument',
      { name: 'list_tools', arguments: { constructor: 1 } },
      'constructor',
    ],
  ])('%s is -32602 with one short sentence', async (_, params, says) => {
    const init = await raw('POST', '/mcp', { headers: JSON_HEADERS, body: initializeBody() });
    const session = String(init.headers['mcp-session-id']);
    const res = await raw('POST', '/mcp', {
      headers: {
        ...JSON_HEADERS,
        'mcp-session-id': session,
        'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params }),
    });
    expect(res.status).toBe(200);
    const data = res.text.split('\n').find((l) => l.startsWith('data: '));
    const answer = JSON.parse(data ? data.slice(6) : res.text) as {
      id: number;
      error: { code: number; message: string };
    };
    expect(answer.id).toBe(9);
    expect(answer.error.code).toBe(-32602);
    expect(answer.error.message).toContain(says);
    expect(answer.error.message).not.toContain('\n');
    expect(answer.error.message.length).toBeLessThan(200);
  });
});
