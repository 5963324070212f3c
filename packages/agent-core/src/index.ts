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
export {
  DEFAULT_OLLAMA_BASE_URL,
  PROVIDER_KEY_ENV,
  modelSecrets,
  PROVIDERS,
  resolveModel,
} from './model-factory.js';
export type { ModelSettings, ProviderName, ResolvedModel } from './model-factory.js';
export { classifyProviderError, redactSecrets, secretRedactor } from './model-errors.js';
export type { ProviderErrorInfo, ProviderErrorKind } from './model-errors.js';
export { AgentRunner, RunInterrupted } from './agent-runner.js';
export type { AgentRunnerDeps, ExecuteOptions, RunProgressEvent } from './agent-runner.js';
export { withModelTurns } from './model-turns.js';
export type { ModelTurn, ModelTurnHooks } from './model-turns.js';
export { buildRunTools, loadToolWiring, resultText, subAgentToolName } from './run-tools.js';
export type { RunToolsInput, SubAgentOutcome, ToolCallRecord, ToolWiring } from './run-tools.js';
export { isFinal, newWorkerId, RECOVERY_REASON, RunQueue } from './run-queue.js';
export type { EnqueueInput, RecoveryReport, RunExecutor, RunQueueOptions } from './run-queue.js';
export { agentView, createAgent, requireAgent, updateAgent } from './agent-admin.js';
export type { AgentDraft, AgentView, CreateAgentInput, UpdateAgentInput } from './agent-admin.js';
export {
  apiKeysOf,
  createServiceRuntime,
  createWorkerPool,
  modelSettingsOf,
} from './service-runtime.js';
export type {
  ServiceRuntime,
  ServiceRuntimeOptions,
  WorkerPool,
  WorkerPoolOptions,
} from './service-runtime.js';
export { isoOrNull, runView } from './run-view.js';
export { createKeyCheck, keyDigest, keyMatches, presentedKey } from './api-keys.js';
export type { RunView } from './run-view.js';
