// The response bodies of the REST API as zod schemas, published under components/schemas of
// the OpenAPI document: the handlers' types are inferred from them, so neither can drift. A
// request body's schema lives beside its route (routes/*.ts).
import type { FireOutcome, ScheduleView } from '@junction/scheduler';
import {
  RUN_SOURCES,
  RUN_STATUSES,
  SCHEDULE_CATCH_UPS,
  SCHEDULE_KINDS,
  SCHEDULE_ORIGINS,
  SCHEDULE_OUTCOMES,
  SCHEDULE_OVERLAPS,
} from '@junction/store';
import { z } from 'zod';
import { WORKFLOW_COMPONENT_SCHEMAS } from './workflow-schemas.js';
import {
  mcpServerListSchema,
  traceListSchema,
  traceSchema,
  traceServicesSchema,
} from './trace-schemas.js';

const id = z.int().min(1);
const count = z.int().min(0);
const timestamp = z.iso.datetime().describe('ISO 8601 UTC timestamp');

/** Every error answer: `{error: {code, message, details?}}`. */
export const errorSchema = z
  .object({
    error: z.object({
      code: z.string().describe('Stable upper-case code, e.g. AGENT_NOT_FOUND'),
      message: z.string().describe('What went wrong and what to do about it'),
      details: z
        .record(z.string(), z.unknown())
        .optional()
        .describe('JSON-safe context, e.g. {"field": "limit", "value": "abc"}'),
    }),
  })
  .describe('An error answer');

export const agentSchema = z
  .object({
    id,
    name: z.string(),
    environment: z.string().describe('Environment name'),
    environment_id: id,
    description: z.string(),
    model: z.string().nullable().describe('provider/model, or null for the configured ai_model'),
    max_steps: z.int().nullable(),
    prompt_path: z.string().nullable().describe('The prompt file on the server'),
    tools: z.array(
      z.object({
        name: z.string(),
        server: z.string().describe('MCP server the tool comes from'),
        description: z.string().nullable(),
      }),
    ),
    sub_agents: z.array(z.string()).describe('Agents of the same environment callable as tools'),
    schedule: z.object({ cron: z.string(), enabled: z.boolean() }).nullable(),
    coding_enabled: z.boolean(),
    updated_at: timestamp,
  })
  .describe('An agent');

const page = {
  total: count.describe('How many records match the filters (paging ignored)'),
  limit: z.int().min(1).describe('The page size used'),
  offset: count.describe('Records skipped'),
};

export const agentListSchema = z
  .object({ items: z.array(agentSchema), ...page })
  .describe('A page of agents, by environment id then name');

export const runSchema = z
  .object({
    run_id: id,
    agent_id: z.int().nullable().describe('null once the agent was deleted'),
    agent_name: z.string(),
    environment_id: z.int().nullable(),
    status: z.enum(RUN_STATUSES),
    source: z.enum(RUN_SOURCES).describe('What started the run (api for this API)'),
    parent_run_id: z.int().nullable().describe('The run that called this one as a sub-agent'),
    model: z.string().nullable(),
    steps_taken: count,
    input_tokens: count,
    output_tokens: count,
    cost_usd: z
      .number()
      .min(0)
      .nullable()
      .describe(
        "USD of the run's tokens at its model's price (config.yaml pricing, else the built-in list prices), rounded to 6 decimals; null when the model has no known price",
      ),
    duration_ms: z.int().nullable().describe('completed_at - started_at; null until finished'),
    task: z.string(),
    final_response: z.string().nullable(),
    error: z.string().nullable(),
    trace_id: z.string().nullable(),
    queued_at: timestamp,
    started_at: timestamp.nullable(),
    completed_at: timestamp.nullable(),
    cancel_requested_at: timestamp
      .nullable()
      .describe('When someone asked it to stop; a running run ends cancelled soon after'),
    attempt: count.describe(
      'Attempts started: more than 1 when the run was interrupted and resumed (docs/runs.md)',
    ),
    origin: z
      .object({
        workflow_run_id: z.int().nullable().describe('The workflow run whose step started it'),
        workflow_step: z
          .string()
          .nullable()
          .describe("That step's path: its state id and attempt (build#1)"),
        schedule_id: z.int().nullable().describe('The schedule whose fire started it'),
        platform_run_id: z
          .string()
          .nullable()
          .describe("The management platform's run id it was started for"),
      })
      .nullable()
      .describe('What started it besides its caller; null for none (a sub-agent: parent_run_id)'),
  })
  .describe('A run');

export const attemptSchema = z
  .object({
    attempt: z.int().min(1),
    worker_id: z.string().nullable().describe('The worker (host:pid:id) that ran it'),
    started_at: timestamp.nullable(),
    resumed_from_step: z
      .int()
      .nullable()
      .describe('The first step it asked the model; the steps before came from the journal'),
    ended_at: timestamp.nullable(),
    end_reason: z
      .string()
      .nullable()
      .describe("process lost, lease lost or graceful stop; null when its end was the run's"),
  })
  .describe('One attempt of a run');

