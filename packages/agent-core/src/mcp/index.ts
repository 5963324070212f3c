// How a tool server is connected: one pool of MCP clients over stdio, Streamable HTTP or SSE.
export { McpClientPool } from './mcp-client-pool.js';
export type { McpServerSpec } from './mcp-client-pool.js';
