// POST /api/v1/workflow-runs, GET /api/v1/workflow-runs, GET /api/v1/workflow-runs/:workflow_run_id,
// POST /api/v1/workflow-runs/:workflow_run_id/cancel; and what both ways of starting a workflow
// run share (this one and POST /api/v1/workflows/:workflow_id/runs): fields, refusals, answer.
import { hasControlCharacter, MAX_INPUT_DEPTH } from '@junction/config-templates';
import { runRequestFields } from '@junction/agent-core/runs';
import type { WorkflowRun } from '@junction/store';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { defineRoute } from '../define-route.js';
import { environmentFilter } from '../environment-filter.js';
import { NO_PARAMS, parsePathId, parseQuery, WORKFLOW_RUN_LIST_PARAMS } from '../query-params.js';
import { validBody } from '../request-body.js';
import { badParams, envNotFound, notJson, tooLarge } from '../responses.js';
import { workflowsOf, type RouteContext } from '../route-context.js';
import type { PathParam, ResponseSpec } from '../route-spec.js';
import type {
  WorkflowRunAnswerBody,
  WorkflowRunDetailBody,
  WorkflowRunListBody,
} from '../workflow-schemas.js';
import { approvalBody, workflowRunBody, workflowStepBody } from '../views.js';

/** The body the start routes' refusals show as an example. */
export const START_EXAMPLE = '{"input": {"ticket": "T-1"}, "idempotency_key": "…"}';

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

/** The fields of a workflow run's start, by either route. */
export const startFields = {
  input: z
    .unknown()
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

/** The body of `POST /api/v1/workflow-runs`: the workflow named in the body. */
export const submitWorkflowRunRequestSchema = z
  .strictObject({
    workflow_id: workflowKey.describe("The workflow's id in its file"),
    ...startFields,
  })
  .describe('A run of the workflow named by workflow_id');

type SubmitWorkflowRunRequest = z.infer<typeof submitWorkflowRunRequestSchema>;

/** The answers of a workflow run's start, by either route; `what` adds its own 400 codes. */
export const startRefusals = (what: string): Record<number, ResponseSpec> => ({
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

/**
 * 202 with the run just started and where to follow it; 200 (same body and Location) when an
 * idempotency key answered the run it started before.
 */
export function answerStarted(
  ctx: RouteContext,
  started: { run: WorkflowRun; replayed: boolean },
  res: Response,
): void {
  const { run, replayed } = started;
  ctx.deps.logger.info(replayed ? 'workflow run replayed' : 'workflow run started', {
    workflow_run_id: run.id,
    workflow_id: run.workflowKey,
    source: 'api',
  });
  const body: WorkflowRunAnswerBody = {
    workflow_run: workflowRunBody(run, ctx.redact, ctx.clean),
  };
  res
    .status(replayed ? 200 : 202)
    .location(`/api/v1/workflow-runs/${run.id}`)
    .json(body);
}

const workflowRunParam: PathParam = {
  name: 'workflow_run_id',
  description: 'The workflow run id',
};

const badRunId = badParams(
  'workflow_run_id is not a positive whole number, or a query parameter was given',
);

const workflowRunNotFound: ResponseSpec = {
  description: 'WORKFLOW_RUN_NOT_FOUND: no workflow run has this id',
  body: 'Error',
};

/** POST /api/v1/workflow-runs: the workflow named in the body (the reference's clients call this). */
export const submitWorkflowRunRoute = defineRoute({
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
  body: { schema: submitWorkflowRunRequestSchema },
  responses: startRefusals(''),
  handle(ctx) {
    const workflows = workflowsOf(ctx);
    return async (req: Request, res: Response): Promise<void> => {
      parseQuery(req.query as Record<string, unknown>, NO_PARAMS);
      const input: SubmitWorkflowRunRequest = validBody(
        req.body,
        submitWorkflowRunRequestSchema,
        '{"workflow_id": "incident-triage", "input": {"ticket": "T-1"}}',
      );
      answerStarted(ctx, await workflows.start({ ...input, source: 'api' }), res);
    };
  },
});

/** GET /api/v1/workflow-runs: a page of workflow runs, newest first. */
export const listWorkflowRunsRoute = defineRoute({
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
  handle(ctx) {
    const { store } = ctx.deps;
    return async (req: Request, res: Response): Promise<void> => {
      const q = parseQuery(req.query as Record<string, unknown>, WORKFLOW_RUN_LIST_PARAMS);
      const environmentId = await environmentFilter(store, q);
      // One more than the page tells whether a next page exists (the store counts none).
      const runs = await store.workflowRuns.list({
        ...(q.workflow_id !== undefined ? { workflowKey: q.workflow_id } : {}),
        ...(q.status !== undefined ? { status: q.status } : {}),
        ...(environmentId !== undefined ? { environmentId } : {}),
        limit: q.limit + 1,
        offset: q.offset,
      });
      const body: WorkflowRunListBody = {
        workflow_runs: runs
          .slice(0, q.limit)
          .map((run) => workflowRunBody(run, ctx.redact, ctx.clean)),
        limit: q.limit,
        offset: q.offset,
        has_more: runs.length > q.limit,
      };
      res.json(body);
    };
  },
});

/** GET /api/v1/workflow-runs/:workflow_run_id: the run, its step attempts and its approvals. */
export const getWorkflowRunRoute = defineRoute({
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
    400: badRunId,
    404: workflowRunNotFound,
  },
  handle(ctx) {
    const workflows = workflowsOf(ctx);
    return async (req: Request, res: Response): Promise<void> => {
      const runId = parsePathId(req.params.workflow_run_id, 'workflow_run_id');
      parseQuery(req.query as Record<string, unknown>, NO_PARAMS);
      const { run, steps, approvals } = await workflows.inspect(runId);
      const body: WorkflowRunDetailBody = {
        workflow_run: workflowRunBody(run, ctx.redact, ctx.clean),
        steps: steps.map((step) => workflowStepBody(step, ctx.redact, ctx.clean)),
        approvals: await Promise.all(approvals.map((a) => approvalBody(a, workflows))),
      };
      res.json(body);
    };
  },
});

/** POST /api/v1/workflow-runs/:workflow_run_id/cancel: 200 with the run, 409 once it has ended. */
export const cancelWorkflowRunRoute = defineRoute({
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
    400: badRunId,
    404: workflowRunNotFound,
    409: {
      description:
        'WORKFLOW_RUN_ENDED: the run already ended (completed, failed, cancelled or timed_out; details.status)',
      body: 'Error',
    },
  },
  handle(ctx) {
    const workflows = workflowsOf(ctx);
    return async (req: Request, res: Response): Promise<void> => {
      const runId = parsePathId(req.params.workflow_run_id, 'workflow_run_id');
      parseQuery(req.query as Record<string, unknown>, NO_PARAMS);
      const run = await workflows.cancel(runId);
      ctx.deps.logger.info('workflow run cancelled', {
        workflow_run_id: run.id,
        workflow_id: run.workflowKey,
        source: 'api',
      });
      const body: WorkflowRunAnswerBody = {
        workflow_run: workflowRunBody(run, ctx.redact, ctx.clean),
      };
      res.json(body);
    };
  },
});

/** The workflow run routes, in the order they are mounted and documented. */
export const WORKFLOW_RUN_ROUTES = [
  submitWorkflowRunRoute,
  listWorkflowRunsRoute,
  getWorkflowRunRoute,
  cancelWorkflowRunRoute,
] as const;
