// Regression (issue 13, item 9): a line of invalid JSON on stdio was dropped without an answer.
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectStdio, createMcpServer } from '../src/index.js';
import { createHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
});

describe('MCP over stdio', () => {
  it('answers a line that is not JSON with -32700 and one that is not JSON-RPC with -32600, then goes on', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let text = '';
    output.setEncoding('utf8').on('data', (d: string) => (text += d));
    const server = createMcpServer({ ...h.deps, transport: 'stdio' });
    await connectStdio(server, { input, output });
    const lines = async (n: number): Promise<Array<Record<string, unknown>>> => {
      for (let i = 0; i < 100 && text.split('\n').filter(Boolean).length < n; i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      return text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    };
    input.write('{"jsonrpc": "2.0", "method": oops\n');
    input.write('{"hello": "world"}\n');
    input.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    const answers = await lines(3);
    expect(answers[0]).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect(answers[1]).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(answers[2]).toMatchObject({ jsonrpc: '2.0', id: 1, result: {} });
    // Regression (issue 13, item 9): a malformed tools/call is -32602 with a short message.
    input.write(
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_agents","arguments":null}}\n',
    );
    const [, , , malformed] = await lines(4);
    expect(malformed).toMatchObject({ id: 2, error: { code: -32602 } });
    expect(JSON.stringify(malformed)).toContain('params.arguments must be an object');
    await server.close();
  });
});
