// POST /api/v1/workflow-runs, GET /api/v1/workflow-runs, GET /api/v1/workflow-runs/:workflow_run_id,
// POST /api/v1/workflow-runs/:workflow_run_id/cancel.
import type { WorkflowRun } from '@junction/store';
import type { Request, RequestHandler, Response } from 'express';
import { environmentFilter } from '../environment-filter.js';
import { NO_PARAMS, parsePathId, parseQuery, WORKFLOW_RUN_LIST_PARAMS } from '../query-params.js';
import { validBody } from '../request-body.js';
import { workflowsOf, type RouteContext } from '../route-context.js';
import {
  submitWorkflowRunRequestSchema,
  type WorkflowRunAnswerBody,
  type WorkflowRunDetailBody,
  type WorkflowRunListBody,
} from '../schemas.js';
import { approvalBody, workflowRunBody, workflowStepBody } from '../views.js';

/** The body the start routes' refusals show as an example. */
export const START_EXAMPLE = '{"input": {"ticket": "T-1"}, "idempotency_key": "…"}';

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

/** POST /api/v1/workflow-runs: the workflow named in the body (the reference's clients call this). */
export function submitWorkflowRun(ctx: RouteContext): RequestHandler {
  const workflows = workflowsOf(ctx);
  return async (req: Request, res: Response): Promise<void> => {
    parseQuery(req.query as Record<string, unknown>, NO_PARAMS);
    const input = validBody(
      req.body,
      submitWorkflowRunRequestSchema,
      '{"workflow_id": "incident-triage", "input": {"ticket": "T-1"}}',
    );
    answerStarted(ctx, await workflows.start({ ...input, source: 'api' }), res);
  };
}

/** GET /api/v1/workflow-runs: a page of workflow runs, newest first. */
export function listWorkflowRuns(ctx: RouteContext): RequestHandler {
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
}

/** GET /api/v1/workflow-runs/:workflow_run_id: the run, its step attempts and its approvals. */
export function getWorkflowRun(ctx: RouteContext): RequestHandler {
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
}

/** POST /api/v1/workflow-runs/:workflow_run_id/cancel: 200 with the run, 409 once it has ended. */
export function cancelWorkflowRun(ctx: RouteContext): RequestHandler {
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
}
