// The whole Junction schema. drizzle-kit reads this file to generate `drizzle/*.sql`;
// keep it free of relative imports so the generator can load it on its own.
import { sql } from 'drizzle-orm';
import {
  type AnySQLiteColumn,
  check,
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/sqlite-core';

/** A value that survives JSON.stringify / JSON.parse unchanged. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };

/** What the MCP spec lets a server say of a tool's behaviour (all hints, none binding). */
export interface ToolAnnotations {
  readOnlyHint?: boolean;
  idempotentHint?: boolean;
  destructiveHint?: boolean;
  openWorldHint?: boolean;
}

/**
 * What a run started with (`runs.pinned`): the prompt file's text as it was, the model, and the
 * names of the tools it was given. A resumed attempt renders the same prompt from it.
 */
export interface PinnedStart {
  prompt: string;
  model: string;
  tools: string[];
}

export const RUN_STATUSES = [
  'queued',
  'running',
  'completed',
  'error',
  'timeout',
  'cancelled',
] as const;
export const RUN_SOURCES = [
  'cli',
  'mcp',
  'api',
  'webhook',
  'cron_scheduler',
  'workflow',
  'management',
] as const;
export const MCP_TRANSPORTS = ['stdio', 'http', 'sse'] as const;
export const MCP_CONFIG_STATUSES = ['pending', 'synced', 'error'] as const;
export const MCP_SERVER_STATUSES = ['pending', 'connected', 'error'] as const;
export const WORKFLOW_RUN_STATUSES = [
  'pending',
  'running',
  'waiting_approval',
  'completed',
  'failed',
  'cancelled',
  'timed_out',
] as const;
export const WORKFLOW_STEP_STATUSES = [
  'pending',
  'running',
  'completed',
  'failed',
  'waiting_approval',
  'approved',
  'rejected',
  'timed_out',
  'skipped',
] as const;
/** `cancelled`: withdrawn because its workflow run was cancelled; it can no longer be decided. */
export const APPROVAL_STATUSES = [
  'pending',
  'approved',
  'rejected',
  'timed_out',
  'cancelled',
] as const;
export const AUDIT_OUTCOMES = ['success', 'error', 'denied'] as const;

// Timestamps are integer milliseconds since the epoch, read back as Date.
const ts = (name: string) => integer(name, { mode: 'timestamp_ms' });

export const environments = sqliteTable('environments', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  name: text('name').notNull().unique(),
  description: text('description').notNull().default(''),
  lastSyncedAt: ts('last_synced_at'),
  createdAt: ts('created_at').notNull(),
  updatedAt: ts('updated_at').notNull(),
});

