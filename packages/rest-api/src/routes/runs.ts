// GET /api/v1/runs, POST /api/v1/runs, GET /api/v1/runs/:run_id and
// POST /api/v1/runs/:run_id/cancel; the live run list (GET /api/v1/runs/stream) is run-stream.ts.
import { AgentCoreError } from '@junction/agent-core';
import { runAttempts, runRequestFields } from '@junction/agent-core/runs';
import type { Run } from '@junction/store';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { defineRoute } from '../define-route.js';
import {
  parsePathId,
  parseQuery,
  NO_PARAMS,
  RUN_DETAIL_PARAMS,
  RUN_LIST_PARAMS,
} from '../query-params.js';
import { validBody } from '../request-body.js';
import { badParams, envNotFound, modelRefused, notJson, tooLarge } from '../responses.js';
import type { RouteContext } from '../route-context.js';
import type { ResponseSpec } from '../route-spec.js';
import { runListFilter } from '../run-list-filter.js';
import type { QueuedRunBody, RunBody, RunDetailBody, RunListBody } from '../schemas.js';
import { runBody, runEventBody } from '../views.js';
import { streamRunsRoute } from './run-stream.js';

/** Events returned by a verbose run: the store's largest page. */
export const MAX_EVENTS = 10_000;

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

type SubmitRunRequest = z.infer<typeof submitRunRequestSchema>;

const runNotFound: ResponseSpec = {
  description: 'RUN_NOT_FOUND: no run has this id',
  body: 'Error',
};

/** 202 with the queued run, its redacted variables and where to follow it. */
export function answerQueued(ctx: RouteContext, run: Run, agentName: string, res: Response): void {
  ctx.deps.logger.info('run queued', {
    run_id: run.id,
    agent_id: run.agentId,
    agent_name: agentName,
    source: 'api',
  });
  const location = `/api/v1/runs/${run.id}`;
  const body: QueuedRunBody = {
    ...runBody(run, ctx.deps.pricing),
    variables: ctx.redact(run.variables) as Record<string, string>,
    message: `Run ${run.id} of agent "${agentName}" queued; GET ${location} for its status.`,
  };
  res.status(202).location(location).json(body);
}

/** GET /api/v1/runs: a page of runs, newest first, with the CLI's filters. */
export const listRunsRoute = defineRoute({
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
  handle(ctx) {
    const { store, pricing } = ctx.deps;
    return async (req: Request, res: Response): Promise<void> => {
      const q = parseQuery(req.query as Record<string, unknown>, RUN_LIST_PARAMS);
      const filter = await runListFilter(ctx, q);
      const [runs, total] = await Promise.all([
        store.runs.list({ ...filter, limit: q.limit, offset: q.offset }),
        store.runs.count(filter),
      ]);
      const body: RunListBody = {
        items: runs.map((run) => runBody(run, pricing)),
        total,
        limit: q.limit,
        offset: q.offset,
      };
      res.json(body);
    };
  },
});

/**
 * POST /api/v1/runs → 202 with the queued run: the agent by `agent_id`, or by `agent_name`
 * (with `environment`), found by the run door's one rule, as on every other surface.
 */
export const submitRunRoute = defineRoute({
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
  body: { schema: submitRunRequestSchema },
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
  handle(ctx) {
    const { runs } = ctx.deps;
    return async (req: Request, res: Response): Promise<void> => {
      parseQuery(req.query as Record<string, unknown>, NO_PARAMS);
      const input: SubmitRunRequest = validBody(req.body, submitRunRequestSchema);
      const submitted = await runs.submit({ ...input, source: 'api' });
      answerQueued(ctx, submitted.run, submitted.agent.name, res);
    };
  },
});

/** GET /api/v1/runs/:run_id: the run, its variables, and with ?verbose=true its events. */
export const getRunRoute = defineRoute({
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
    404: runNotFound,
  },
  handle(ctx) {
    const { store } = ctx.deps;
    return async (req: Request, res: Response): Promise<void> => {
      const runId = parsePathId(req.params.run_id, 'run_id');
      const q = parseQuery(req.query as Record<string, unknown>, RUN_DETAIL_PARAMS);
      const run = await store.runs.get(runId);
      if (!run) {
        throw new AgentCoreError(
          'RUN_NOT_FOUND',
          `No run has id ${runId}. GET /api/v1/runs lists the runs.`,
          { run_id: runId },
        );
      }
      const [eventCount, attempts] = await Promise.all([
        store.runEvents.count(runId),
        runAttempts(store, run),
      ]);
      const body: RunDetailBody = {
        ...runBody(run, ctx.deps.pricing),
        variables: ctx.redact(run.variables) as Record<string, string>,
        attempts,
        event_count: eventCount,
      };
      if (q.verbose) {
        const events = await store.runEvents.list(runId, { limit: MAX_EVENTS });
        body.events = events.map((event) => runEventBody(event, ctx.redact));
      }
      res.json(body);
    };
  },
});

/**
 * POST /api/v1/runs/:run_id/cancel: cancels through the run door; 200 with the run once it
 * ended, 202 while its worker is still stopping it.
 */
export const cancelRunRoute = defineRoute({
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
    404: runNotFound,
    409: {
      description:
        'RUN_ENDED: the run already ended (completed, error, timeout or cancelled; details.status)',
      body: 'Error',
    },
  },
  handle(ctx) {
    return async (req: Request, res: Response): Promise<void> => {
      const runId = parsePathId(req.params.run_id, 'run_id');
      parseQuery(req.query as Record<string, unknown>, NO_PARAMS);
      const { run, ended } = await ctx.deps.runs.cancel(runId, { source: 'api' });
      ctx.deps.logger.info('run cancelled', { run_id: run.id, status: run.status, source: 'api' });
      const body: RunBody = runBody(run, ctx.deps.pricing);
      res.status(ended ? 200 : 202).json(body);
    };
  },
});

/**
 * The run routes, in the order they are mounted and documented: the stream before
 * `/api/v1/runs/:run_id`, which would otherwise take `stream` for a run id.
 */
export const RUN_ROUTES = [
  listRunsRoute,
  submitRunRoute,
  streamRunsRoute,
  getRunRoute,
  cancelRunRoute,
] as const;
