// GET /api/v1/agents, GET /api/v1/agents/:agent_id, POST /api/v1/agents/:agent_id/queue.
import { requireAgent } from '@junction/agent-core/agents';
import { runRequestFields } from '@junction/agent-core/runs';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { defineRoute } from '../define-route.js';
import { environmentFilter } from '../environment-filter.js';
import { AGENT_LIST_PARAMS, NO_PARAMS, parsePathId, parseQuery } from '../query-params.js';
import { validBody } from '../request-body.js';
import { badParams, envNotFound, modelRefused, notJson, tooLarge } from '../responses.js';
import type { ResponseSpec } from '../route-spec.js';
import type { AgentBody, AgentListBody } from '../schemas.js';
import { agentBody } from '../views.js';
import { answerQueued } from './runs.js';

/** The body of `POST /api/v1/agents/{agent_id}/queue`. */
export const queueRequestSchema = z
  .strictObject({
    task: runRequestFields.task.describe('What the agent should do ({{userInput}} of its prompt)'),
    variables: runRequestFields.variables
      .optional()
      .describe('Values for the prompt template variables'),
  })
  .describe('A task for the agent');

type QueueRequest = z.infer<typeof queueRequestSchema>;

const agentNotFound: ResponseSpec = {
  description: 'AGENT_NOT_FOUND: no agent has this id',
  body: 'Error',
};

/** GET /api/v1/agents: a page of agents, optionally of one environment. */
export const listAgentsRoute = defineRoute({
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
  handle(ctx) {
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
  },
});

/** GET /api/v1/agents/:agent_id. */
export const getAgentRoute = defineRoute({
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
    404: agentNotFound,
  },
  handle(ctx) {
    const { store } = ctx.deps;
    return async (req: Request, res: Response): Promise<void> => {
      const agentId = parsePathId(req.params.agent_id, 'agent_id');
      parseQuery(req.query as Record<string, unknown>, NO_PARAMS);
      const body: AgentBody = await agentBody(store, await requireAgent(store, agentId));
      res.json(body);
    };
  },
});

/**
 * POST /api/v1/agents/:agent_id/queue → 202 with the queued run, through the one run door:
 * every check (id, body, agent, model) runs before the run is written, so an error answer
 * never leaves a run behind.
 */
export const queueRunRoute = defineRoute({
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
  body: { schema: queueRequestSchema },
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
    404: agentNotFound,
    413: tooLarge,
    415: notJson,
    503: modelRefused,
  },
  handle(ctx) {
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
  },
});

/** The agent routes, in the order they are mounted and documented. */
export const AGENT_ROUTES = [listAgentsRoute, getAgentRoute, queueRunRoute] as const;
