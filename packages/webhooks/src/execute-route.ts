// POST /execute (when webhook.enabled): a run through the one run door, queued at once.
import type { IncomingMessage } from 'node:http';
import express, { type Request, type RequestHandler, type Response } from 'express';
import { defineRoute } from './define-route.js';
import { WebhookError } from './errors.js';
import { parseExecuteRequest } from './execute-request.js';
import { idempotencyKeyOf } from './idempotency.js';
import { executeAccepted } from './run-view.js';
import type { WebhookContext } from './webhook-context.js';

const JSON_TYPE = /^application\/(?:json|[a-z0-9!#$&^_.-]+\+json)$/;

/** A 415 refusal unless the request says its body is JSON. */
function jsonTypeRefusal(req: IncomingMessage): WebhookError | undefined {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (JSON_TYPE.test(type)) return undefined;
  return new WebhookError(
    'UNSUPPORTED_MEDIA_TYPE',
    type === ''
      ? 'Content-Type is missing: send the body as JSON with "Content-Type: application/json".'
      : `Content-Type ${JSON.stringify(type)} is not accepted: send the body as JSON with "Content-Type: application/json".`,
    { content_type: type },
  );
}

async function execute(ctx: WebhookContext, req: Request, res: Response): Promise<void> {
  const { deps, logger } = ctx;
  const body = parseExecuteRequest(req.body);
  const key = idempotencyKeyOf(req.get('idempotency-key'));
  const { run, agent, replayed } = await deps.runs.submit({
    agent_id: body.agent_id,
    agent_name: body.agent_name,
    environment: body.environment,
    task: body.task,
    variables: body.variables,
    source: 'webhook',
    idempotency_key: key,
  });
  const location = `${req.baseUrl}/runs/${run.id}`;
  if (replayed) {
    logger.info('webhook request replayed', { run_id: run.id, agent_name: run.agentName });
    res
      .status(202)
      .set('Idempotent-Replayed', 'true')
      .location(location)
      .json(executeAccepted(run));
    return;
  }
  logger.info('webhook run queued', {
    run_id: run.id,
    agent_id: agent.id,
    agent_name: agent.name,
    idempotent: key !== undefined,
  });
  res.status(202).location(location).json(executeAccepted(run));
}

/** POST /execute: the key first, then type and size, so an unauthenticated caller never gets its body read. */
export const executeRoute = defineRoute({
  method: 'post',
  path: '/execute',
  needs: 'execute',
  handle(ctx) {
    const parseJson = express.json({ limit: ctx.maxBodyBytes, strict: false, type: () => true });
    const admit: RequestHandler = (req, res, next) => {
      const refusal = ctx.keyRefusal(req) ?? jsonTypeRefusal(req);
      if (refusal) next(refusal);
      else parseJson(req, res, next);
    };
    return [
      admit,
      async (req, res) => {
        await execute(ctx, req, res);
      },
    ];
  },
});
