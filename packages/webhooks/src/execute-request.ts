// The body of POST /execute (spec §4.1), checked with zod so the check and the type agree.
import { z } from 'zod';
import { runRequestFields } from '@junction/agent-core/runs';
import { WebhookError, type JsonValue } from './errors.js';

function isAgentId(value: unknown): boolean {
  const id = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value;
  return typeof id === 'number' && Number.isSafeInteger(id) && id > 0;
}

const agentIdSchema = z
  .custom<number | string>(isAgentId, {
    error: 'agent_id must be a positive whole number or a string of digits (for example "7")',
  })
  .transform((value) => Number(value));

/** POST /execute body: `agent_name` or `agent_id`, `task`, optional `variables` and `environment`. */
export const executeRequestSchema = z
  .object(
    {
      agent_name: runRequestFields.agent_name.optional(),
      agent_id: agentIdSchema.optional(),
      environment: runRequestFields.environment.optional(),
      task: runRequestFields.task,
      variables: runRequestFields.variables.optional(),
    },
    {
      error:
        'The body must be a JSON object: {"agent_name": "<agent>", "task": "<instruction>", "variables": {...}}',
    },
  )
  .superRefine((body, ctx) => {
    if (body.agent_name === undefined && body.agent_id === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['agent_name'],
        message: 'agent_name is required (or agent_id): the agent to run',
      });
    }
  });

/** A checked POST /execute body. */
export type ExecuteRequest = z.infer<typeof executeRequestSchema>;

/** Checks a parsed JSON body; INVALID_REQUEST naming every wrong or missing field otherwise. */
export function parseExecuteRequest(body: unknown): ExecuteRequest {
  const parsed = executeRequestSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => ({
    field: issue.path.map(String).join('.'),
    message: issue.message,
  }));
  const first = problems[0];
  const text = problems.map((p) => p.message).join('; ');
  const details: Record<string, JsonValue> = {
    problems: problems.map((p) => ({ field: p.field, message: p.message })),
  };
  if (first?.field) details.field = first.field;
  throw new WebhookError('INVALID_REQUEST', `Invalid request body: ${text}.`, details);
}
