// The management platform client: the lighthouse.v1 protocol, the management channel (register,
// heartbeat, answer the platform's requests, reconnect), run reports, and the workspace files of
// `junction auth`. Every name is exported on purpose; nothing else is public.
export { ManagementChannel } from './channel.js';
export type {
  ManagementChannelOptions,
  ManagementState,
  ManagementStatus,
  Reply,
  StationService,
} from './channel.js';
export { ManagementClientError, MANAGEMENT_CLIENT_ERRORS } from './errors.js';
export type { ManagementClientErrorCode } from './errors.js';
export type {
  Timestamp,
  AgentInfo,
  ToolInfo,
  McpServerInfo,
  StationAuth,
  AuthResult,
  ToolCallReport,
  TokenUsage,
  ExecutionStep,
  LighthouseRunStatus,
  AgentRunData,
  SendRunRequest,
  PlatformRequestKind,
  ManagementMessage,
} from './messages.js';
export { managementSettings } from './settings.js';
export type { KeySource, ManagementSettings } from './settings.js';
export { createStation } from './station.js';
export type { StationOptions, StationStore } from './station.js';
export { RunReporter } from './run-report.js';
export type { RunReporterOptions, RunReporterStore } from './run-report.js';
export { loginFile, readLogin, readStatus, removeLogin, saveLogin } from './workspace-files.js';
export type { StatusRecord, StoredLogin } from './workspace-files.js';
