import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createMcpHttpHandler } from '../src/index.js';
import { createHarness, type Harness } from './harness.js';
import { readmeExample } from '@junction/tooling/fixtures/readme-example.mjs';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('README example', () => {
  it('is the code below, verbatim, and it runs', async () => {
    const { transport: _transport, ...deps } = h.deps;
    const port = await freePort();
    // README-EXAMPLE-START
    const mcp = createMcpHttpHandler({ deps, port }); // deps: store, workspace, pool, queue, logger, version
    const listener = createServer(mcp.app).listen(port, '127.0.0.1');
    await once(listener, 'listening');

    const client = new Client({ name: 'example', version: '1.0.0' });
    const url = new URL(`http://127.0.0.1:${port}/mcp`);
    await client.connect(new StreamableHTTPClientTransport(url));
    const result = await client.callTool({ name: 'list_environments', arguments: {} });

    await client.close();
    await mcp.close(); // ends every session
    listener.close();
    // README-EXAMPLE-END

    expect(result.structuredContent).toMatchObject({
      environments: [expect.objectContaining({ name: 'default' })],
    });
    listener.closeAllConnections();

    const { example, readme } = readmeExample(import.meta.url);
    expect(example.split('\n').length).toBeGreaterThan(10);
    expect(readme).toContain(example);
  });
});
