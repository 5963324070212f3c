// GET /api/v1/workflows, GET /api/v1/workflows/:workflow_id,
// POST /api/v1/workflows/:workflow_id/runs.
import { findWorkflow } from '@junction/workflows';
import type { Request, RequestHandler, Response } from 'express';
import { environmentFilter } from '../environment-filter.js';
import {
  NO_PARAMS,
  parsePathKey,
  parseQuery,
  WORKFLOW_DETAIL_PARAMS,
  WORKFLOW_LIST_PARAMS,
} from '../query-params.js';
import { validBody } from '../request-body.js';
import { workflowsOf, type RouteContext } from '../route-context.js';
import {
  startWorkflowRunRequestSchema,
  type WorkflowDetailBody,
  type WorkflowListBody,
} from '../schemas.js';
import { workflowBody } from '../views.js';
import { answerStarted, START_EXAMPLE } from './workflow-runs.js';

/** GET /api/v1/workflows: a page of workflows, optionally of one environment. */
export function listWorkflows(ctx: RouteContext): RequestHandler {
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
}

/** GET /api/v1/workflows/:workflow_id: by row id or the id in its file, with its definition. */
export function getWorkflow(ctx: RouteContext): RequestHandler {
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
}

/**
 * POST /api/v1/workflows/:workflow_id/runs → 202 with the run through the one door for
 * workflow runs (200 when an idempotency key answers the run it started before).
 */
export function startWorkflowRun(ctx: RouteContext): RequestHandler {
  const workflows = workflowsOf(ctx);
  return async (req: Request, res: Response): Promise<void> => {
    const key = parsePathKey(req.params.workflow_id, 'workflow_id');
    parseQuery(req.query as Record<string, unknown>, NO_PARAMS);
    const input = validBody(req.body ?? {}, startWorkflowRunRequestSchema, START_EXAMPLE);
    const started = await workflows.start({ ...input, workflow_id: key, source: 'api' });
    answerStarted(ctx, started, res);
  };
}
