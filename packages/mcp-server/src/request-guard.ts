// A `tools/call` whose params have the wrong shape (`params` missing, `name` not a string,
// `arguments` null, an array, a string, or an object with a "constructor" key) is answered here, before the SDK: the SDK answers
// such a request -32602 too, but with a dump of its schema check that clients show users.
// Here the answer is -32602 with one sentence that says what to send.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

const typeName = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;

/** What is wrong with the params of a tools/call request, or undefined. */
export function toolCallParamsProblem(params: unknown): string | undefined {
  if (params === null || typeof params !== 'object' || Array.isArray(params)) {
    return `params must be an object, got ${params === undefined ? 'none' : typeName(params)}`;
  }
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  if (typeof name !== 'string') {
    return `params.name must be the tool's name as a string, got ${name === undefined ? 'none' : typeName(name)}`;
  }
  if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) {
    return `params.arguments must be an object of the tool's arguments, got ${typeName(args)}`;
  }
  // The SDK's check calls an object with an own "constructor" key "not an object" and answers
  // -32603 (an internal error) with its dump; no tool has an argument of that name.
  if (args !== undefined && Object.hasOwn(args, 'constructor')) {
    return 'params.arguments may not have an argument named "constructor"; no tool takes one';
  }
  return undefined;
}

/**
 * Answers malformed `tools/call` requests arriving on `transport` with -32602 and a short
 * message; everything else goes on to the server. Call after the server is connected to it.
 */
export function guardToolCalls(transport: Transport): void {
  const next = transport.onmessage;
  if (next === undefined)
    throw new Error('guardToolCalls: connect the server to the transport first');
  transport.onmessage = (message, extra) => {
    const request = message as { method?: unknown; id?: unknown; params?: unknown };
    if (request.method === 'tools/call' && request.id !== undefined) {
      const problem = toolCallParamsProblem(request.params);
      if (problem !== undefined) {
        const answer = {
          jsonrpc: '2.0',
          id: request.id,
          error: {
            code: ErrorCode.InvalidParams,
            message: `Invalid tools/call request: ${problem}. Send {"name": "<tool>", "arguments": {…}}.`,
          },
        } as JSONRPCMessage;
        void transport.send(answer).catch(() => undefined);
        return;
      }
    }
    next.call(transport, message, extra);
  };
}
