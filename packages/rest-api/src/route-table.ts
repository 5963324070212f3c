// Every route of the REST surface in one table: the router mounts it and the OpenAPI
// document is generated from it, so a route cannot exist without being documented.
import type { z } from 'zod';
import {
  AGENT_LIST_PARAMS,
  APPROVAL_LIST_PARAMS,
  NO_PARAMS,
  PAGE_PARAMS,
  pathKeySchema,
  RUN_DETAIL_PARAMS,
  MCP_SERVER_LIST_PARAMS,
  RUN_LIST_PARAMS,
  RUN_STREAM_PARAMS,
  SCHEDULE_LIST_PARAMS,
  TRACE_ID_SCHEMA,
  TRACE_LIST_PARAMS,
  WORKFLOW_DETAIL_PARAMS,
  WORKFLOW_LIST_PARAMS,
  WORKFLOW_RUN_LIST_PARAMS,
  type QueryParams,
} from './query-params.js';
import {
  approveRequestSchema,
  queueRequestSchema,
  rejectRequestSchema,
  setScheduleRequestSchema,
  startWorkflowRunRequestSchema,
  submitRunRequestSchema,
  submitWorkflowRunRequestSchema,
  type ComponentName,
} from './schemas.js';

/** The content type of GET /metrics as documented (the answer adds `charset=utf-8`). */
export const METRICS_MEDIA_TYPE = 'text/plain; version=0.0.4';

/** One documented answer of a route. */
export interface ResponseSpec {
  description: string;
  /** A components/schemas name (JSON), or a media type with a plain string body. */
  body: ComponentName | { mediaType: string };
  /** The answer carries a Location header: what it points at. */
  location?: string;
}

/** One path parameter; its schema defaults to a positive whole number (an id). */
export interface PathParam {
  name: string;
  description: string;
  schema?: z.ZodType;
}

export interface RouteSpec {
  operationId: OperationId;
  method: 'get' | 'post' | 'delete';
  /** Express path; `:name` segments are path parameters. */
  path: string;
  summary: string;
  description: string;
  tag:
    | 'agents'
    | 'runs'
    | 'environments'
    | 'workflows'
    | 'approvals'
    | 'schedules'
    | 'traces'
    | 'service';
  /** False only for /health: answered without an API key. */
  auth: boolean;
  query: QueryParams;
  pathParams: PathParam[];
  requestBody?: z.ZodType;
  /** True when the body may be left out (an empty POST is an empty object). */
  bodyOptional?: boolean;
  /** The dep the route is served with: without it the route is neither mounted nor documented. */
  needs?: 'workflows';
  /** Success and route-specific error answers; 401, 405, 500 and 503 are added for every route. */
  responses: Record<number, ResponseSpec>;
}

export type OperationId =
  | 'listAgents'
  | 'getAgent'
  | 'queueRun'
  | 'submitRun'
  | 'listRuns'
  | 'getRun'
  | 'listEnvironments'
  | 'getOpenApiDocument'
  | 'getHealth'
  | 'getMetrics'
  | 'listWorkflows'
  | 'getWorkflow'
  | 'startWorkflowRun'
  | 'submitWorkflowRun'
  | 'listWorkflowRuns'
  | 'getWorkflowRun'
  | 'cancelWorkflowRun'
  | 'cancelRun'
  | 'listApprovals'
  | 'getApproval'
  | 'approveApproval'
  | 'rejectApproval'
  | 'listSchedules'
  | 'setSchedule'
  | 'getSchedule'
  | 'removeSchedule'
  | 'runSchedule'
  | 'streamRuns'
  | 'listMcpServers'
  | 'listTraces'
  | 'getTrace'
  | 'listTraceServices';

const badParams = (what: string): ResponseSpec => ({
  description: `INVALID_PARAMETER: ${what}; details.field names the parameter`,
  body: 'Error',
});

const tooLarge: ResponseSpec = {
  description: 'PAYLOAD_TOO_LARGE: the body is over the limit (details.limit_bytes)',
  body: 'Error',
};

