// The shapes of ui-config.json and of the REST API answers the pages read (docs/rest-api.md).
// Written by hand: the browser cannot import the server's zod schemas.

export type UiMode = 'dashboard' | 'viewer';

/** `./ui-config.json`, served next to index.html. */
export interface UiConfig {
  mode: UiMode;
  viewer_url: string | null;
  dashboard_url: string | null;
  version: string;
}

/** Every error answer of the API. */
export interface ApiErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

export type RunStatus = 'queued' | 'running' | 'completed' | 'error' | 'timeout' | 'cancelled';

export interface Run {
  run_id: number;
  agent_id: number | null;
  agent_name: string;
  environment_id: number | null;
  status: RunStatus;
  source: string;
  parent_run_id: number | null;
  model: string | null;
  steps_taken: number;
  input_tokens: number;
  output_tokens: number;
  duration_ms: number | null;
  task: string;
  final_response: string | null;
  error: string | null;
  trace_id: string | null;
  /** USD; absent from servers older than the field. */
  cost_usd?: number | null;
  queued_at: string;
  started_at: string | null;
  completed_at: string | null;
  cancel_requested_at: string | null;
  /** What started it besides its caller; absent from servers older than the field. */
  origin?: RunOrigin | null;
}

/** The workflow run and step, schedule or management platform run that started a run. */
export interface RunOrigin {
  workflow_run_id: number | null;
  workflow_step: string | null;
  schedule_id: number | null;
  platform_run_id: string | null;
}

export interface RunEvent {
  seq: number;
  type: string;
  duration_ms: number | null;
  created_at: string;
  payload: unknown;
}

/** One attempt of a run (a run resumed after a crash, a lost lease or a graceful stop has several). */
export interface RunAttempt {
  attempt: number;
  worker_id: string | null;
  started_at: string | null;
  /** The first step it asked the model (the steps before came from the run's journal). */
  resumed_from_step: number | null;
  ended_at: string | null;
  end_reason: string | null;
}

export interface RunDetail extends Run {
  variables: Record<string, string>;
  event_count: number;
  events?: RunEvent[];
  /** Absent from servers older than durable runs. */
  attempts?: RunAttempt[];
}

export interface QueuedRun extends Run {
  variables: Record<string, string>;
  message: string;
}

export interface PageInfo {
  total: number;
  limit: number;
  offset: number;
}

export interface RunList extends PageInfo {
  items: Run[];
}

/** One `runs` message of GET /api/v1/runs/stream. */
export interface RunStreamPage {
  runs: Run[];
}

export interface AgentTool {
  name: string;
  server: string;
  description: string | null;
}

export interface Agent {
  id: number;
  name: string;
  environment: string;
  environment_id: number;
  description: string;
  model: string | null;
  max_steps: number | null;
  prompt_path: string | null;
  tools: AgentTool[];
  sub_agents: string[];
  schedule: { cron: string; enabled: boolean } | null;
  coding_enabled: boolean;
  updated_at: string;
}

export interface AgentList extends PageInfo {
  items: Agent[];
}

export interface Environment {
  id: number;
  name: string;
  agents: number;
  mcp_configs: number;
  mcp_servers: number;
  tools: number;
  last_synced_at: string | null;
}

export interface EnvironmentList extends PageInfo {
  items: Environment[];
}

export interface McpServer {
  id: number;
  name: string;
  environment: string;
  transport: string;
  status: string;
  last_synced_at: string | null;
  error: string | null;
  tools: Array<{ name: string; description: string | null }>;
}

export interface McpServerList {
  mcp_servers: McpServer[];
}

interface WorkflowPage {
  limit: number;
  offset: number;
  has_more: boolean;
}

export interface Workflow {
  id: number;
  workflow_id: string;
  name: string;
  environment: string | null;
  enabled: boolean;
  description: string;
  version: string | null;
  path: string | null;
  states: number;
  created_at: string;
  updated_at: string;
}

export interface WorkflowList extends WorkflowPage {
  workflows: Workflow[];
}

export interface WorkflowDetail {
  workflow: Workflow & { definition: Record<string, unknown> };
}

export interface WorkflowRun {
  id: number;
  workflow_id: string;
  workflow_name: string;
  status: string;
  input: unknown;
  output: unknown;
  error: string | null;
  current_step: string | null;
  source: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
}

export interface WorkflowStep {
  id: number;
  name: string;
  path: string;
  attempt: number;
  type: string;
  status: string;
  output: unknown;
  error: string | null;
  run_id: number | null;
  approval_id: string | null;
  started_at: string | null;
  completed_at: string | null;
}

export interface Approval {
  approval_id: string;
  workflow_run_id: number;
  step_name: string;
  message: string;
  approvers: string[];
  status: string;
  timeout_seconds: number | null;
  decided_by: string | null;
  comment: string | null;
  created_at: string;
  decided_at: string | null;
  expires_at: string | null;
  view_url: string;
  approve_url: string;
  reject_url: string;
}

export interface WorkflowRunList extends WorkflowPage {
  workflow_runs: WorkflowRun[];
}

export interface WorkflowRunDetail {
  workflow_run: WorkflowRun;
  steps: WorkflowStep[];
  approvals: Approval[];
}

export interface ApprovalList extends WorkflowPage {
  approvals: Approval[];
}

export interface ApprovalAnswer {
  approval: Approval;
}

export interface Schedule {
  id: number;
  kind: 'agent' | 'workflow';
  target: string;
  agent_id: number | null;
  workflow_id: number | null;
  environment_id: number | null;
  cron: string;
  timezone: string | null;
  enabled: boolean;
  task: string | null;
  origin: string;
  next_run_at: string | null;
  last_run_at: string | null;
  last_outcome: string | null;
  last_error: string | null;
  last_run_id: number | null;
}

export interface ScheduleList extends PageInfo {
  items: Schedule[];
}

export interface TraceSummary {
  trace_id: string;
  root_name: string;
  root_service: string;
  start_time: string;
  duration_ms: number;
  span_count: number;
  error_count: number;
  services: string[];
  run_ids: number[];
}

export interface TraceList {
  traces: TraceSummary[];
}

export type SpanKind = 'unspecified' | 'internal' | 'server' | 'client' | 'producer' | 'consumer';
export type SpanStatus = 'unset' | 'ok' | 'error';

export interface SpanEvent {
  name: string;
  time: string;
  time_us: number;
  attributes: Record<string, unknown>;
}

export interface Span {
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  name: string;
  kind: SpanKind;
  service: string;
  scope: string | null;
  start_time: string;
  start_us: number;
  duration_ms: number;
  status: SpanStatus;
  status_message: string | null;
  attributes: Record<string, unknown>;
  events: SpanEvent[];
  resource: Record<string, unknown>;
  run_id: number | null;
}

export interface TraceDetail {
  trace_id: string;
  spans: Span[];
}

export interface TraceServices {
  services: Array<{ name: string; operations: string[] }>;
}
