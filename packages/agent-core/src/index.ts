export { AGENT_CORE_ERROR_CODES, AgentCoreError, isAgentCoreError } from './errors.js';
export type { AgentCoreErrorCode } from './errors.js';
export {
  agentInputOf,
  buildToolIndex,
  checkSubAgents,
  registerAgent,
  resolveTools,
  storedToolIndex,
} from './agent-registry.js';
export type { ToolIndex, ToolRef } from './agent-registry.js';
export { serverKey, serverSpec, syncEnvironment } from './sync-environment.js';
export type {
  AgentReport,
  Change,
  ConfigReport,
  ServerReport,
  SyncOptions,
  SyncProgress,
  SyncReport,
  ToolLister,
} from './sync-environment.js';
export {
  DEFAULT_MCP_CONNECT_TIMEOUT_MS,
  DEFAULT_MCP_REQUEST_TIMEOUT_MS,
  McpClientPool,
} from './mcp-client-pool.js';
export type {
  DiscoveredTool,
  McpClientPoolOptions,
  McpServerSpec,
  ToolCallResult,
} from './mcp-client-pool.js';