const notJson: ResponseSpec = {
  description: 'UNSUPPORTED_MEDIA_TYPE: the body is not application/json (UTF-8)',
  body: 'Error',
};

/** The run door's model check refused (the same answer on every surface). */
const modelRefused: ResponseSpec = {
  description:
    'The agent cannot run as the server is configured: MODEL_API_KEY_MISSING, MODEL_NOT_CONFIGURED, MODEL_PROVIDER_UNKNOWN, MODEL_BASE_URL_MISSING, AGENT_INVALID (fix the server configuration or the agent file; every surface answers these the same way); DATABASE_UNAVAILABLE',
  body: 'Error',
};

const envNotFound: ResponseSpec = {
  description:
    'ENVIRONMENT_NOT_FOUND: the environment or environment_id filter names no environment',
  body: 'Error',
};

const workflowKeyParam = {
  name: 'workflow_id',
  description: 'The workflow: the id in its file (e.g. incident-triage) or its row id',
  schema: pathKeySchema,
};

const workflowRunParam = { name: 'workflow_run_id', description: 'The workflow run id' };

const approvalParam = {
  name: 'approval_id',
  description: 'The approval id (e.g. appr-12-review)',
  schema: pathKeySchema,
};

const workflowNotFound: ResponseSpec = {
  description:
    'WORKFLOW_NOT_FOUND: no workflow has this id (in the environment named); sync the environment after adding a file',
  body: 'Error',
};

const workflowRunNotFound: ResponseSpec = {
  description: 'WORKFLOW_RUN_NOT_FOUND: no workflow run has this id',
  body: 'Error',
};

const approvalNotFound: ResponseSpec = {
  description: 'APPROVAL_NOT_FOUND: no approval has this id',
  body: 'Error',
};

/** The refusals of the workflow-run door (start), besides the body's own. */
const startRefusals = (what: string): Record<number, ResponseSpec> => ({
  200: {
    description:
      'The idempotency key was used before (with source api): the run it started, as it is now',
    body: 'WorkflowRunAnswer',
    location: 'The run: /api/v1/workflow-runs/{workflow_run_id}',
  },
  202: {
    description: 'The run, pending; a workflow worker advances it',
    body: 'WorkflowRunAnswer',
    location: 'The run: /api/v1/workflow-runs/{workflow_run_id}',
  },
  400: {
    description: `INVALID_JSON: the body is not JSON; INVALID_BODY: a field is missing, of the wrong type or unknown (details.field names it); ${what}WORKFLOW_INPUT_INVALID: input does not match the workflow's inputSchema (details.field names the input field); WORKFLOW_INVALID: the stored definition cannot run`,
    body: 'Error',
  },
  404: {
    description:
      'WORKFLOW_NOT_FOUND: no workflow has this id (in the environment named, or no environment has that name)',
    body: 'Error',
  },
  409: {
    description:
      'WORKFLOW_AMBIGUOUS: several environments have the workflow and none is "default" (name one: environment); WORKFLOW_DISABLED: its file is gone or failed to sync',
    body: 'Error',
  },
  413: tooLarge,
  415: notJson,
});

const scheduleParam = { name: 'schedule_id', description: 'The schedule id' };

const badScheduleId = badParams(
  'schedule_id is not a positive whole number, or a query parameter was given',
);

const scheduleNotFound: ResponseSpec = {
  description: 'SCHEDULE_NOT_FOUND: no schedule has this id',
  body: 'Error',
};

/** The refusals of a decision on an approval. */
const decisionRefusals = (field: string): Record<number, ResponseSpec> => ({
  200: { description: 'The approval as decided; its run is due again', body: 'ApprovalAnswer' },
  400: {
    description: `INVALID_JSON: the body is not JSON; INVALID_BODY: ${field} or approver is not a string, too long, or a field is unknown (details.field names it); INVALID_PARAMETER: approval_id is malformed`,
    body: 'Error',
  },
  403: {
    description:
      'APPROVER_NOT_ALLOWED: the approval lists approvers and approver is none of them (details.approvers)',
    body: 'Error',
  },
  404: approvalNotFound,
  409: {
    description:
      'APPROVAL_DECIDED: it was decided before; details.approval shows the first decision. APPROVAL_WITHDRAWN: its workflow run was cancelled, so it was withdrawn (status cancelled)',
    body: 'Error',
  },
  410: {
    description:
      'APPROVAL_EXPIRED: its time ran out; it is timed_out and its run follows the timeout path',
    body: 'Error',
  },
  413: tooLarge,
  415: notJson,
});

