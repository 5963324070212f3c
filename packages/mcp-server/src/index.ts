// Public API of @junction/mcp-server. Every name is exported on purpose; nothing else is public.
export { createMcpServer } from './mcp-server.js';
export type { McpServerDeps, McpServerStore } from './deps.js';
export { createMcpHttpHandler } from './http-handler.js';
export type { McpHttpHandler, McpHttpOptions, McpKeyRing } from './http-handler.js';
export type { McpOAuthOptions } from './oauth-guard.js';
export { connectStdio } from './stdio-connection.js';
