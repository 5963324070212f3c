// The one shape of a request to start a run, whoever sends it (CLI, MCP, REST, POST /execute,
// workflow steps, the scheduler, the management platform). Surfaces build their wire schemas
// from these field schemas, so a task or a name is judged the same way everywhere.
import { z } from 'zod';
import { hasControlCharacter, MAX_RUN_TIMEOUT_SECONDS } from '@junction/config-templates';
import { isTraceParent } from '@junction/telemetry';
import { RUN_SOURCES } from '@junction/store';
import { AgentCoreError } from '../errors.js';

/** Longest agent or environment name a request may carry. */
export const MAX_NAME_LENGTH = 200;
/** Longest idempotency key. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

const positiveId = (field: string): z.ZodInt =>
  z
    .int({ error: `${field} must be a positive whole number` })
    .min(1, { error: `${field} must be a positive whole number` })
    .max(Number.MAX_SAFE_INTEGER, { error: `${field} is too large to be an id` });

const name = (field: string, what: string): z.ZodString =>
  z
    .string({ error: `${field} must be a string: the name of ${what}` })
    .trim()
    .min(1, { error: `${field} must not be empty` })
    .max(MAX_NAME_LENGTH, { error: `${field} must be at most ${MAX_NAME_LENGTH} characters` })
    .refine((text) => !hasControlCharacter(text), {
      error: `${field} must not contain control characters (line breaks, NUL, escapes)`,
    });

/** Object keys JavaScript gives a meaning of their own, which no variable or input field may be named. */
const RESERVED_KEYS = new Set(['__proto__', 'constructor']);

/**
 * `schema` (a record) behind a check that refuses, by name, a key `__proto__` or
 * `constructor`: zod's record skips an own "__proto__" key without a word (JSON.parse makes
 * one) and calls an object with an own "constructor" key "not an object". Every surface's
 * wire schema of a key-value object goes through this, so no request loses a key silently.
 */
export function refusingReservedKeys<T extends z.ZodType>(
  field: string,
  what: string,
  schema: T,
): z.ZodPipe<z.ZodTransform<unknown, unknown>, T> {
  return z.preprocess((input, ctx) => {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) return input;
    const kept: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(input)) {
      if (RESERVED_KEYS.has(key)) {
        ctx.issues.push({
          code: 'custom',
          input,
          path: [key],
          message: `${field} may not have a ${what} named "${key}"; rename it`,
        });
      } else {
        kept[key] = value;
      }
    }
    return kept;
  }, schema);
}

/** The field schemas of a run request; surfaces reuse them in their own wire schemas. */
export const runRequestFields = {
  agent_id: positiveId('agent_id'),
  agent_name: name('agent_name', 'the agent to run'),
  environment: name('environment', 'an environment'),
  environment_id: positiveId('environment_id'),
  /** Stored exactly as sent; it must hold something besides white space. */
  task: z
    .string({
      error: (issue) =>
        issue.input === undefined
          ? 'task is required: the instruction for the agent, as a string'
          : 'task must be a string: the instruction for the agent',
    })
    .refine((task) => task.trim().length > 0, { error: 'task must not be empty' }),
  variables: refusingReservedKeys(
    'variables',
    'variable',
    z.record(z.string(), z.string({ error: 'each value in variables must be a string' }), {
      error: 'variables must be an object of string values, such as {"city": "Paris"}',
    }),
  ),
  source: z.enum(RUN_SOURCES, { error: `source must be one of ${RUN_SOURCES.join(', ')}` }),
  parent_run_id: positiveId('parent_run_id'),
  idempotency_key: z
    .string({ error: 'idempotency_key must be a string' })
    .regex(/^[\x21-\x7e]+$/, {
      error: `idempotency_key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters without spaces (a UUID works well)`,
    })
    .max(MAX_IDEMPOTENCY_KEY_LENGTH, {
      error: `idempotency_key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters without spaces (a UUID works well)`,
    }),
  timeout_seconds: z
    .number({ error: 'timeout_seconds must be a number of seconds' })
    .positive({ error: 'timeout_seconds must be more than 0' })
    .max(MAX_RUN_TIMEOUT_SECONDS, {
      error: `timeout_seconds must be at most ${MAX_RUN_TIMEOUT_SECONDS}`,
    }),
  /** The W3C traceparent of the span starting the run (a workflow step): its spans nest there. */
  trace_parent: z
    .string({ error: 'trace_parent must be a W3C traceparent string' })
    .refine((value) => isTraceParent(value), {
      error: 'trace_parent must be a W3C traceparent: 00-<32 hex>-<16 hex>-<2 hex>',
    }),
} as const;

const f = runRequestFields;

/**
 * A request to start a run: the agent by `agent_id`, or by `agent_name` with an optional
 * `environment` (name) or `environment_id`; the task; variables; what sent it.
 */
export const runRequestSchema = z.strictObject(
  {
    agent_id: f.agent_id.optional(),
    agent_name: f.agent_name.optional(),
    environment: f.environment.optional(),
    environment_id: f.environment_id.optional(),
    task: f.task,
    variables: f.variables.optional(),
    source: f.source,
    parent_run_id: f.parent_run_id.optional(),
    idempotency_key: f.idempotency_key.optional(),
    timeout_seconds: f.timeout_seconds.optional(),
    trace_parent: f.trace_parent.optional(),
  },
  { error: 'A run request must be an object with an agent, a task and a source.' },
);

/** What a caller hands to `submitRun`. */
export type RunRequestInput = z.input<typeof runRequestSchema>;
/** A checked run request. */
export type RunRequest = z.output<typeof runRequestSchema>;

/** Checks a run request; RUN_REQUEST_INVALID naming every wrong field otherwise. */
export function parseRunRequest(input: RunRequestInput): RunRequest {
  const parsed = runRequestSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => ({
    field:
      issue.path.map(String).join('.') ||
      (issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : ''),
    message:
      issue.code === 'unrecognized_keys'
        ? `unknown field ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`
        : issue.message,
  }));
  throw new AgentCoreError(
    'RUN_REQUEST_INVALID',
    `Invalid run request: ${problems.map((p) => p.message).join('; ')}.`,
    { field: problems[0]?.field ?? '', problems },
  );
}
