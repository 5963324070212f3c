// The lighthouse.v1 messages Junction sends and reads, as @grpc/proto-loader gives them with
// LOADER_OPTIONS: snake_case fields, enums as their names, 64-bit integers as strings.

export interface Timestamp {
  seconds: string;
  nanos: number;
}

/** `value` as an object of fields; {} for anything else (payloads read from the wire or the store). */
export function fieldsOf(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

export function timestamp(date: Date): Timestamp {
  const ms = date.getTime();
  return { seconds: String(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 };
}

export interface AgentInfo {
  id: string;
  name: string;
  description: string;
  model_name: string;
  max_steps: number;
  assigned_tools: string[];
  environment_name: string;
  schedule_enabled: boolean;
  cron_schedule: string;
  updated_at?: Timestamp;
}

export interface ToolInfo {
  name: string;
  description: string;
  mcp_server: string;
}

export interface McpServerInfo {
  name: string;
  command: string;
  args: string[];
  enabled: boolean;
  tool_count: number;
}

export interface StationAuth {
  registration_key: string;
  name: string;
  tags: string[];
  hostname: string;
  version: string;
  os: string;
  arch: string;
  environment: string;
  agents: AgentInfo[];
  tools: ToolInfo[];
  mcp_servers: McpServerInfo[];
}

export interface AuthResult {
  success: boolean;
  error: string;
  station_id: string;
  name: string;
  heartbeat_interval_ms: string;
  replaced_existing: boolean;
  org_id: string;
}

export const DISCONNECT_REASONS = [
  'DISCONNECT_REASON_UNSPECIFIED',
  'DISCONNECT_REASON_REPLACED',
  'DISCONNECT_REASON_AUTH_FAILED',
  'DISCONNECT_REASON_KEY_REVOKED',
  'DISCONNECT_REASON_LIMIT_REACHED',
  'DISCONNECT_REASON_SHUTDOWN',
  'DISCONNECT_REASON_HEARTBEAT_TIMEOUT',
  'DISCONNECT_REASON_ERROR',
] as const;
export type DisconnectCode = (typeof DISCONNECT_REASONS)[number];

export interface Disconnect {
  reason: string;
  code: DisconnectCode;
  should_reconnect: boolean;
  reconnect_delay_ms: string;
}

export type ExecutionStatus =
  | 'EXECUTION_QUEUED'
  | 'EXECUTION_RUNNING'
  | 'EXECUTION_COMPLETED'
  | 'EXECUTION_FAILED'
  | 'EXECUTION_CANCELLED';

export type ErrorCode =
  | 'UNKNOWN_ERROR'
  | 'AGENT_NOT_FOUND'
  | 'ENVIRONMENT_NOT_FOUND'
  | 'EXECUTION_ERROR'
  | 'TIMEOUT_ERROR'
  | 'PERMISSION_DENIED';

export interface ToolCallReport {
  tool_name: string;
  parameters: Record<string, string>;
  result: string;
  duration_ms: string;
  success: boolean;
  timestamp?: Timestamp;
}

export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ExecutionStep {
  step_number: number;
  description: string;
  type: 'STEP_TYPE_TOOL_CALL' | 'STEP_TYPE_LLM_CALL' | 'STEP_TYPE_PROCESSING';
  duration_ms: string;
  timestamp?: Timestamp;
}

export type LighthouseRunStatus =
  | 'LIGHTHOUSE_RUN_STATUS_QUEUED'
  | 'LIGHTHOUSE_RUN_STATUS_RUNNING'
  | 'LIGHTHOUSE_RUN_STATUS_COMPLETED'
  | 'LIGHTHOUSE_RUN_STATUS_FAILED'
  | 'LIGHTHOUSE_RUN_STATUS_TIMEOUT'
  | 'LIGHTHOUSE_RUN_STATUS_CANCELLED';

export interface AgentRunData {
  run_id: string;
  agent_id: string;
  agent_name: string;
  task: string;
  response: string;
  tool_calls: ToolCallReport[];
  execution_steps: ExecutionStep[];
  token_usage: TokenUsage;
  duration_ms: string;
  model_name: string;
  status: LighthouseRunStatus;
  started_at?: Timestamp;
  completed_at?: Timestamp;
  metadata: Record<string, string>;
  station_version: string;
}

export interface SendRunRequest {
  registration_key: string;
  environment: string;
  mode: 'DEPLOYMENT_MODE_STDIO' | 'DEPLOYMENT_MODE_SERVE' | 'DEPLOYMENT_MODE_CLI';
  source: 'RUN_SOURCE_ANALYTICS' | 'RUN_SOURCE_UI_TRIGGERED';
  run_data: AgentRunData;
  labels: Record<string, string>;
}

/** The requests the platform sends on the stream, by their oneof field name. */
export const PLATFORM_REQUESTS = [
  'list_agents_request',
  'list_tools_request',
  'get_environments_request',
  'execute_agent_request',
  'get_agent_details_request',
] as const;
export type PlatformRequestKind = (typeof PLATFORM_REQUESTS)[number];

export interface ExecuteAgentRequest {
  agent_id: string;
  task: string;
  environment: string;
  variables: Record<string, string>;
  timeout_seconds: number;
  run_id: string;
}

/** One message of the ManagementChannel stream (only the oneof case set is present). */
export interface ManagementMessage {
  request_id: string;
  registration_key: string;
  is_response: boolean;
  success: boolean;
  /** Which oneof case is set (proto-loader's `oneofs: true`). */
  message?: string;
  [field: string]: unknown;
}
