// The request and response bodies of the REST API as zod schemas: the handlers' types are
// inferred from them and the OpenAPI document is generated from them, so neither can drift.
import { RUN_SOURCES, RUN_STATUSES } from '@junction/store';
import { z } from 'zod';
import { runRequestFields } from '@junction/agent-core/runs';

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
    duration_ms: z.int().nullable().describe('completed_at - started_at; null until finished'),
    task: z.string(),
    final_response: z.string().nullable(),
    error: z.string().nullable(),
    trace_id: z.string().nullable(),
    queued_at: timestamp,
    started_at: timestamp.nullable(),
    completed_at: timestamp.nullable(),
  })
  .describe('A run');

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
export const SCHEDULER_STATES = ['running', 'stopped', 'disabled'] as const;
const scheduler = z
  .enum(SCHEDULER_STATES)
  .describe(
    'running: this process runs workers that execute queued runs; stopped: its workers are stopped (start-up or shutdown); disabled: this process runs no workers',
  );

const healthCommon = {
  version: z.string(),
  uptime: z.string().describe('Human-readable time since start, e.g. "2h 3m 4s"'),
  scheduler,
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
    environment: runRequestFields.environment
      .optional()
      .describe('Environment name of agent_name'),
    task: runRequestFields.task.describe('What the agent should do ({{userInput}} of its prompt)'),
    variables: runRequestFields.variables
      .optional()
      .describe('Values for the prompt template variables'),
    timeout_seconds: runRequestFields.timeout_seconds
      .optional()
      .describe("Seconds before the run ends with status timeout (default: the agent's, else runs.timeout_seconds)"),
  })
  .describe('A run of an agent named by id or name');

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
export type QueueRequest = z.infer<typeof queueRequestSchema>;
export type SubmitRunRequest = z.infer<typeof submitRunRequestSchema>;

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
} as const;

export type ComponentName = keyof typeof COMPONENT_SCHEMAS;
