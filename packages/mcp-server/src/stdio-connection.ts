// MCP over stdin/stdout for one client. The SDK's stdio transport drops a line that is not
// JSON (or not JSON-RPC) after telling only its onerror; a client then waits forever. Here it
// gets the JSON-RPC answer the spec gives such a line: -32700 or -32600, with id null.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Readable, Writable } from 'node:stream';
import { guardToolCalls } from './request-guard.js';

/** Connects `server` to stdin/stdout (or the given streams); unreadable lines are answered. */
export async function connectStdio(
  server: McpServer,
  streams: { input?: Readable; output?: Writable } = {},
): Promise<StdioServerTransport> {
  const transport = new StdioServerTransport(streams.input, streams.output);
  await server.connect(transport);
  guardToolCalls(transport);
  const previous = server.server.onerror;
  server.server.onerror = (error: Error): void => {
    const notJson = error instanceof SyntaxError;
    // A line that is JSON but no JSON-RPC message fails the SDK's schema check (a ZodError).
    const notRpc = !notJson && error.name === 'ZodError';
    if (notJson || notRpc) {
      const answer = {
        jsonrpc: '2.0',
        id: null,
        error: notJson
          ? { code: -32700, message: 'Parse error: the line is not valid JSON.' }
          : { code: -32600, message: 'Invalid Request: the line is not a JSON-RPC 2.0 message.' },
      } as unknown as JSONRPCMessage;
      void transport.send(answer).catch(() => undefined);
    }
    previous?.(error);
  };
  return transport;
}
