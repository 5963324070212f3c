// GET /api/v1/workflows, GET /api/v1/workflows/:workflow_id,
// POST /api/v1/workflows/:workflow_id/runs.
import { findWorkflow } from '@junction/workflows';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { defineRoute } from '../define-route.js';
import { environmentFilter } from '../environment-filter.js';
import {
  NO_PARAMS,
  parsePathKey,
  parseQuery,
  pathKeySchema,
  WORKFLOW_DETAIL_PARAMS,
  WORKFLOW_LIST_PARAMS,
} from '../query-params.js';
import { validBody } from '../request-body.js';
import { badParams, envNotFound } from '../responses.js';
import { workflowsOf } from '../route-context.js';
import type { PathParam } from '../route-spec.js';
import type { WorkflowDetailBody, WorkflowListBody } from '../workflow-schemas.js';
import { workflowBody } from '../views.js';
import { answerStarted, START_EXAMPLE, startFields, startRefusals } from './workflow-runs.js';

/** The body of `POST /api/v1/workflows/{workflow_id}/runs` (it may be left out). */
export const startWorkflowRunRequestSchema = z
  .strictObject(startFields)
  .describe('A run of the workflow of the path');

type StartWorkflowRunRequest = z.infer<typeof startWorkflowRunRequestSchema>;

const workflowKeyParam: PathParam = {
  name: 'workflow_id',
  description: 'The workflow: the id in its file (e.g. incident-triage) or its row id',
  schema: pathKeySchema,
};

/** GET /api/v1/workflows: a page of workflows, optionally of one environment. */
export const listWorkflowsRoute = defineRoute({
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
  handle(ctx) {
    const { store } = ctx.deps;
    return async (req: Request, res: Response): Promise<void> => {
      const q = parseQuery(req.query as Record<string, unknown>, WORKFLOW_LIST_PARAMS);
      const environmentId = await environmentFilter(store, q);
      // Workflows are few (files of a workspace): read at once and paged in memory.
      const [all, environments] = await Promise.all([
        store.workflows.list(environmentId !== undefined ? { environmentId } : {}),
        store.environments.list(),
      ]);
      const names = new Map(environments.map((env) => [env.id, env.name]));
      const body: WorkflowListBody = {
        workflows: all
          .slice(q.offset, q.offset + q.limit)
          .map((w) => workflowBody(w, names.get(w.environmentId) ?? null)),
        limit: q.limit,
        offset: q.offset,
        has_more: q.offset + q.limit < all.length,
      };
      res.json(body);
    };
  },
});

/** GET /api/v1/workflows/:workflow_id: by row id or the id in its file, with its definition. */
export const getWorkflowRoute = defineRoute({
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
    404: {
      description:
        'WORKFLOW_NOT_FOUND: no workflow has this id (in the environment named); sync the environment after adding a file',
      body: 'Error',
    },
    409: {
      description:
        'WORKFLOW_AMBIGUOUS: several environments have the workflow and none is "default"; name one with ?environment=',
      body: 'Error',
    },
  },
  handle(ctx) {
    const { store } = ctx.deps;
    return async (req: Request, res: Response): Promise<void> => {
      const key = parsePathKey(req.params.workflow_id, 'workflow_id');
      const q = parseQuery(req.query as Record<string, unknown>, WORKFLOW_DETAIL_PARAMS);
      const workflow = await findWorkflow(store, {
        workflow_id: key,
        ...(q.environment !== undefined ? { environment: q.environment } : {}),
      });
      const environment = await store.environments.get(workflow.environmentId);
      const body: WorkflowDetailBody = {
        workflow: {
          ...workflowBody(workflow, environment?.name ?? null),
          definition: ctx.redact(workflow.definition) as Record<string, unknown>,
        },
      };
      res.json(body);
    };
  },
});

/**
 * POST /api/v1/workflows/:workflow_id/runs → 202 with the run through the one door for
 * workflow runs (200 when an idempotency key answers the run it started before).
 */
export const startWorkflowRunRoute = defineRoute({
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
  body: { schema: startWorkflowRunRequestSchema, optional: true },
  responses: startRefusals('INVALID_PARAMETER: workflow_id is malformed; '),
  handle(ctx) {
    const workflows = workflowsOf(ctx);
    return async (req: Request, res: Response): Promise<void> => {
      const key = parsePathKey(req.params.workflow_id, 'workflow_id');
      parseQuery(req.query as Record<string, unknown>, NO_PARAMS);
      const input: StartWorkflowRunRequest = validBody(
        req.body ?? {},
        startWorkflowRunRequestSchema,
        START_EXAMPLE,
      );
      const started = await workflows.start({ ...input, workflow_id: key, source: 'api' });
      answerStarted(ctx, started, res);
    };
  },
});

/** The workflow routes, in the order they are mounted and documented. */
export const WORKFLOW_ROUTES = [
  listWorkflowsRoute,
  getWorkflowRoute,
  startWorkflowRunRoute,
] as const;