export const runListSchema = z
  .object({ items: z.array(runSchema), ...page })
  .describe('A page of runs, newest first');

export const runEventSchema = z
  .object({
    seq: z.int().min(1),
    type: z.string().describe('model_turn, tool_call, sub_agent, run_error, …'),
    duration_ms: z.int().nullable(),
    created_at: timestamp,
    payload: z
      .unknown()
      .describe('The event as the runner recorded it (secret-looking keys redacted)'),
  })
  .describe('One event of a run');

const variables = z
  .record(z.string(), z.string())
  .describe('Template variables of the run (values of secret-looking names redacted)');

export const runDetailSchema = z
  .object({
    ...runSchema.shape,
    variables,
    attempts: z.array(attemptSchema).describe('Its attempts, in order (docs/runs.md)'),
    event_count: count,
    events: z
      .array(runEventSchema)
      .optional()
      .describe('Present with ?verbose=true: the first 10000 events in order'),
  })
  .describe('A run with its variables (and events when verbose)');

export const queuedRunSchema = z
  .object({
    ...runSchema.shape,
    variables,
    message: z.string().describe('Where to follow the run'),
  })
  .describe('The run just queued; status is queued (or running when a worker took it at once)');

export const environmentSchema = z
  .object({
    id,
    name: z.string(),
    agents: count,
    mcp_configs: count,
    mcp_servers: count,
    tools: count,
    last_synced_at: timestamp.nullable(),
  })
  .describe('An environment with the number of things synced into it');

export const environmentListSchema = z
  .object({ items: z.array(environmentSchema), ...page })
  .describe('A page of environments, by name');

/** What `scheduler` reports in /health. */
export const SCHEDULER_STATES = ['running', 'standby', 'stopped', 'disabled'] as const;
const scheduler = z
  .enum(SCHEDULER_STATES)
  .describe(
    'running: this process holds the scheduler lease and fires due schedules; standby: another process sharing the store holds it (this one takes over if it stops); stopped: not started yet, or shutting down; disabled: this process runs no scheduler (it executes no runs)',
  );

/** What `management` reports in /health. */
export const MANAGEMENT_STATES = ['connected', 'connecting', 'disabled', 'error'] as const;
const management = z
  .enum(MANAGEMENT_STATES)
  .describe(
    'The management platform channel of this process: connected (registered), connecting (registering, or reconnecting after a loss), disabled (management.enabled is false, or this process holds no channel), error (the platform refused the key or disconnected this station for good, or the settings are unusable; see the log line "failed to connect to …")',
  );

const traces = z
  .object({
    export: z
      .string()
      .describe(
        "Where this process's spans go: `local store` (kept by Junction, see the viewer), the OTLP URL of otel_endpoint, or `nowhere`",
      ),
    receiver: z
      .string()
      .nullable()
      .describe('The OTLP/HTTP receiver this process serves (…/v1/traces), or null'),
    viewer: z.string().nullable().describe('The trace viewer this process serves, or null'),
  })
  .describe('Where traces go and where to look at them');

const queue = z
  .object({
    bus: z
      .string()
      .nullable()
      .describe(
        'The NATS server (JetStream) runs are announced on, secrets masked; null: workers find runs by polling the store',
      ),
    connected: z.boolean().describe('Whether this process is connected to it now'),
  })
  .describe('How queued work reaches the workers of every host');

const workers = z
  .object({
    runs: count.describe('Runs this process may execute at once; 0: it only accepts runs'),
    in_flight: count.describe('Runs executing in this process now'),
    workflows: z.boolean().describe('Whether this process advances workflow runs'),
  })
  .describe('What this process works on');

const healthCommon = {
  version: z.string(),
  uptime: z.string().describe('Human-readable time since start, e.g. "2h 3m 4s"'),
  scheduler,
  management,
  traces,
  workers,
  queue,
};

export const healthSchema = z
  .object({
    status: z.literal('healthy'),
    ...healthCommon,
    agents: count.describe('Agents in the store'),
    mcp_servers: count.describe('MCP servers configured in the store'),
    database: z.literal('ok'),
  })
  .describe('The service is up and its database answers');

export const unhealthySchema = z
  .object({
    status: z.literal('unhealthy'),
    ...healthCommon,
    agents: count.nullable().describe('null when the database cannot be read'),
    mcp_servers: count.nullable(),
    database: z.string().describe('Why the database check failed'),
  })
  .describe('The database cannot be reached');

const json = z.unknown();

// ---- schedules ----

