// GET /api/v1/agents, GET /api/v1/agents/:agent_id, POST /api/v1/agents/:agent_id/queue,
// POST /api/v1/runs.
import { requireAgent } from '@junction/agent-core/agents';
import type { Run } from '@junction/store';
import type { Request, RequestHandler, Response } from 'express';
import { environmentFilter } from '../environment-filter.js';
import { AGENT_LIST_PARAMS, NO_PARAMS, parsePathId, parseQuery } from '../query-params.js';
import { validBody } from '../request-body.js';
import type { RouteContext } from '../route-context.js';
import { runBody, agentBody } from '../views.js';
import {
  queueRequestSchema,
  submitRunRequestSchema,
  type AgentBody,
  type AgentListBody,
  type QueuedRunBody,
  type QueueRequest,
} from '../schemas.js';

/** GET /api/v1/agents: a page of agents, optionally of one environment. */
export function listAgents(ctx: RouteContext): RequestHandler {
  const { store } = ctx.deps;
  return async (req: Request, res: Response): Promise<void> => {
    const q = parseQuery(req.query as Record<string, unknown>, AGENT_LIST_PARAMS);
    const environmentId = await environmentFilter(store, q);
    const filter = environmentId !== undefined ? { environmentId } : {};
    const [agents, total] = await Promise.all([
      store.agents.list({ ...filter, limit: q.limit, offset: q.offset }),
      store.agents.count(filter),
    ]);
    const items: AgentBody[] = [];
    for (const agent of agents) items.push(await agentBody(store, agent));
    const body: AgentListBody = { items, total, limit: q.limit, offset: q.offset };
    res.json(body);
  };
}

/** GET /api/v1/agents/:agent_id. */
export function getAgent(ctx: RouteContext): RequestHandler {
  const { store } = ctx.deps;
  return async (req: Request, res: Response): Promise<void> => {
    const agentId = parsePathId(req.params.agent_id, 'agent_id');
    parseQuery(req.query as Record<string, unknown>, NO_PARAMS);
    const body: AgentBody = await agentBody(store, await requireAgent(store, agentId));
    res.json(body);
  };
}

/**
 * POST /api/v1/agents/:agent_id/queue → 202 with the queued run, through the one run door:
 * every check (id, body, agent, model) runs before the run is written, so an error answer
 * never leaves a run behind.
 */
export function queueRun(ctx: RouteContext): RequestHandler {
  const { runs } = ctx.deps;
  return async (req: Request, res: Response): Promise<void> => {
    const agentId = parsePathId(req.params.agent_id, 'agent_id');
    parseQuery(req.query as Record<string, unknown>, NO_PARAMS);
    const input: QueueRequest = validBody(req.body, queueRequestSchema);
    const { run, agent } = await runs.submit({
      agent_id: agentId,
      task: input.task,
      variables: input.variables,
      source: 'api',
    });
    answerQueued(ctx, run, agent.name, res);
  };
}

/**
 * POST /api/v1/runs → 202 with the queued run: the agent by `agent_id`, or by `agent_name`
 * (with `environment`), found by the run door's one rule, as on every other surface.
 */
export function submitRun(ctx: RouteContext): RequestHandler {
  const { runs } = ctx.deps;
  return async (req: Request, res: Response): Promise<void> => {
    parseQuery(req.query as Record<string, unknown>, NO_PARAMS);
    const input = validBody(req.body, submitRunRequestSchema);
    const submitted = await runs.submit({ ...input, source: 'api' });
    answerQueued(ctx, submitted.run, submitted.agent.name, res);
  };
}

/** 202 with the queued run, its redacted variables and where to follow it. */
function answerQueued(ctx: RouteContext, run: Run, agentName: string, res: Response): void {
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