export const ROUTES: readonly RouteSpec[] = [
  {
    operationId: 'listAgents',
    method: 'get',
    path: '/api/v1/agents',
    summary: 'List agents',
    description: 'Agents of every environment (or of one), by environment id then name.',
    tag: 'agents',
    auth: true,
    query: AGENT_LIST_PARAMS,
    pathParams: [],
    responses: {
      200: { description: 'A page of agents', body: 'AgentList' },
      400: badParams('an unknown, repeated or malformed query parameter'),
      404: envNotFound,
    },
  },
  {
    operationId: 'getAgent',
    method: 'get',
    path: '/api/v1/agents/:agent_id',
    summary: 'Get an agent',
    description: 'One agent with its tools, sub-agents and schedule.',
    tag: 'agents',
    auth: true,
    query: NO_PARAMS,
    pathParams: [{ name: 'agent_id', description: 'The agent id' }],
    responses: {
      200: { description: 'The agent', body: 'Agent' },
      400: badParams('agent_id is not a positive whole number, or a query parameter was given'),
      404: { description: 'AGENT_NOT_FOUND: no agent has this id', body: 'Error' },
    },
  },
  {
    operationId: 'queueRun',
    method: 'post',
    path: '/api/v1/agents/:agent_id/queue',
    summary: 'Queue a run of an agent',
    description:
      'Stores a queued run and answers at once; a worker executes it. Follow it with GET /api/v1/runs/{run_id} (the Location header). Nothing is queued when the answer is an error.',
    tag: 'agents',
    auth: true,
    query: NO_PARAMS,
    pathParams: [{ name: 'agent_id', description: 'The agent to run' }],
    requestBody: queueRequestSchema,
    responses: {
      202: {
        description: 'The queued run',
        body: 'QueuedRun',
        location: 'The run: /api/v1/runs/{run_id}',
      },
      400: {
        description:
          'INVALID_JSON: the body is not JSON; INVALID_BODY: a field is missing, of the wrong type or unknown (details.field names it); INVALID_PARAMETER: agent_id is malformed',
        body: 'Error',
      },
      404: { description: 'AGENT_NOT_FOUND: no agent has this id', body: 'Error' },
      413: tooLarge,
      415: notJson,
      503: modelRefused,
    },
  },
  {
    operationId: 'listRuns',
    method: 'get',
    path: '/api/v1/runs',
    summary: 'List runs',
    description:
      'Runs, newest first, with the filters of `junction runs list`. Unknown agent names or ids simply match nothing (run history outlives agents).',
    tag: 'runs',
    auth: true,
    query: RUN_LIST_PARAMS,
    pathParams: [],
    responses: {
      200: { description: 'A page of runs', body: 'RunList' },
      400: badParams('an unknown, repeated or malformed query parameter'),
      404: envNotFound,
    },
  },
  {
    operationId: 'submitRun',
    method: 'post',
    path: '/api/v1/runs',
    summary: 'Start a run of an agent named by id or name',
    description:
      'The same run door as every surface: the agent by agent_id, or by agent_name (in environment when given, else in "default", else in the one environment that has it; AGENT_AMBIGUOUS when several do). Stores a queued run and answers at once; follow it with GET /api/v1/runs/{run_id} (the Location header). Nothing is queued when the answer is an error.',
    tag: 'runs',
    auth: true,
    query: NO_PARAMS,
    pathParams: [],
    requestBody: submitRunRequestSchema,
    responses: {
      202: {
        description: 'The queued run',
        body: 'QueuedRun',
        location: 'The run: /api/v1/runs/{run_id}',
      },
      400: {
        description:
          'INVALID_JSON: the body is not JSON; INVALID_BODY: a field is missing, of the wrong type or unknown (details.field names it); RUN_REQUEST_INVALID: no agent named, or agent_id and agent_name/environment disagree; AGENT_AMBIGUOUS: several environments have the name and none is "default"',
        body: 'Error',
      },
      404: {
        description: 'AGENT_NOT_FOUND or ENVIRONMENT_NOT_FOUND: nothing has this id or name',
        body: 'Error',
      },
      413: tooLarge,
      415: notJson,
      503: modelRefused,
    },
  },
  {
    operationId: 'streamRuns',
    method: 'get',
    path: '/api/v1/runs/stream',
    summary: 'Follow the run list live (Server-Sent Events)',
    description:
      'The page of runs GET /api/v1/runs answers for the same filters, as Server-Sent Events: `event: runs` with `data: {"runs": [...], "total": n}` at once and whenever that page changes (the store is read twice a second, so runs of every process sharing it appear), `: keep-alive` comments every 15 s, `event: error` while the store cannot be read. The stream ends when the client disconnects. Send the API key in the Authorization header (read the stream with fetch; EventSource cannot send headers).',
    tag: 'runs',
    auth: true,
    query: RUN_STREAM_PARAMS,
    pathParams: [],
    responses: {
      200: { description: 'The stream of run pages', body: { mediaType: 'text/event-stream' } },
      400: badParams('an unknown, repeated or malformed query parameter'),
      404: envNotFound,
      503: {
        description: 'TOO_MANY_STREAMS: this process already serves 64 streams',
        body: 'Error',
      },
    },
  },
  {
    operationId: 'getRun',
    method: 'get',
    path: '/api/v1/runs/:run_id',
    summary: 'Get a run',
    description:
      'One run: status, steps, tokens, final response or error, times; events with verbose=true.',
    tag: 'runs',
    auth: true,
    query: RUN_DETAIL_PARAMS,
    pathParams: [{ name: 'run_id', description: 'The run id' }],
    responses: {
      200: { description: 'The run', body: 'RunDetail' },
      400: badParams('run_id is not a positive whole number, or verbose is not true/false'),
      404: { description: 'RUN_NOT_FOUND: no run has this id', body: 'Error' },
    },
  },
  {
    operationId: 'cancelRun',
    method: 'post',
    path: '/api/v1/runs/:run_id/cancel',
    summary: 'Cancel a run',
    description:
      'Cancels a run that has not ended. A queued run ends cancelled at once. A running run stops its model call at once (in whatever process executes it, within about a second), lets a tool call in flight return, and ends cancelled; the answer waits up to 5 s for that end. Takes no body (one sent is not read).',
    tag: 'runs',
    auth: true,
    query: NO_PARAMS,
    pathParams: [{ name: 'run_id', description: 'The run id' }],
    responses: {
      200: { description: 'The run, cancelled', body: 'Run' },
      202: {
        description:
          'The run is still ending (its worker has not stopped it yet); cancel_requested_at is set and it ends cancelled',
        body: 'Run',
      },
      400: badParams('run_id is not a positive whole number, or a query parameter was given'),
      404: { description: 'RUN_NOT_FOUND: no run has this id', body: 'Error' },
      409: {
        description:
          'RUN_ENDED: the run already ended (completed, error, timeout or cancelled; details.status)',
        body: 'Error',
      },
    },
  },
  {
    operationId: 'listEnvironments',
    method: 'get',
    path: '/api/v1/environments',
    summary: 'List environments',
    description:
      'Environments known to the store, by name, with agent, config, server and tool counts.',
    tag: 'environments',
    auth: true,
    query: PAGE_PARAMS,
    pathParams: [],
    responses: {
      200: { description: 'A page of environments', body: 'EnvironmentList' },
      400: badParams('an unknown, repeated or malformed query parameter'),
    },
  },
  {
    operationId: 'listMcpServers',
    method: 'get',
    path: '/api/v1/mcp-servers',
    summary: 'List MCP servers with their tools',
    description:
      'The MCP servers of every environment (or one), with their transport, the status the last sync found (connected, error, never synced), its error, and the tools it listed.',
    tag: 'environments',
    auth: true,
    query: MCP_SERVER_LIST_PARAMS,
    pathParams: [],
    responses: {
      200: { description: 'The servers', body: 'McpServerList' },
      400: badParams('an unknown, repeated or malformed query parameter'),
      404: envNotFound,
    },
  },
  {
    operationId: 'listTraces',
    method: 'get',
    path: '/api/v1/traces',
    summary: 'Search stored traces',
    description:
      "Traces kept in the store (Junction's own spans and those sent to its OTLP receiver), newest first: a trace matches when one of its spans has the service, the span name (operation) or the run id; status error keeps traces with a span in error, ok those without.",
    tag: 'traces',
    auth: true,
    query: TRACE_LIST_PARAMS,
    pathParams: [],
    responses: {
      200: { description: 'The traces found', body: 'TraceList' },
      400: badParams('an unknown, repeated or malformed query parameter'),
    },
  },
  {
    operationId: 'getTrace',
    method: 'get',
    path: '/api/v1/traces/:trace_id',
    summary: 'Get a trace',
    description:
      'Every stored span of the trace by start time, with attributes, events (exceptions among them), status and the run each belongs to.',
    tag: 'traces',
    auth: true,
    query: NO_PARAMS,
    pathParams: [
      {
        name: 'trace_id',
        description: 'The trace id: 32 hexadecimal digits',
        schema: TRACE_ID_SCHEMA,
      },
    ],
    responses: {
      200: { description: 'The trace', body: 'Trace' },
      400: badParams('trace_id is not 32 hexadecimal digits, or a query parameter was given'),
      404: {
        description: 'TRACE_NOT_FOUND: no span of this trace is stored',
        body: 'Error',
      },
    },
  },
  {
    operationId: 'listTraceServices',
    method: 'get',
    path: '/api/v1/trace-services',
    summary: 'List traced services and operations',
    description: 'Services with stored spans and the span names of each, for a search form.',
    tag: 'traces',
    auth: true,
    query: NO_PARAMS,
    pathParams: [],
    responses: {
      200: { description: 'The services', body: 'TraceServices' },
      400: badParams('a query parameter was given'),
    },
  },
  {
    operationId: 'listWorkflows',
    method: 'get',
    path: '/api/v1/workflows',
    summary: 'List workflows',
    description:
      'Synced workflows of every environment (or of one), by environment id then workflow id.',
    tag: 'workflows',
    auth: true,
    needs: 'workflows',
    query: WORKFLOW_LIST_PARAMS,
    pathParams: [],
    responses: {
      200: { description: 'A page of workflows', body: 'WorkflowList' },
      400: badParams('an unknown, repeated or malformed query parameter'),
      404: envNotFound,
    },
  },
  {
    operationId: 'getWorkflow',
    method: 'get',
    path: '/api/v1/workflows/:workflow_id',
    summary: 'Get a workflow',
    description:
      'One workflow with its definition, by row id or by the id in its file: in environment when given, else in "default", else in the one environment that has it.',
    tag: 'workflows',
    auth: true,
    needs: 'workflows',
    query: WORKFLOW_DETAIL_PARAMS,
    pathParams: [workflowKeyParam],
    responses: {
      200: { description: 'The workflow', body: 'WorkflowDetail' },
      400: badParams('workflow_id is malformed, or a query parameter is unknown or malformed'),
      404: workflowNotFound,
      409: {
        description:
          'WORKFLOW_AMBIGUOUS: several environments have the workflow and none is "default"; name one with ?environment=',
        body: 'Error',
      },
    },
  },
  {
    operationId: 'startWorkflowRun',
    method: 'post',
    path: '/api/v1/workflows/:workflow_id/runs',
    summary: 'Start a run of a workflow',
    description:
      "Checks the input against the workflow's inputSchema and stores a pending run (source api); a workflow worker advances it. Follow it with GET /api/v1/workflow-runs/{workflow_run_id} (the Location header). The body may be left out. Nothing is started when the answer is an error.",
    tag: 'workflows',
    auth: true,
    needs: 'workflows',
    query: NO_PARAMS,
    pathParams: [workflowKeyParam],
    requestBody: startWorkflowRunRequestSchema,
    bodyOptional: true,
    responses: startRefusals('INVALID_PARAMETER: workflow_id is malformed; '),
  },
  {
    operationId: 'submitWorkflowRun',
    method: 'post',
    path: '/api/v1/workflow-runs',
    summary: 'Start a run of a workflow named in the body',
    description:
      "The same as POST /api/v1/workflows/{workflow_id}/runs with the workflow named by workflow_id in the body (as the reference's clients send it).",
    tag: 'workflows',
    auth: true,
    needs: 'workflows',
    query: NO_PARAMS,
    pathParams: [],
    requestBody: submitWorkflowRunRequestSchema,
    responses: startRefusals(''),
  },
  {
    operationId: 'listWorkflowRuns',
    method: 'get',
    path: '/api/v1/workflow-runs',
    summary: 'List workflow runs',
    description:
      'Workflow runs, newest first. An unknown workflow_id simply matches nothing (run history outlives workflows).',
    tag: 'workflows',
    auth: true,
    needs: 'workflows',
    query: WORKFLOW_RUN_LIST_PARAMS,
    pathParams: [],
    responses: {
      200: { description: 'A page of workflow runs', body: 'WorkflowRunList' },
      400: badParams('an unknown, repeated or malformed query parameter'),
      404: envNotFound,
    },
  },
  {
    operationId: 'getWorkflowRun',
    method: 'get',
    path: '/api/v1/workflow-runs/:workflow_run_id',
    summary: 'Get a workflow run',
    description: 'One workflow run with its step attempts (in the order they began) and approvals.',
    tag: 'workflows',
    auth: true,
    needs: 'workflows',
    query: NO_PARAMS,
    pathParams: [workflowRunParam],
    responses: {
      200: { description: 'The run, its steps and approvals', body: 'WorkflowRunDetail' },
      400: badParams(
        'workflow_run_id is not a positive whole number, or a query parameter was given',
      ),
      404: workflowRunNotFound,
    },
  },
  {
    operationId: 'cancelWorkflowRun',
    method: 'post',
    path: '/api/v1/workflow-runs/:workflow_run_id/cancel',
    summary: 'Cancel a workflow run',
    description:
      'Cancels a run that has not ended (pending, running or waiting_approval): it ends cancelled at once, no further step starts, and an agent run its step waits on is cancelled too. Takes no body (one sent is not read).',
    tag: 'workflows',
    auth: true,
    needs: 'workflows',
    query: NO_PARAMS,
    pathParams: [workflowRunParam],
    responses: {
      200: { description: 'The run, cancelled', body: 'WorkflowRunAnswer' },
      400: badParams(
        'workflow_run_id is not a positive whole number, or a query parameter was given',
      ),
      404: workflowRunNotFound,
      409: {
        description:
          'WORKFLOW_RUN_ENDED: the run already ended (completed, failed, cancelled or timed_out; details.status)',
        body: 'Error',
      },
    },
  },
  {
    operationId: 'listApprovals',
    method: 'get',
    path: '/api/v1/workflow-approvals',
    summary: 'List approvals',
    description:
      'Human approvals of workflow runs, newest first, each with its signed view/approve/reject links on the webhook port.',
    tag: 'approvals',
    auth: true,
    needs: 'workflows',
    query: APPROVAL_LIST_PARAMS,
    pathParams: [],
    responses: {
      200: { description: 'A page of approvals', body: 'ApprovalList' },
      400: badParams('an unknown, repeated or malformed query parameter'),
    },
  },
  {
    operationId: 'getApproval',
    method: 'get',
    path: '/api/v1/workflow-approvals/:approval_id',
    summary: 'Get an approval',
    description: 'One approval with its signed links.',
    tag: 'approvals',
    auth: true,
    needs: 'workflows',
    query: NO_PARAMS,
    pathParams: [approvalParam],
    responses: {
      200: { description: 'The approval', body: 'ApprovalAnswer' },
      400: badParams('approval_id is malformed, or a query parameter was given'),
      404: approvalNotFound,
    },
  },
  {
    operationId: 'approveApproval',
    method: 'post',
    path: '/api/v1/workflow-approvals/:approval_id/approve',
    summary: 'Approve',
    description:
      'Approves a pending approval, once, and makes its run due (audited with source rest). The body may be left out.',
    tag: 'approvals',
    auth: true,
    needs: 'workflows',
    query: NO_PARAMS,
    pathParams: [approvalParam],
    requestBody: approveRequestSchema,
    bodyOptional: true,
    responses: decisionRefusals('comment'),
  },
  {
    operationId: 'rejectApproval',
    method: 'post',
    path: '/api/v1/workflow-approvals/:approval_id/reject',
    summary: 'Reject',
    description:
      'Rejects a pending approval, once, and makes its run due (audited with source rest); reason is kept as its comment. The body may be left out.',
    tag: 'approvals',
    auth: true,
    needs: 'workflows',
    query: NO_PARAMS,
    pathParams: [approvalParam],
    requestBody: rejectRequestSchema,
    bodyOptional: true,
    responses: decisionRefusals('reason'),
  },
  {
    operationId: 'listSchedules',
    method: 'get',
    path: '/api/v1/schedules',
    summary: 'List schedules',
    description:
      'Schedules of agents and workflows (from their files and set by operators), soonest next fire first, disabled ones last.',
    tag: 'schedules',
    auth: true,
    query: SCHEDULE_LIST_PARAMS,
    pathParams: [],
    responses: {
      200: { description: 'A page of schedules', body: 'ScheduleList' },
      400: badParams('an unknown, repeated or malformed query parameter'),
      404: envNotFound,
    },
  },
  {
    operationId: 'setSchedule',
    method: 'post',
    path: '/api/v1/schedules',
    summary: 'Set the schedule of an agent or workflow',
    description:
      "Creates or replaces the one schedule of an agent (by name or agent_id) or a workflow (by name, its id in the file), as an operator: a later sync keeps it. The cron and time zone are checked as a file's are. The schedule fires in whichever process holds the scheduler lease. Nothing is written when the answer is an error.",
    tag: 'schedules',
    auth: true,
    query: NO_PARAMS,
    pathParams: [],
    requestBody: setScheduleRequestSchema,
    responses: {
      200: {
        description: 'The schedule, replacing the one the agent or workflow had',
        body: 'Schedule',
        location: 'The schedule: /api/v1/schedules/{schedule_id}',
      },
      201: {
        description: 'The schedule, new',
        body: 'Schedule',
        location: 'The schedule: /api/v1/schedules/{schedule_id}',
      },
      400: {
        description:
          'INVALID_JSON: the body is not JSON; INVALID_BODY: a field is missing, of the wrong type or unknown, or agent_id is sent with name or environment (details.field names it); SCHEDULE_INVALID: the cron, time zone or a field that does not fit the kind (input for an agent, task or variables for a workflow), an input nested more than 64 levels, or no agent or workflow named (details.field names it)',
        body: 'Error',
      },
      404: {
        description:
          'SCHEDULE_TARGET_NOT_FOUND: no agent has this id, no agent or workflow has this name in the environment, or no environment has that name',
        body: 'Error',
      },
      409: {
        description:
          'SCHEDULE_TARGET_AMBIGUOUS: the name is both an agent and a workflow in the environment; send kind',
        body: 'Error',
      },
      413: tooLarge,
      415: notJson,
    },
  },
  {
    operationId: 'getSchedule',
    method: 'get',
    path: '/api/v1/schedules/:schedule_id',
    summary: 'Get a schedule',
    description: 'One schedule with its next fire and how its last fire went.',
    tag: 'schedules',
    auth: true,
    query: NO_PARAMS,
    pathParams: [scheduleParam],
    responses: {
      200: { description: 'The schedule', body: 'Schedule' },
      400: badScheduleId,
      404: scheduleNotFound,
    },
  },
  {
    operationId: 'removeSchedule',
    method: 'delete',
    path: '/api/v1/schedules/:schedule_id',
    summary: 'Remove a schedule',
    description:
      'Removes the schedule and answers it as it was. A schedule from a file comes back at the next sync while the file still has it: remove it from the file, or set enabled false.',
    tag: 'schedules',
    auth: true,
    query: NO_PARAMS,
    pathParams: [scheduleParam],
    responses: {
      200: { description: 'The schedule removed', body: 'Schedule' },
      400: badScheduleId,
      404: scheduleNotFound,
    },
  },
  {
    operationId: 'runSchedule',
    method: 'post',
    path: '/api/v1/schedules/:schedule_id/run',
    summary: 'Fire a schedule now',
    description:
      'Fires the schedule at once (a disabled one too), as its due time would: a run with source cron_scheduler, its task and variables (or its workflow input); its overlap policy applies. Its next fire stays. Answers 202 with how the fire went whatever the outcome: a run was started (run_id; the Location header) or not (error says why). Needs a process that runs the scheduler. Takes no body (one sent is not read).',
    tag: 'schedules',
    auth: true,
    query: NO_PARAMS,
    pathParams: [scheduleParam],
    responses: {
      202: {
        description: 'The fire: outcome, the run it started, the schedule after it',
        body: 'ScheduleRunAnswer',
        location:
          'The run it started: /api/v1/runs/{run_id} (agent) or /api/v1/workflow-runs/{workflow_run_id} (workflow)',
      },
      400: badScheduleId,
      404: scheduleNotFound,
      503: {
        description:
          'SCHEDULER_UNAVAILABLE: this process runs no scheduler (it executes no runs); DATABASE_UNAVAILABLE',
        body: 'Error',
      },
    },
  },
  {
    operationId: 'getOpenApiDocument',
    method: 'get',
    path: '/api/v1/openapi.json',
    summary: 'This OpenAPI document',
    description: 'The OpenAPI 3.1 description of this API.',
    tag: 'service',
    auth: true,
    query: {},
    pathParams: [],
    responses: {
      200: { description: 'The document', body: { mediaType: 'application/json' } },
    },
  },
  {
    operationId: 'getHealth',
    method: 'get',
    path: '/health',
    summary: 'Health',
    description:
      'Liveness and readiness: 200 when the database answers, 503 naming the failure when it does not. Never needs an API key. Query parameters are ignored.',
    tag: 'service',
    auth: false,
    query: {},
    pathParams: [],
    responses: {
      200: { description: 'Healthy', body: 'Health' },
      503: { description: 'The database cannot be reached', body: 'Unhealthy' },
    },
  },
  {
    operationId: 'getMetrics',
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics',
    description:
      'The spec §6.4 metrics in the Prometheus text format 0.0.4; gauges are read at scrape time. Needs the API key when keys are configured (Prometheus: `authorization: {credentials: <key>}`). Query parameters are ignored.',
    tag: 'service',
    auth: true,
    query: {},
    pathParams: [],
    responses: {
      200: { description: 'The metrics', body: { mediaType: METRICS_MEDIA_TYPE } },
    },
  },
];

/** The routes a router serves: those without a `needs`, and those whose dep it was given. */
export function servedRoutes(served: { workflows: boolean }): RouteSpec[] {
  return ROUTES.filter((route) => route.needs === undefined || served[route.needs]);
}

/** The operations the trace viewer (port 16686) serves beside its page. */
export const TRACE_OPERATIONS: ReadonlySet<OperationId> = new Set<OperationId>([
  'listTraces',
  'getTrace',
  'listTraceServices',
]);

/** The routes of a process that only works runs (`junction worker`): probes and scrapers. */
export const PROBE_OPERATIONS: ReadonlySet<OperationId> = new Set<OperationId>([
  'getHealth',
  'getMetrics',
]);

/** Routes whose query is not checked (probes and scrapers may add cache-busting parameters). */
export const LENIENT_QUERY: ReadonlySet<OperationId> = new Set([
  'getOpenApiDocument',
  'getHealth',
  'getMetrics',
]);
