// The request and response bodies of the REST API as zod schemas: the handlers' types are
// inferred from them and the OpenAPI document is generated from them, so neither can drift.
import { hasControlCharacter, MAX_INPUT_DEPTH } from '@junction/config-templates';
import type { FireOutcome, ScheduleView } from '@junction/scheduler';
import {
  APPROVAL_STATUSES,
  RUN_SOURCES,
  RUN_STATUSES,
  SCHEDULE_CATCH_UPS,
  SCHEDULE_KINDS,
  SCHEDULE_ORIGINS,
  SCHEDULE_OUTCOMES,
  SCHEDULE_OVERLAPS,
  WORKFLOW_RUN_STATUSES,
  WORKFLOW_STEP_STATUSES,
} from '@junction/store';
import { z } from 'zod';
import { refusingReservedKeys, runRequestFields } from '@junction/agent-core/runs';
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

/** The body of `POST /api/v1/agents/{agent_id}/queue`. */
export const queueRequestSchema = z
  .strictObject({
    task: runRequestFields.task.describe('What the agent should do ({{userInput}} of its prompt)'),
    variables: runRequestFields.variables
      .optional()
      .describe('Values for the prompt template variables'),
  })
  .describe('A task for the agent');

/** The body of `POST /api/v1/runs`: the agent by id, or by name with an optional environment. */
export const submitRunRequestSchema = z
  .strictObject({
    agent_id: runRequestFields.agent_id.optional().describe('The agent to run, by id'),
    agent_name: runRequestFields.agent_name
      .optional()
      .describe(
        'The agent to run, by name: in `environment` when given, else in "default", else in the one environment that has it',
      ),
    environment: runRequestFields.environment.optional().describe('Environment name of agent_name'),
    task: runRequestFields.task.describe('What the agent should do ({{userInput}} of its prompt)'),
    variables: runRequestFields.variables
      .optional()
      .describe('Values for the prompt template variables'),
    timeout_seconds: runRequestFields.timeout_seconds
      .optional()
      .describe(
        "Seconds before the run ends with status timeout (default: the agent's, else runs.timeout_seconds)",
      ),
  })
  .describe('A run of an agent named by id or name');

// ---- workflows ----

/** Paging of the workflow lists: no total (the store counts none), whether a next page exists. */
const workflowPage = {
  limit: z.int().min(1).describe('The page size used'),
  offset: count.describe('Records skipped'),
  has_more: z.boolean().describe('True when a next page exists (offset + limit)'),
};

const json = z.unknown();