export const mcpConfigs = sqliteTable(
  'mcp_configs',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    environmentId: integer('environment_id')
      .notNull()
      .references(() => environments.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    path: text('path').notNull(),
    templateHash: text('template_hash'),
    status: text('status', { enum: MCP_CONFIG_STATUSES }).notNull().default('pending'),
    lastError: text('last_error'),
    lastSyncedAt: ts('last_synced_at'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [uniqueIndex('mcp_configs_environment_name_unique').on(t.environmentId, t.name)],
);

export const mcpServers = sqliteTable(
  'mcp_servers',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    environmentId: integer('environment_id')
      .notNull()
      .references(() => environments.id, { onDelete: 'cascade' }),
    // A server exists because a template file declares it; dropping the file drops the server.
    configId: integer('config_id').references(() => mcpConfigs.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    transport: text('transport', { enum: MCP_TRANSPORTS }).notNull(),
    command: text('command'),
    args: text('args', { mode: 'json' })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    env: text('env', { mode: 'json' })
      .$type<Record<string, string>>()
      .notNull()
      .default(sql`'{}'`),
    cwd: text('cwd'),
    url: text('url'),
    headers: text('headers', { mode: 'json' })
      .$type<Record<string, string>>()
      .notNull()
      .default(sql`'{}'`),
    status: text('status', { enum: MCP_SERVER_STATUSES }).notNull().default('pending'),
    lastError: text('last_error'),
    lastSyncedAt: ts('last_synced_at'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('mcp_servers_environment_name_unique').on(t.environmentId, t.name),
    index('mcp_servers_config_idx').on(t.configId),
  ],
);

export const tools = sqliteTable(
  'tools',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    serverId: integer('server_id')
      .notNull()
      .references(() => mcpServers.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    inputSchema: text('input_schema', { mode: 'json' })
      .$type<Record<string, unknown>>()
      .notNull()
      .default(sql`'{}'`),
    // What the server says of the tool's behaviour (MCP tool annotations: readOnlyHint,
    // idempotentHint, …); a resumed run calls a tool again only when it is safe to repeat.
    annotations: text('annotations', { mode: 'json' }).$type<ToolAnnotations>(),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [uniqueIndex('tools_server_name_unique').on(t.serverId, t.name)],
);

export const agents = sqliteTable(
  'agents',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    environmentId: integer('environment_id')
      .notNull()
      .references(() => environments.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    model: text('model'),
    maxSteps: integer('max_steps'),
    promptPath: text('prompt_path'),
    frontMatter: text('front_matter', { mode: 'json' })
      .$type<Record<string, unknown>>()
      .notNull()
      .default(sql`'{}'`),
    scheduleCron: text('schedule_cron'),
    scheduleEnabled: integer('schedule_enabled', { mode: 'boolean' }).notNull().default(false),
    scheduleVariables: text('schedule_variables', { mode: 'json' })
      .$type<Record<string, string>>()
      .notNull()
      .default(sql`'{}'`),
    codingEnabled: integer('coding_enabled', { mode: 'boolean' }).notNull().default(false),
    codingBackend: text('coding_backend'),
    codingWorkspacePath: text('coding_workspace_path'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [uniqueIndex('agents_environment_name_unique').on(t.environmentId, t.name)],
);

export const agentTools = sqliteTable(
  'agent_tools',
  {
    agentId: integer('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    toolId: integer('tool_id')
      .notNull()
      .references(() => tools.id, { onDelete: 'cascade' }),
  },
  (t) => [
    primaryKey({ columns: [t.agentId, t.toolId] }),
    index('agent_tools_tool_idx').on(t.toolId),
  ],
);

export const agentAgents = sqliteTable(
  'agent_agents',
  {
    agentId: integer('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    subAgentId: integer('sub_agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
  },
  (t) => [
    primaryKey({ columns: [t.agentId, t.subAgentId] }),
    index('agent_agents_sub_agent_idx').on(t.subAgentId),
    check('agent_agents_not_self', sql`${t.agentId} <> ${t.subAgentId}`),
  ],
);

export const runs = sqliteTable(
  'runs',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    // Run history outlives the agent row (a sync may drop it); agent_name keeps the record readable.
    agentId: integer('agent_id').references(() => agents.id, { onDelete: 'set null' }),
    agentName: text('agent_name').notNull(),
    environmentId: integer('environment_id').references(() => environments.id, {
      onDelete: 'set null',
    }),
    status: text('status', { enum: RUN_STATUSES }).notNull().default('queued'),
    task: text('task').notNull(),
    variables: text('variables', { mode: 'json' })
      .$type<Record<string, string>>()
      .notNull()
      .default(sql`'{}'`),
    source: text('source', { enum: RUN_SOURCES }).notNull(),
    parentRunId: integer('parent_run_id').references((): AnySQLiteColumn => runs.id, {
      onDelete: 'set null',
    }),
    stepsTaken: integer('steps_taken').notNull().default(0),
    inputTokens: integer('input_tokens').notNull().default(0),
    outputTokens: integer('output_tokens').notNull().default(0),
    model: text('model'),
    finalResponse: text('final_response'),
    error: text('error'),
    traceId: text('trace_id'),
    // The W3C traceparent of the span that started it (a workflow step): its spans nest there.
    traceParent: text('trace_parent'),
    idempotencyKey: text('idempotency_key').unique(),
    // The run's own time limit, asked for by whoever submitted it; null: the agent's or the config's.
    timeoutMs: integer('timeout_ms'),
    // When the run started its first tool call or sub-agent, written before that call is made:
    // from then on it may have had effects outside Junction, and is resumed from its journal.
    actedAt: ts('acted_at'),
    // Attempts started (each claim of the run is one); a run that keeps dying ends at the limit.
    attempt: integer('attempt').notNull().default(0),
    // What the run started with, written before its first tool call: a resumed attempt goes on
    // with the same prompt, model and tools even if the prompt file changed meanwhile.
    pinned: text('pinned', { mode: 'json' }).$type<PinnedStart>(),
    queuedAt: ts('queued_at').notNull(),
    startedAt: ts('started_at'),
    completedAt: ts('completed_at'),
    workerId: text('worker_id'),
    leaseExpiresAt: ts('lease_expires_at'),
    // When someone asked a running run to stop: its worker sees it at its next look (about a
    // second) and ends the run `cancelled` once the tool call in flight returns.
    cancelRequestedAt: ts('cancel_requested_at'),
    // What started it, beyond its source and parent: a workflow run's step, a schedule's fire,
    // the management platform's run. Data to query by, never read back out of the idempotency key.
    originWorkflowRunId: integer('origin_workflow_run_id'),
    originWorkflowStep: text('origin_workflow_step'),
    originScheduleId: integer('origin_schedule_id'),
    originPlatformRunId: text('origin_platform_run_id'),
  },
  (t) => [
    index('runs_status_queued_idx').on(t.status, t.queuedAt),
    // Only runs a workflow run started are in it: its cancel finds them.
    index('runs_origin_workflow_run_idx')
      .on(t.originWorkflowRunId)
      .where(sql`${t.originWorkflowRunId} IS NOT NULL`),
    // Only runs asked to stop are in it: a worker's look at its own costs nothing.
    index('runs_cancel_requested_idx')
      .on(t.workerId)
      .where(sql`${t.cancelRequestedAt} IS NOT NULL`),
    index('runs_agent_idx').on(t.agentId),
    index('runs_agent_name_idx').on(t.agentName),
    index('runs_queued_at_idx').on(t.queuedAt),
    index('runs_parent_idx').on(t.parentRunId),
    // Finished runs in the order they finished: the management platform's run reports.
    index('runs_completed_idx').on(t.completedAt, t.id),
  ],
);

export const runEvents = sqliteTable(
  'run_events',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    runId: integer('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    type: text('type').notNull(),
    payload: text('payload', { mode: 'json' }).$type<unknown>(),
    // What a resumed run needs of the event (a model turn's whole answer, a tool call's whole
    // result), secrets redacted; the payload is the event as people read it (long texts cut).
    journal: text('journal', { mode: 'json' }).$type<unknown>(),
    durationMs: integer('duration_ms'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [uniqueIndex('run_events_run_seq_unique').on(t.runId, t.seq)],
);

export const workflows = sqliteTable(
  'workflows',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    environmentId: integer('environment_id')
      .notNull()
      .references(() => environments.id, { onDelete: 'cascade' }),
    workflowId: text('workflow_id').notNull(),
    name: text('name').notNull(),
    definition: text('definition', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    path: text('path'),
    enabled: integer('enabled', { mode: 'boolean' }).notNull().default(true),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [uniqueIndex('workflows_environment_workflow_unique').on(t.environmentId, t.workflowId)],
);

export const workflowRuns = sqliteTable(
  'workflow_runs',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    // Like runs, history survives the definition; key and name are copied at start.
    workflowId: integer('workflow_id').references(() => workflows.id, { onDelete: 'set null' }),
    workflowKey: text('workflow_key').notNull(),
    workflowName: text('workflow_name').notNull(),
    environmentId: integer('environment_id').references(() => environments.id, {
      onDelete: 'set null',
    }),
    // The definition as it was when the run started: a later sync never changes a run midway.
    definition: text('definition', { mode: 'json' }).$type<Record<string, unknown>>(),
    status: text('status', { enum: WORKFLOW_RUN_STATUSES }).notNull().default('pending'),
    source: text('source'),
    input: text('input', { mode: 'json' }).$type<unknown>(),
    output: text('output', { mode: 'json' }).$type<unknown>(),
    error: text('error'),
    currentStep: text('current_step'),
    // Who is advancing it, until when; and when it next needs advancing (a timer, a retry's
    // backoff, an approval's deadline). A run nobody holds whose wake time has come is taken.
    workerId: text('worker_id'),
    leaseExpiresAt: ts('lease_expires_at'),
    wakeAt: ts('wake_at'),
    // How many times a worker has taken it: more than one means an advance may have been cut
    // short, so the engine looks for work it began but did not record.
    advances: integer('advances').notNull().default(0),
    timeoutAt: ts('timeout_at'),
    idempotencyKey: text('idempotency_key').unique(),
    createdAt: ts('created_at').notNull(),
    startedAt: ts('started_at'),
    completedAt: ts('completed_at'),
    // W3C traceparent of what started the run (a schedule's fire): every advance nests under it.
    traceParent: text('trace_parent'),
  },
  (t) => [
    index('workflow_runs_workflow_idx').on(t.workflowId),
    index('workflow_runs_wake_idx').on(t.status, t.wakeAt),
  ],
);

export const workflowSteps = sqliteTable(
  'workflow_steps',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    workflowRunId: integer('workflow_run_id')
      .notNull()
      .references(() => workflowRuns.id, { onDelete: 'cascade' }),
    // Where in the definition: the state id, under its branch or iteration, with its visit
    // number (a switch may loop back), e.g. `fetch#1` or `checks.0.scan#1`.
    path: text('path').notNull().default(''),
    attempt: integer('attempt').notNull().default(1),
    stepName: text('step_name').notNull(),
    type: text('type').notNull(),
    status: text('status', { enum: WORKFLOW_STEP_STATUSES }).notNull().default('pending'),
    input: text('input', { mode: 'json' }).$type<unknown>(),
    output: text('output', { mode: 'json' }).$type<unknown>(),
    error: text('error'),
    // The agent run an agent step started (a resumed step waits on it instead of starting one).
    runId: integer('run_id').references(() => runs.id, { onDelete: 'set null' }),
    approvalId: text('approval_id'),
    wakeAt: ts('wake_at'),
    startedAt: ts('started_at'),
    completedAt: ts('completed_at'),
  },
  (t) => [uniqueIndex('workflow_steps_attempt_unique').on(t.workflowRunId, t.path, t.attempt)],
);

export const approvals = sqliteTable(
  'approvals',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    approvalId: text('approval_id').notNull().unique(),
    workflowRunId: integer('workflow_run_id')
      .notNull()
      .references(() => workflowRuns.id, { onDelete: 'cascade' }),
    stepName: text('step_name').notNull(),
    stepPath: text('step_path'),
    message: text('message').notNull().default(''),
    approvers: text('approvers', { mode: 'json' })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    status: text('status', { enum: APPROVAL_STATUSES }).notNull().default('pending'),
    timeoutSeconds: integer('timeout_seconds'),
    decidedBy: text('decided_by'),
    comment: text('comment'),
    createdAt: ts('created_at').notNull(),
    decidedAt: ts('decided_at'),
    expiresAt: ts('expires_at'),
    // When the approval.requested webhook was handed over (its attempts are notification_logs).
    notifiedAt: ts('notified_at'),
  },
  (t) => [
    index('approvals_status_expires_idx').on(t.status, t.expiresAt),
    index('approvals_workflow_run_idx').on(t.workflowRunId),
  ],
);

export const SCHEDULE_KINDS = ['agent', 'workflow'] as const;
export type ScheduleKind = (typeof SCHEDULE_KINDS)[number];
/** Where a schedule came from: a file's `schedule:`/`cron` (sync keeps it), or an operator. */
export const SCHEDULE_ORIGINS = ['file', 'operator'] as const;
export type ScheduleOrigin = (typeof SCHEDULE_ORIGINS)[number];
/** A fire missed while no process ran: fire once on start-up, or skip to the next time. */
export const SCHEDULE_CATCH_UPS = ['once', 'skip'] as const;
export type ScheduleCatchUp = (typeof SCHEDULE_CATCH_UPS)[number];
/** A fire while the previous run still goes: skip it, or start it anyway (one waiting at most). */
export const SCHEDULE_OVERLAPS = ['skip', 'queue'] as const;
export type ScheduleOverlap = (typeof SCHEDULE_OVERLAPS)[number];
/** How a schedule's last fire went. */
export const SCHEDULE_OUTCOMES = ['started', 'skipped', 'missed', 'failed'] as const;
export type ScheduleOutcome = (typeof SCHEDULE_OUTCOMES)[number];

export const schedules = sqliteTable(
  'schedules',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    kind: text('kind', { enum: SCHEDULE_KINDS }).notNull().default('agent'),
    /** The agent it runs (kind agent). */
    agentId: integer('agent_id')
      .unique()
      .references(() => agents.id, { onDelete: 'cascade' }),
    /** The workflow it starts (kind workflow). */
    workflowId: integer('workflow_id')
      .unique()
      .references(() => workflows.id, { onDelete: 'cascade' }),
    environmentId: integer('environment_id').references(() => environments.id, {
      onDelete: 'cascade',
    }),
    /** The agent's name or the workflow's id, as lists show it. */
    target: text('target').notNull().default(''),
    cron: text('cron').notNull(),
    /** IANA time zone the cron is read in; null: the process's own. */
    timezone: text('timezone'),
    enabled: integer('enabled', { mode: 'boolean' }).notNull().default(true),
    /** The task of an agent's run; null: the agent's default task. */
    task: text('task'),
    variables: text('variables', { mode: 'json' })
      .$type<Record<string, string>>()
      .notNull()
      .default(sql`'{}'`),
    /** A workflow run's input. */
    input: text('input', { mode: 'json' }).$type<Record<string, unknown>>(),
    origin: text('origin', { enum: SCHEDULE_ORIGINS }).notNull().default('file'),
    catchUp: text('catch_up', { enum: SCHEDULE_CATCH_UPS }).notNull().default('once'),
    overlap: text('overlap', { enum: SCHEDULE_OVERLAPS }).notNull().default('skip'),
    lastRunAt: ts('last_run_at'),
    nextRunAt: ts('next_run_at'),
    lastOutcome: text('last_outcome', { enum: SCHEDULE_OUTCOMES }),
    lastError: text('last_error'),
    /** The run (kind agent) or workflow run (kind workflow) the last fire started. */
    lastRunId: integer('last_run_id'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [index('schedules_due_idx').on(t.enabled, t.nextRunAt)],
);

/** Which coding server backs a coding session. */
export const CODING_SESSION_BACKENDS = ['opencode-nats', 'opencode'] as const;
export type CodingSessionBackend = (typeof CODING_SESSION_BACKENDS)[number];
/** A coding session is open until someone closes it; a closed one never opens again. */
export const CODING_SESSION_STATUSES = ['open', 'closed'] as const;
export type CodingSessionStatus = (typeof CODING_SESSION_STATUSES)[number];

/** Coding sessions agents open on a coding server (open → closed), kept across restarts. */
export const codingSessions = sqliteTable(
  'coding_sessions',
  {
    /** The id the model is given, e.g. `cs-1a2b3c4d5e6f`; the caller makes it. */
    id: text('id').primaryKey(),
    backend: text('backend', { enum: CODING_SESSION_BACKENDS }).notNull(),
    status: text('status', { enum: CODING_SESSION_STATUSES }).notNull().default('open'),
    /** The run that opened it; history outlives the run. */
    runId: integer('run_id').references(() => runs.id, { onDelete: 'set null' }),
    // Like runs, the agent's name keeps the record readable after the agent row goes.
    agentId: integer('agent_id').references(() => agents.id, { onDelete: 'set null' }),
    agentName: text('agent_name').notNull().default(''),
    title: text('title'),
    repoUrl: text('repo_url'),
    branch: text('branch'),
    workspaceName: text('workspace_name').notNull(),
    workspacePath: text('workspace_path'),
    /** The coding server's own id of the session. */
    backendSessionId: text('backend_session_id'),
    messageCount: integer('message_count').notNull().default(0),
    lastCommit: text('last_commit'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    closedAt: ts('closed_at'),
  },
  (t) => [
    index('coding_sessions_status_idx').on(t.status),
    index('coding_sessions_run_idx').on(t.runId),
  ],
);

/**
 * Spans of the traces Junction keeps itself: written by the OTLP receiver and the in-process
 * exporter, pruned by age and by a size cap. A re-sent export hits the primary key and is
 * skipped, so receiving a batch twice stores it once.
 */
export const spans = sqliteTable(
  'spans',
  {
    /** 32 lowercase hex digits. */
    traceId: text('trace_id').notNull(),
    /** 16 lowercase hex digits. */
    spanId: text('span_id').notNull(),
    parentSpanId: text('parent_span_id'),
    name: text('name').notNull(),
    /** OTLP SpanKind: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
    kind: integer('kind').notNull(),
    serviceName: text('service_name').notNull(),
    scopeName: text('scope_name'),
    /** Microseconds since the epoch: milliseconds would fold the short spans of one turn together. */
    startUs: integer('start_us').notNull(),
    durationUs: integer('duration_us').notNull(),
    /** OTLP status: 0 unset, 1 ok, 2 error. */
    statusCode: integer('status_code').notNull(),
    statusMessage: text('status_message'),
    attributes: text('attributes', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    events: text('events', { mode: 'json' }).$type<unknown[]>().notNull(),
    resource: text('resource', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    // No foreign key: spans may name runs of another store, and outlive or precede their run row.
    runId: integer('run_id'),
    /** Bytes of the JSON texts and the name: what the size cap of retention counts. */
    sizeBytes: integer('size_bytes').notNull(),
    receivedAt: ts('received_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.traceId, t.spanId] }),
    index('spans_start_idx').on(t.startUs),
    index('spans_run_idx').on(t.runId),
    index('spans_service_start_idx').on(t.serviceName, t.startUs),
  ],
);

/** Named leases: one holder at a time (the scheduler's), taken over when it runs out. */
export const leases = sqliteTable('leases', {
  name: text('name').primaryKey(),
  owner: text('owner').notNull(),
  expiresAt: ts('expires_at').notNull(),
  acquiredAt: ts('acquired_at').notNull(),
});

export const notificationLogs = sqliteTable(
  'notification_logs',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    eventType: text('event_type').notNull(),
    url: text('url').notNull(),
    payload: text('payload', { mode: 'json' }).$type<unknown>(),
    attempt: integer('attempt').notNull().default(1),
    responseStatus: integer('response_status'),
    error: text('error'),
    durationMs: integer('duration_ms'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('notification_logs_created_idx').on(t.createdAt)],
);

export const auditLog = sqliteTable(
  'audit_log',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    at: ts('at').notNull(),
    actor: text('actor'),
    source: text('source').notNull(),
    transport: text('transport'),
    action: text('action').notNull(),
    // Callers redact secrets before they get here; the store writes what it is given.
    arguments: text('arguments', { mode: 'json' }).$type<unknown>(),
    outcome: text('outcome', { enum: AUDIT_OUTCOMES }).notNull(),
    durationMs: integer('duration_ms'),
    details: text('details', { mode: 'json' }).$type<unknown>(),
  },
  (t) => [index('audit_log_at_idx').on(t.at), index('audit_log_source_idx').on(t.source, t.at)],
);

export const settings = sqliteTable('settings', {
  key: text('key').primaryKey(),
  value: text('value', { mode: 'json' }).$type<JsonValue>(),
  updatedAt: ts('updated_at').notNull(),
});
