// MCP over HTTP answered a body that does not decode (gzip that is not gzip) with "the request
// could not be read" while REST and the webhook port said what was wrong. All three read body
// failures by one rule now (config-templates' bodyReadFailure).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BODY_UNDECODABLE_MESSAGE } from '@junction/config-templates';
import { createMcpHttpHandler, type McpHttpHandler } from '../src/index.js';
import { createHarness, type Harness } from './harness.js';

let h: Harness;
let server: http.Server;
let handler: McpHttpHandler;
let url: string;

beforeAll(async () => {
  h = await createHarness({ agents: { chat: 'model: openai/gpt-test' } });
  server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  url = `http://127.0.0.1:${port}/mcp`;
  const { transport: _stdio, ...deps } = h.deps;
  handler = createMcpHttpHandler({ deps, port });
  server.on('request', handler.app);
});
afterAll(async () => {
  await handler?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await h?.close();
});

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

describe('POST /mcp with a body that cannot be read', () => {
  it('a body declared gzip that is not gzip: 400 with the shared words', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...HEADERS, 'content-encoding': 'gzip' },
      body: 'this is not gzip at all',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: `Bad Request. ${BODY_UNDECODABLE_MESSAGE}` },
      id: null,
    });
  });

  it('a charset other than UTF-8: 415 naming it', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...HEADERS, 'content-type': 'application/json; charset=latin1' },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    expect(res.status).toBe(415);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toBe(
      'Unsupported Media Type. The charset "latin1" is not supported: send the body as UTF-8 JSON (Content-Type: application/json; charset=utf-8).',
    );
  });
});
