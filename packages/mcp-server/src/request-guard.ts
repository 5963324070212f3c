// A `tools/call` whose params have the wrong shape (`params` missing, `name` not a string,
// `arguments` null, an array, a string, or an object with a "constructor" key) is answered here, before the SDK: the SDK answers
// such a request -32602 too, but with a dump of its schema check that clients show users.
// Here the answer is -32602 with one sentence that says what to send.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  InitializeRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * The SDK's own schemas of the other requests this server answers: a request that fails one
 * is answered -32602 naming the first wrong field, where the SDK's check, run inside its
 * handler, would answer -32603 (an internal error) with a dump of every issue.
 */
const REQUEST_SCHEMAS: Record<
  string,
  { safeParse(value: unknown): { success: boolean; error?: unknown } }
> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'resources/list': ListResourcesRequestSchema,
  'resources/templates/list': ListResourceTemplatesRequestSchema,
  'resources/read': ReadResourceRequestSchema,
};

/** The first problem of a failed schema check, as `field: reason`. */
function firstIssue(error: unknown): string {
  const issue = (error as { issues?: Array<{ path: PropertyKey[]; message: string }> }).issues?.[0];
  if (issue === undefined) return 'they do not have the expected shape';
  const field = issue.path.map(String).join('.');
  return `${field || 'params'}: ${issue.message}`;
}

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
    const refuse = (message: string): void => {
      const answer = {
        jsonrpc: '2.0',
        id: request.id,
        error: { code: ErrorCode.InvalidParams, message },
      } as JSONRPCMessage;
      void transport.send(answer).catch(() => undefined);
    };
    if (request.method === 'tools/call' && request.id !== undefined) {
      const problem = toolCallParamsProblem(request.params);
      if (problem !== undefined) {
        refuse(
          `Invalid tools/call request: ${problem}. Send {"name": "<tool>", "arguments": {…}}.`,
        );
        return;
      }
    } else if (typeof request.method === 'string' && request.id !== undefined) {
      const schema = REQUEST_SCHEMAS[request.method];
      const checked = schema?.safeParse(message);
      if (checked && !checked.success) {
        refuse(`Invalid ${request.method} request: ${firstIssue(checked.error)}.`);
        return;
      }
    }
    next.call(transport, message, extra);
  };
}
