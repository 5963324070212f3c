// Public API of @junction/store. Every name is exported on purpose; nothing else is public.
export { openStore } from './open-store.js';
export type { OpenStoreOptions } from './open-store.js';
export type { Store } from './store.js';
export { StoreError, isStoreError, storeCallUnsent, STORE_ERRORS } from './store-error.js';
export type { StoreErrorCode, StoreErrorDetails } from './store-error.js';
export { describeLocation } from './connection.js';
export type { StoreLocation } from './store-location.js';
export { migrationsFolder } from './migrations.js';
export type { Page } from './paging.js';
export {
  RUN_STATUSES,
  RUN_SOURCES,
  MCP_TRANSPORTS,
  MCP_CONFIG_STATUSES,
  MCP_SERVER_STATUSES,
  WORKFLOW_RUN_STATUSES,
  SCHEDULE_KINDS,
  SCHEDULE_ORIGINS,
  SCHEDULE_CATCH_UPS,
  SCHEDULE_OVERLAPS,
  SCHEDULE_OUTCOMES,
  type ScheduleKind,
  type ScheduleOrigin,
  type ScheduleCatchUp,
  type ScheduleOverlap,
  type ScheduleOutcome,
  WORKFLOW_STEP_STATUSES,
  APPROVAL_STATUSES,
  AUDIT_OUTCOMES,
  CODING_SESSION_BACKENDS,
  CODING_SESSION_STATUSES,
  type CodingSessionBackend,
  type CodingSessionStatus,
} from './schema.js';
export type { JsonValue, PinnedStart, ToolAnnotations } from './schema.js';
export type {
  Agent,
  Approval,
  ApprovalStatus,
  AuditLogEntry,
  AuditOutcome,
  CodingSession,
  Environment,
  McpConfig,
  McpConfigStatus,
  McpServer,
  McpServerStatus,
  McpTransport,
  NotificationLog,
  Run,
  RunEvent,
  RunSource,
  RunStatus,
  Schedule,
  Lease,
  Setting,
  Tool,
  Workflow,
  WorkflowRun,
  WorkflowRunStatus,
  WorkflowStep,
  WorkflowStepStatus,
} from './rows.js';
export type {
  EnvironmentsRepository,
  EnvironmentInput,
  EnvironmentPatch,
  EnvironmentSummary,
} from './repositories/environments.js';
export type {
  McpConfigsRepository,
  McpConfigInput,
  McpConfigFilter,
} from './repositories/mcp-configs.js';
export type {
  McpServersRepository,
  McpServerInput,
  McpServerFilter,
} from './repositories/mcp-servers.js';
export type { ToolsRepository, ToolInput, ToolListing, ToolFilter } from './repositories/tools.js';
export type {
  AgentsRepository,
  AgentInput,
  AgentPatch,
  AgentFilter,
  AgentRef,
  AgentSummary,
  FoundAgent,
} from './repositories/agents.js';
export { runDurationMs } from './repositories/runs.js';
export type {
  RunsRepository,
  RunReader,
  RunCreateInput,
  RunOrigin,
  RecoveredRuns,
  RecoveryPolicy,
  AttemptEnd,
  RunListFilter,
  RunStatusFilter,
  RunProgress,
  RunCompletion,
  FinalEvents,
  RunFailure,
} from './repositories/runs.js';
export type {
  RunEventsRepository,
  RunEventInput,
  RunEventFilter,
  RecordFence,
  JournalEntry,
} from './repositories/run-events.js';
export { TOKEN_USAGE_GROUPS, UNKNOWN_MODEL } from './repositories/run-stats.js';
export type {
  RunStatsRepository,
  RunStatsWindow,
  TokenUsageGroup,
  TokenUsageQuery,
  TokenUsageRow,
  ModelTokenUsageRow,
  RunSummaryQuery,
  RunSummary,
  RunDurationStats,
} from './repositories/run-stats.js';
export type {
  WorkflowsRepository,
  WorkflowInput,
  WorkflowFilter,
} from './repositories/workflows.js';
export type {
  WorkflowRunsRepository,
  WorkflowRunCreateInput,
  WorkflowRunPatch,
  WorkflowRunFilter,
  WorkflowRunRelease,
} from './repositories/workflow-runs.js';
export { WORKFLOW_RUN_ENDED } from './repositories/workflow-runs.js';
export type {
  WorkflowStepsRepository,
  WorkflowStepStartInput,
  WorkflowStepPatch,
  WorkflowStepChanges,
} from './repositories/workflow-steps.js';
export type {
  ApprovalsRepository,
  ApprovalCreateInput,
  ApprovalDecision,
  ApprovalFilter,
} from './repositories/approvals.js';
export type {
  SchedulesRepository,
  ScheduleSpec,
  ScheduleTarget,
  ScheduleFilter,
  ScheduleFired,
} from './repositories/schedules.js';
export { LeasesRepository } from './repositories/leases.js';
export type {
  NotificationLogsRepository,
  NotificationLogInput,
  NotificationLogFilter,
} from './repositories/notification-logs.js';
export type {
  AuditLogRepository,
  AuditLogInput,
  AuditLogFilter,
} from './repositories/audit-log.js';
export type { SettingsRepository } from './repositories/settings.js';
export type {
  CodingSessionsRepository,
  CodingSessionCreateInput,
  CodingSessionPatch,
  CodingSessionFilter,
  CodingSessionClose,
} from './repositories/coding-sessions.js';
export { spanRunIdOf } from './repositories/spans.js';
export type {
  SpansRepository,
  SpanRecord,
  SpanEventRecord,
  SpanPrune,
  SpanStats,
  TraceSearch,
  TraceSummary,
} from './repositories/spans.js';
