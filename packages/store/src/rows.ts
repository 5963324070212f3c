// Row types, inferred from the drizzle schema so the SQL and the TypeScript cannot drift.
import type {
  agents,
  approvals,
  auditLog,
  codingSessions,
  environments,
  mcpConfigs,
  mcpServers,
  notificationLogs,
  runEvents,
  runs,
  schedules,
  leases,
  settings,
  tools,
  workflowRuns,
  workflowSteps,
  workflows,
  APPROVAL_STATUSES,
  AUDIT_OUTCOMES,
  MCP_CONFIG_STATUSES,
  MCP_SERVER_STATUSES,
  MCP_TRANSPORTS,
  RUN_SOURCES,
  RUN_STATUSES,
  WORKFLOW_RUN_STATUSES,
  WORKFLOW_STEP_STATUSES,
} from './schema.js';

export type Environment = typeof environments.$inferSelect;
export type McpConfig = typeof mcpConfigs.$inferSelect;
export type McpServer = typeof mcpServers.$inferSelect;
export type Tool = typeof tools.$inferSelect;
export type Agent = typeof agents.$inferSelect;
export type Run = typeof runs.$inferSelect;
export type RunEvent = typeof runEvents.$inferSelect;
export type Workflow = typeof workflows.$inferSelect;
export type WorkflowRun = typeof workflowRuns.$inferSelect;
export type WorkflowStep = typeof workflowSteps.$inferSelect;
export type Approval = typeof approvals.$inferSelect;
export type Schedule = typeof schedules.$inferSelect;
export type Lease = typeof leases.$inferSelect;
export type NotificationLog = typeof notificationLogs.$inferSelect;
export type AuditLogEntry = typeof auditLog.$inferSelect;
export type Setting = typeof settings.$inferSelect;
export type CodingSession = typeof codingSessions.$inferSelect;

export type RunStatus = (typeof RUN_STATUSES)[number];
export type RunSource = (typeof RUN_SOURCES)[number];
export type McpTransport = (typeof MCP_TRANSPORTS)[number];
export type McpConfigStatus = (typeof MCP_CONFIG_STATUSES)[number];
export type McpServerStatus = (typeof MCP_SERVER_STATUSES)[number];
export type WorkflowRunStatus = (typeof WORKFLOW_RUN_STATUSES)[number];
export type WorkflowStepStatus = (typeof WORKFLOW_STEP_STATUSES)[number];
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];
