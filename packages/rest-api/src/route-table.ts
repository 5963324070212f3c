// Every route of the REST surface in one table: the router mounts it and the OpenAPI
// document is generated from it, so a route cannot exist without being documented.
import type { z } from 'zod';
import {
  AGENT_LIST_PARAMS,
  NO_PARAMS,
  PAGE_PARAMS,
  RUN_DETAIL_PARAMS,
  RUN_LIST_PARAMS,
  type QueryParams,
} from './query-params.js';
import { queueRequestSchema, submitRunRequestSchema, type ComponentName } from './schemas.js';

/** The content type of GET /metrics as documented (the answer adds `charset=utf-8`). */
export const METRICS_MEDIA_TYPE = 'text/plain; version=0.0.4';

/** One documented answer of a route. */
export interface ResponseSpec {
  description: string;
  /** A components/schemas name (JSON), or a media type with a plain string body. */
  body: ComponentName | { mediaType: string };
}

export interface RouteSpec {
  operationId: OperationId;
  method: 'get' | 'post';
  /** Express path; `:name` segments are path parameters. */
  path: string;
  summary: string;
  description: string;
  tag: 'agents' | 'runs' | 'environments' | 'service';
  /** False only for /health: answered without an API key. */
  auth: boolean;
  query: QueryParams;
  pathParams: Array<{ name: string; description: string }>;
  requestBody?: z.ZodType;
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
  | 'getMetrics';

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
      202: { description: 'The queued run', body: 'QueuedRun' },
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
      202: { description: 'The queued run', body: 'QueuedRun' },
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

/** Routes whose query is not checked (probes and scrapers may add cache-busting parameters). */
export const LENIENT_QUERY: ReadonlySet<OperationId> = new Set([
  'getOpenApiDocument',
  'getHealth',
  'getMetrics',
]);