/** A schedule: @junction/scheduler's `scheduleView`, the one view every surface answers with. */
export const scheduleSchema = z
  .object({
    id,
    kind: z.enum(SCHEDULE_KINDS).describe('What it fires: an agent run or a workflow run'),
    target: z.string().describe("The agent's name or the workflow's id in its file"),
    agent_id: z.int().nullable().describe('The agent it runs (kind agent)'),
    workflow_id: z.int().nullable().describe('The row id of the workflow it runs (kind workflow)'),
    environment_id: z.int().nullable(),
    cron: z.string().describe('5 fields (minute hour day month weekday), or 6 with seconds first'),
    timezone: z
      .string()
      .nullable()
      .describe('IANA time zone of the cron; null: the time zone of the process that fires it'),
    enabled: z.boolean(),
    task: z.string().nullable().describe("The agent run's task; null: the scheduler's default"),
    variables: z
      .record(z.string(), z.string())
      .describe('Variables of each agent run (values of secret-looking names redacted)'),
    input: z
      .record(z.string(), json)
      .nullable()
      .describe('Input of each workflow run (secret-looking keys redacted)'),
    origin: z
      .enum(SCHEDULE_ORIGINS)
      .describe('file: from the agent or workflow file; operator: set here, kept by sync'),
    catch_up: z
      .enum(SCHEDULE_CATCH_UPS)
      .describe('A fire missed while no scheduler ran: once (fire it once) or skip'),
    overlap: z
      .enum(SCHEDULE_OVERLAPS)
      .describe('A fire while the previous run still runs: skip, or queue another run'),
    next_run_at: timestamp.nullable().describe('The next fire; null when disabled'),
    last_run_at: timestamp.nullable(),
    last_outcome: z.enum(SCHEDULE_OUTCOMES).nullable(),
    last_error: z.string().nullable(),
    last_run_id: z.int().nullable().describe('The run (or workflow run) the last fire started'),
  })
  .describe('A schedule of an agent or workflow');

export const scheduleListSchema = z
  .object({ items: z.array(scheduleSchema), ...page })
  .describe('A page of schedules, soonest next fire first (disabled ones last)');

export const scheduleRunAnswerSchema = z
  .object({
    schedule: scheduleSchema,
    outcome: z
      .enum(SCHEDULE_OUTCOMES)
      .describe(
        'started: its run was started; skipped: its previous run is still going (overlap skip); failed: the run could not start (error says why)',
      ),
    run_id: z
      .int()
      .min(1)
      .optional()
      .describe('The run (agent) or workflow run (workflow) it started'),
    error: z.string().optional().describe('Why it did not start a run'),
  })
  .describe('A schedule fired now');

export type ErrorResponse = z.infer<typeof errorSchema>;
export type AgentBody = z.infer<typeof agentSchema>;
export type AgentListBody = z.infer<typeof agentListSchema>;
export type RunBody = z.infer<typeof runSchema>;
export type RunListBody = z.infer<typeof runListSchema>;
export type RunEventBody = z.infer<typeof runEventSchema>;
export type RunDetailBody = z.infer<typeof runDetailSchema>;
export type QueuedRunBody = z.infer<typeof queuedRunSchema>;
export type EnvironmentBody = z.infer<typeof environmentSchema>;
export type EnvironmentListBody = z.infer<typeof environmentListSchema>;
export type HealthBody = z.infer<typeof healthSchema>;
export type UnhealthyBody = z.infer<typeof unhealthySchema>;
export type SchedulerState = (typeof SCHEDULER_STATES)[number];
export type ManagementState = (typeof MANAGEMENT_STATES)[number];
export type TracesHealthBody = z.infer<typeof traces>;
export type WorkersHealthBody = z.infer<typeof workers>;
export type QueueHealthBody = z.infer<typeof queue>;
export type ScheduleBody = z.infer<typeof scheduleSchema>;
export type ScheduleListBody = z.infer<typeof scheduleListSchema>;
export type ScheduleRunAnswerBody = z.infer<typeof scheduleRunAnswerSchema>;

// The published schema and the scheduler's view must agree both ways (a drift does not compile).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const viewsAgree: Same<ScheduleBody, ScheduleView> = true;
const outcomesAgree: Same<ScheduleRunAnswerBody['outcome'], FireOutcome['outcome']> = true;
void viewsAgree;
void outcomesAgree;

/** The schemas published under components/schemas of the OpenAPI document, by name. */
export const COMPONENT_SCHEMAS = {
  Error: errorSchema,
  Agent: agentSchema,
  AgentList: agentListSchema,
  Run: runSchema,
  RunList: runListSchema,
  RunEvent: runEventSchema,
  RunDetail: runDetailSchema,
  QueuedRun: queuedRunSchema,
  Environment: environmentSchema,
  EnvironmentList: environmentListSchema,
  Health: healthSchema,
  Unhealthy: unhealthySchema,
  ...WORKFLOW_COMPONENT_SCHEMAS,
  Schedule: scheduleSchema,
  ScheduleList: scheduleListSchema,
  ScheduleRunAnswer: scheduleRunAnswerSchema,
  McpServerList: mcpServerListSchema,
  TraceList: traceListSchema,
  Trace: traceSchema,
  TraceServices: traceServicesSchema,
} as const;

/** Components only the workflow routes use: published when the router serves them. */
export const WORKFLOW_COMPONENTS: ReadonlySet<ComponentName> = new Set<ComponentName>(
  Object.keys(WORKFLOW_COMPONENT_SCHEMAS) as (keyof typeof WORKFLOW_COMPONENT_SCHEMAS)[],
);

export type ComponentName = keyof typeof COMPONENT_SCHEMAS;
