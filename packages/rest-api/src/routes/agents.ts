// GET /api/v1/agents, GET /api/v1/agents/:agent_id, POST /api/v1/agents/:agent_id/queue.
import type { Agent, Store } from '@junction/store';
import type { Request, RequestHandler, Response } from 'express';
import { environmentFilter } from '../environment-filter.js';
import { RestApiError } from '../errors.js';
import { AGENT_LIST_PARAMS, NO_PARAMS, parsePathId, parseQuery } from '../query-params.js';
import type { RouteContext } from '../route-context.js';
import { runBody, agentBody } from '../views.js';
import {
  queueRequestSchema,
  type AgentBody,
  type AgentListBody,
  type QueuedRunBody,
  type QueueRequest,
} from '../schemas.js';

async function requireAgent(store: Store, agentId: number): Promise<Agent> {
  const agent = await store.agents.get(agentId);
  if (!agent) {
    throw new RestApiError(
      'AGENT_NOT_FOUND',
      `No agent has id ${agentId}. GET /api/v1/agents lists the agents and their ids.`,
      { agent_id: agentId },
    );
  }
  return agent;
}

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

function validBody(body: unknown): QueueRequest {
  const result = queueRequestSchema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue?.code === 'unrecognized_keys') {
    const field = issue.keys[0] ?? '';
    throw new RestApiError(
      'INVALID_BODY',
      `Unknown field "${field}" in the body; it takes task (string) and variables (object of strings).`,
      { field },
    );
  }
  if (!issue || issue.path.length === 0) {
    throw new RestApiError(
      'INVALID_BODY',
      'The body must be a JSON object such as {"task": "…", "variables": {"NAME": "value"}}.',
      { field: '(body)' },
    );
  }
  const field = issue.path.map(String).join('.');
  throw new RestApiError('INVALID_BODY', `${field} ${issue.message}.`, { field });
}

/**
 * POST /api/v1/agents/:agent_id/queue → 202 with the queued run. Every check (id, body,
 * agent, checkAgent) runs before enqueue, so an error answer never leaves a run behind.
 */
export function queueRun(ctx: RouteContext): RequestHandler {
  const { store, queue, checkAgent, logger } = ctx.deps;
  return async (req: Request, res: Response): Promise<void> => {
    const agentId = parsePathId(req.params.agent_id, 'agent_id');
    parseQuery(req.query as Record<string, unknown>, NO_PARAMS);
    const input = validBody(req.body);
    const agent = await requireAgent(store, agentId);
    checkAgent?.(agent);
    const run = await queue.enqueue({
      agent,
      task: input.task,
      ...(input.variables !== undefined ? { variables: input.variables } : {}),
      source: 'api',
    });
    logger.info('run queued', {
      run_id: run.id,
      agent_id: agent.id,
      agent_name: agent.name,
      source: 'api',
    });
    const location = `/api/v1/runs/${run.id}`;
    const body: QueuedRunBody = {
      ...runBody(run),
      variables: ctx.redact(run.variables) as Record<string, string>,
      message: `Run ${run.id} of agent "${agent.name}" queued; GET ${location} for its status.`,
    };
    res.status(202).location(location).json(body);
  };
}

/** Refuses a body that is not JSON before it is read: 415 UNSUPPORTED_MEDIA_TYPE. */
export function requireJson(): RequestHandler {
  return (req, _res, next): void => {
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type)) {
      next();
      return;
    }
    next(
      new RestApiError(
        'UNSUPPORTED_MEDIA_TYPE',
        type === ''
          ? 'Send the body as JSON with "Content-Type: application/json".'
          : `Content-Type ${JSON.stringify(type)} is not accepted; send the body as JSON with "Content-Type: application/json".`,
        { content_type: type === '' ? null : type },
      ),
    );
  };
}