export const workflowSchema = z
  .object({
    id,
    workflow_id: z.string().describe('The id in the workflow file (start runs with it)'),
    name: z.string(),
    environment: z.string().nullable().describe('Environment name'),
    enabled: z.boolean().describe('False when its file is gone or failed to sync'),
    description: z.string().describe("The definition's description, or empty"),
    version: z.string().nullable().describe("The definition's version, or null"),
    path: z.string().nullable().describe('The workflow file on the server'),
    states: count.describe('Number of top-level states'),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .describe('A workflow');

export const workflowListSchema = z
  .object({ workflows: z.array(workflowSchema), ...workflowPage })
  .describe('A page of workflows, by environment id then workflow id');

export const workflowDetailSchema = z
  .object({
    workflow: z.object({
      ...workflowSchema.shape,
      definition: z
        .record(z.string(), json)
        .describe('The definition as synced (secret-looking keys redacted)'),
    }),
  })
  .describe('A workflow with its definition');

export const workflowRunSchema = z
  .object({
    id,
    workflow_id: z.string().describe('The id of the workflow in its file'),
    workflow_name: z.string(),
    status: z.enum(WORKFLOW_RUN_STATUSES),
    input: json.describe('The input the run started with (secret-looking keys redacted)'),
    output: json.describe('The output of its last state once completed, else null'),
    error: z.string().nullable(),
    current_step: z.string().nullable().describe('The state it is at or waits in'),
    source: z.string().nullable().describe('What started it: api (this API), cli, mcp, …'),
    created_at: timestamp,
    started_at: timestamp.nullable(),
    completed_at: timestamp.nullable(),
  })
  .describe('A workflow run');

export const workflowStepSchema = z
  .object({
    id,
    name: z.string().describe('The state id'),
    path: z.string().describe('Where in the definition, e.g. fetch#1 or checks.0.scan#1'),
    attempt: z.int().min(1),
    type: z.string().describe('inject, agent, switch, transform, parallel, foreach, …'),
    status: z.enum(WORKFLOW_STEP_STATUSES),
    output: json,
    error: z.string().nullable(),
    run_id: z.int().nullable().describe('The agent run an agent step started'),
    approval_id: z.string().nullable().describe('The approval a human_approval step waits on'),
    started_at: timestamp.nullable(),
    completed_at: timestamp.nullable(),
  })
  .describe('One attempt of a step of a workflow run');

export const approvalSchema = z
  .object({
    approval_id: z.string(),
    workflow_run_id: id,
    step_name: z.string(),
    message: z.string(),
    approvers: z
      .array(z.string())
      .describe('Who may decide (send one as approver); empty: anyone with a key'),
    status: z.enum(APPROVAL_STATUSES),
    timeout_seconds: z.int().nullable(),
    decided_by: z.string().nullable(),
    comment: z.string().nullable().describe('The comment of an approval or reason of a rejection'),
    created_at: timestamp,
    decided_at: timestamp.nullable(),
    expires_at: timestamp.nullable(),
    view_url: z.string().describe('Signed link on the webhook port: the approval'),
    approve_url: z.string().describe('Signed link on the webhook port: POST to approve'),
    reject_url: z.string().describe('Signed link on the webhook port: POST to reject'),
  })
  .describe('A human approval a workflow run waits on, with its signed links');

export const workflowRunAnswerSchema = z
  .object({ workflow_run: workflowRunSchema })
  .describe('A workflow run');

export const workflowRunDetailSchema = z
  .object({
    workflow_run: workflowRunSchema,
    steps: z.array(workflowStepSchema).describe('Step attempts in the order they began'),
    approvals: z.array(approvalSchema).describe('Approvals of the run, newest first'),
  })
  .describe('A workflow run with its steps and approvals');

export const workflowRunListSchema = z
  .object({ workflow_runs: z.array(workflowRunSchema), ...workflowPage })
  .describe('A page of workflow runs, newest first');

export const approvalListSchema = z
  .object({ approvals: z.array(approvalSchema), ...workflowPage })
  .describe('A page of approvals, newest first');

export const approvalAnswerSchema = z.object({ approval: approvalSchema }).describe('An approval');

/** Longest approval comment or rejection reason. */
export const MAX_COMMENT_LENGTH = 4000;

const workflowKey = z
  .string({
    error: (issue) =>
      issue.input === undefined
        ? 'workflow_id is required: the workflow\'s id in its file, such as "incident-triage"'
        : "workflow_id must be a string: the workflow's id in its file",
  })
  .min(1, { error: 'workflow_id must not be empty' })
  .max(200, { error: 'workflow_id must be at most 200 characters' })
  .refine((text) => !hasControlCharacter(text), {
    error: 'workflow_id must not contain control characters',
  });

const startFields = {
  input: json
    .optional()
    .describe(
      `The run's input: a JSON object nested at most ${MAX_INPUT_DEPTH} levels, checked against the workflow's inputSchema by the workflow door`,
    ),
  environment: runRequestFields.environment
    .optional()
    .describe('Environment of the workflow (without it: "default", else the one that has it)'),
  idempotency_key: runRequestFields.idempotency_key
    .optional()
    .describe('A second start with the same key answers the run the first one started'),
};

/** The body of `POST /api/v1/workflows/{workflow_id}/runs` (it may be left out). */
export const startWorkflowRunRequestSchema = z
  .strictObject(startFields)
  .describe('A run of the workflow of the path');

/** The body of `POST /api/v1/workflow-runs`: the workflow named in the body. */
export const submitWorkflowRunRequestSchema = z
  .strictObject({
    workflow_id: workflowKey.describe("The workflow's id in its file"),
    ...startFields,
  })
  .describe('A run of the workflow named by workflow_id');

const comment = (field: string): z.ZodString =>
  z.string({ error: `${field} must be a string` }).max(MAX_COMMENT_LENGTH, {
    error: `${field} must be at most ${MAX_COMMENT_LENGTH} characters`,
  });

const approver = z
  .string({ error: 'approver must be a string: who decides, e.g. "alice"' })
  .max(200, { error: 'approver must be at most 200 characters' })
  .refine((text) => text.trim().length > 0, { error: 'approver must not be empty' })
  .refine((text) => !hasControlCharacter(text), {
    error: 'approver must not contain control characters',
  })
  .describe("Who decides; must be one of the approval's approvers when it lists any");

/** The body of `POST /api/v1/workflow-approvals/{approval_id}/approve` (it may be left out). */
export const approveRequestSchema = z
  .strictObject({
    comment: comment('comment').optional().describe('Why it is approved'),
    approver: approver.optional(),
  })
  .describe('An approval decision');

/** The body of `POST /api/v1/workflow-approvals/{approval_id}/reject` (it may be left out). */
export const rejectRequestSchema = z
  .strictObject({
    reason: comment('reason').optional().describe('Why it is rejected'),
    approver: approver.optional(),
  })
  .describe('A rejection');

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

const scheduleText = (field: string, what: string, max: number): z.ZodString =>
  z
    .string({ error: `${field} must be a string: ${what}` })
    .max(max, { error: `${field} must be at most ${max} characters` })
    .refine((text) => !hasControlCharacter(text), {
      error: `${field} must not contain control characters`,
    });

/** The body of `POST /api/v1/schedules`: what to schedule, and when. */
export const setScheduleRequestSchema = z
  .strictObject({
    kind: z
      .enum(SCHEDULE_KINDS, { error: `kind must be one of ${SCHEDULE_KINDS.join(', ')}` })
      .optional()
      .describe(
        'agent or workflow; without it, a name that is both an agent and a workflow is refused (409)',
      ),
    name: scheduleText('name', "the agent's name or the workflow's id", 200)
      .optional()
      .describe(
        'The agent (by name) or workflow (by the id in its file) to schedule, in `environment`',
      ),
    agent_id: runRequestFields.agent_id
      .optional()
      .describe('The agent to schedule, by id (instead of name)'),
    environment: runRequestFields.environment
      .optional()
      .describe('Environment of `name` (default "default")'),
    cron: z
      .string({
        error: (issue) =>
          issue.input === undefined
            ? 'cron is required: a cron expression such as "0 9 * * 1-5"'
            : 'cron must be a string: a cron expression such as "0 9 * * 1-5"',
      })
      .max(200, { error: 'cron must be at most 200 characters' })
      .describe('5 fields (minute hour day month weekday), or 6 with seconds first'),
    timezone: scheduleText('timezone', 'an IANA time zone such as "Europe/Paris"', 100)
      .optional()
      .describe('IANA time zone of the cron (default: the time zone of the process that fires it)'),
    enabled: z
      .boolean({ error: 'enabled must be true or false' })
      .optional()
      .describe('false: stored, but it does not fire (default true)'),
    task: runRequestFields.task
      .optional()
      .describe("Agents: the task of each run (default: the scheduler's, from the description)"),
    variables: runRequestFields.variables
      .optional()
      .describe('Agents: values for the prompt template variables of each run'),
    input: refusingReservedKeys(
      'input',
      'field',
      z.record(z.string(), json, {
        error: 'input must be a JSON object, such as {"ticket": "T-1"}',
      }),
    )
      .optional()
      .describe(
        `Workflows: the input of each run, nested at most ${MAX_INPUT_DEPTH} levels (checked against its inputSchema when it fires)`,
      ),
    catch_up: z
      .enum(SCHEDULE_CATCH_UPS, {
        error: `catch_up must be one of ${SCHEDULE_CATCH_UPS.join(', ')}`,
      })
      .optional()
      .describe('A fire missed while no scheduler ran: once (default) or skip'),
    overlap: z
      .enum(SCHEDULE_OVERLAPS, { error: `overlap must be one of ${SCHEDULE_OVERLAPS.join(', ')}` })
      .optional()
      .describe('A fire while the previous run still runs: skip (default) or queue'),
  })
  .superRefine((body, ctx) => {
    if (body.agent_id === undefined) return;
    // An id names one agent: a name, environment or workflow kind beside it could only disagree.
    const beside = (['name', 'environment'] as const).find((key) => body[key] !== undefined);
    if (beside !== undefined || body.kind === 'workflow') {
      ctx.addIssue({
        code: 'custom',
        path: ['agent_id'],
        message:
          beside !== undefined
            ? `agent_id names one agent: leave out ${beside}, or send name (and environment) without agent_id`
            : 'agent_id names an agent: a workflow schedule takes name (the workflow id) and kind "workflow"',
      });
    }
  })
  .describe('A schedule of an agent (name or agent_id) or a workflow (name), set by an operator');

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
export type QueueRequest = z.infer<typeof queueRequestSchema>;
export type SubmitRunRequest = z.infer<typeof submitRunRequestSchema>;
export type WorkflowBody = z.infer<typeof workflowSchema>;
export type WorkflowListBody = z.infer<typeof workflowListSchema>;
export type WorkflowDetailBody = z.infer<typeof workflowDetailSchema>;
export type WorkflowRunBody = z.infer<typeof workflowRunSchema>;
export type WorkflowStepBody = z.infer<typeof workflowStepSchema>;
export type ApprovalBody = z.infer<typeof approvalSchema>;
export type WorkflowRunAnswerBody = z.infer<typeof workflowRunAnswerSchema>;
export type WorkflowRunDetailBody = z.infer<typeof workflowRunDetailSchema>;
export type WorkflowRunListBody = z.infer<typeof workflowRunListSchema>;
export type ApprovalListBody = z.infer<typeof approvalListSchema>;
export type ApprovalAnswerBody = z.infer<typeof approvalAnswerSchema>;
export type StartWorkflowRunRequest = z.infer<typeof startWorkflowRunRequestSchema>;
export type SubmitWorkflowRunRequest = z.infer<typeof submitWorkflowRunRequestSchema>;
export type ApproveRequest = z.infer<typeof approveRequestSchema>;
export type RejectRequest = z.infer<typeof rejectRequestSchema>;
export type ScheduleBody = z.infer<typeof scheduleSchema>;
export type ScheduleListBody = z.infer<typeof scheduleListSchema>;
export type ScheduleRunAnswerBody = z.infer<typeof scheduleRunAnswerSchema>;
export type SetScheduleRequest = z.infer<typeof setScheduleRequestSchema>;

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
  Workflow: workflowSchema,
  WorkflowList: workflowListSchema,
  WorkflowDetail: workflowDetailSchema,
  WorkflowRun: workflowRunSchema,
  WorkflowStep: workflowStepSchema,
  WorkflowRunAnswer: workflowRunAnswerSchema,
  WorkflowRunDetail: workflowRunDetailSchema,
  WorkflowRunList: workflowRunListSchema,
  Approval: approvalSchema,
  ApprovalAnswer: approvalAnswerSchema,
  ApprovalList: approvalListSchema,
  Schedule: scheduleSchema,
  ScheduleList: scheduleListSchema,
  ScheduleRunAnswer: scheduleRunAnswerSchema,
  McpServerList: mcpServerListSchema,
  TraceList: traceListSchema,
  Trace: traceSchema,
  TraceServices: traceServicesSchema,
} as const;

/** Components only the workflow routes use: published when the router serves them. */
export const WORKFLOW_COMPONENTS: ReadonlySet<ComponentName> = new Set<ComponentName>([
  'Workflow',
  'WorkflowList',
  'WorkflowDetail',
  'WorkflowRun',
  'WorkflowStep',
  'WorkflowRunAnswer',
  'WorkflowRunDetail',
  'WorkflowRunList',
  'Approval',
  'ApprovalAnswer',
  'ApprovalList',
]);

export type ComponentName = keyof typeof COMPONENT_SCHEMAS;
