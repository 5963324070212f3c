// Query and path parameters: one table per route drives both the validation and the
// OpenAPI `parameters`, so a documented parameter is always accepted and nothing else is.
import {
  DURATION_EXAMPLES,
  DURATION_PATTERN,
  ISO_TIME_PATTERN,
  MAX_DURATION_TEXT,
  TIME_FORMS,
  parseDuration,
  parseTimePoint,
  type TimePoint,
  type TimePointProblem,
} from '@junction/config-templates';
import {
  APPROVAL_STATUSES,
  RUN_SOURCES,
  RUN_STATUSES,
  SCHEDULE_KINDS,
  WORKFLOW_RUN_STATUSES,
  type RunStatusFilter,
  type WorkflowRunStatus,
} from '@junction/store';
import { hasControlCharacter } from '@junction/config-templates';
import { z } from 'zod';
import { RestApiError } from './errors.js';

/** One query parameter: its schema validates the decoded value and is published as is. */
export interface QueryParam<S extends z.ZodType = z.ZodType> {
  description: string;
  schema: S;
  /** Decoded from the query string as an integer before the schema sees it. */
  integer?: boolean;
}

export type QueryParams = Record<string, QueryParam>;

/** The parsed values, typed by each parameter's schema. */
export type QueryValues<P extends QueryParams> = { [K in keyof P]: z.output<P[K]['schema']> };

/** Default page size of every list. */
export const DEFAULT_LIMIT = 50;
/** Largest page size of every list. */
export const MAX_LIMIT = 1000;

function integer(description: string, min: number): QueryParam<z.ZodOptional<z.ZodInt>> {
  const schema = z
    .int({ error: 'must be a whole number' })
    .min(min, { error: `must be at least ${min}` });
  return { description, schema: schema.optional(), integer: true };
}

/** `limit` and `offset`, shared by every list. */
export const PAGE_PARAMS = {
  limit: {
    description: `Page size, 1 to ${MAX_LIMIT}`,
    schema: z
      .int({ error: 'must be a whole number' })
      .min(1, { error: 'must be at least 1' })
      .max(MAX_LIMIT, { error: `must be at most ${MAX_LIMIT}` })
      .default(DEFAULT_LIMIT),
    integer: true,
  },
  offset: {
    description: 'Records to skip',
    schema: z
      .int({ error: 'must be a whole number' })
      .min(0, { error: 'must be at least 0' })
      .default(0),
    integer: true,
  },
} satisfies QueryParams;

const name = (what: string): z.ZodOptional<z.ZodString> =>
  z
    .string()
    .min(1, { error: `must name ${what}` })
    .max(200, { error: 'must be at most 200 characters' })
    .optional();

const ENVIRONMENT_PARAMS = {
  environment: {
    description: 'Only this environment, by name (404 ENVIRONMENT_NOT_FOUND when unknown)',
    schema: name('an environment'),
  },
  environment_id: integer(
    'Only this environment, by id (404 ENVIRONMENT_NOT_FOUND when unknown)',
    1,
  ),
} satisfies QueryParams;

export const AGENT_LIST_PARAMS = { ...ENVIRONMENT_PARAMS, ...PAGE_PARAMS } satisfies QueryParams;

const STATUS_WORDS = [...RUN_STATUSES, 'failed'] as const;
const STATUS_LIST = new RegExp(`^(${STATUS_WORDS.join('|')})(,(${STATUS_WORDS.join('|')}))*$`);
// Durations and times are the shared grammar of @junction/config-templates; min_duration
// alone also takes a bare number, read as milliseconds (`5001` = `5001ms`), as it always has.
const BARE_MILLISECONDS = /^\d+$/;
const MIN_DURATION_FORMS = `a duration such as ${DURATION_EXAMPLES}, or a number of milliseconds`;

/** A point in time: a Date, or a number of milliseconds before now. */
export type TimeValue = TimePoint;

const TIME_PROBLEMS: Record<TimePointProblem, string> = {
  'not-a-time': `must be ${TIME_FORMS}`,
  'not-a-date': 'is not a valid date',
  'too-long': `is too long ago (at most ${MAX_DURATION_TEXT})`,
};

// Not annotated: the parameter's output type (TimeValue) is inferred from its schema.
const time = (description: string) =>
  ({
    description,
    schema: z
      .string()
      // The pattern is published in the OpenAPI document; parseTimePoint has the last word.
      .regex(new RegExp(`${ISO_TIME_PATTERN.source}|${DURATION_PATTERN.source}`), {
        error: TIME_PROBLEMS['not-a-time'],
      })
      .transform((text, ctx): TimeValue => {
        const result = parseTimePoint(text);
        if (result.ok) return result.time;
        ctx.addIssue({ code: 'custom', message: TIME_PROBLEMS[result.problem] });
        return z.NEVER;
      })
      .optional(),
  }) satisfies QueryParam;

export const RUN_LIST_PARAMS = {
  status: {
    description: `Only runs with this status, or several separated by commas: ${STATUS_WORDS.join(', ')} (failed = error)`,
    schema: z
      .string()
      .regex(STATUS_LIST, {
        error: `must be one or more of ${STATUS_WORDS.join(', ')}, comma-separated`,
      })
      .transform((text) => [...new Set(text.split(','))] as RunStatusFilter[])
      .optional(),
  },
  agent: { description: 'Only runs of the agent with this name', schema: name('an agent') },
  agent_id: integer('Only runs of the agent with this id', 1),
  ...ENVIRONMENT_PARAMS,
  source: {
    description: `Only runs started this way: ${RUN_SOURCES.join(', ')}`,
    schema: z.enum(RUN_SOURCES, { error: `must be one of ${RUN_SOURCES.join(', ')}` }).optional(),
  },
  min_duration: {
    description: `Only finished runs that took at least this long: ${MIN_DURATION_FORMS}`,
    schema: z
      .string()
      .regex(new RegExp(`${BARE_MILLISECONDS.source}|${DURATION_PATTERN.source}`), {
        error: `must be ${MIN_DURATION_FORMS}`,
      })
      .transform((text, ctx): number => {
        const result = parseDuration(BARE_MILLISECONDS.test(text) ? `${text}ms` : text);
        if (result.ok) return result.ms;
        ctx.addIssue({ code: 'custom', message: `must be at most ${MAX_DURATION_TEXT}` });
        return z.NEVER;
      })
      .optional(),
  },
  since: time(
    'Only runs queued at or after this time: ISO 8601, or a duration meaning that long ago (24h)',
  ),
  until: time('Only runs queued before this time: ISO 8601, or a duration meaning that long ago'),
  ...PAGE_PARAMS,
} satisfies QueryParams;

/** A true/false query parameter (`1` and `0` are accepted too). */
const flag = (description: string) =>
  ({
    description,
    schema: z
      .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
      .transform((text) => text === 'true' || text === '1'),
  }) satisfies QueryParam;

const verbose = flag('true to include the run events with their payloads');

export const RUN_DETAIL_PARAMS = {
  verbose: { ...verbose, schema: verbose.schema.default(false) },
} satisfies QueryParams;

export const NO_PARAMS = {} satisfies QueryParams;

export const WORKFLOW_LIST_PARAMS = { ...ENVIRONMENT_PARAMS, ...PAGE_PARAMS } satisfies QueryParams;

export const WORKFLOW_DETAIL_PARAMS = {
  environment: {
    description:
      'The environment of the workflow, by name (without it: "default", else the one environment that has it)',
    schema: name('an environment'),
  },
} satisfies QueryParams;

const WORKFLOW_RUN_STATUS_LIST = new RegExp(
  `^(${WORKFLOW_RUN_STATUSES.join('|')})(,(${WORKFLOW_RUN_STATUSES.join('|')}))*$`,
);

export const WORKFLOW_RUN_LIST_PARAMS = {
  workflow_id: {
    description:
      "Only runs of the workflow with this id (the id in its file, e.g. 'incident-triage')",
    schema: name('a workflow'),
  },
  status: {
    description: `Only runs with this status, or several separated by commas: ${WORKFLOW_RUN_STATUSES.join(', ')}`,
    schema: z
      .string()
      .regex(WORKFLOW_RUN_STATUS_LIST, {
        error: `must be one or more of ${WORKFLOW_RUN_STATUSES.join(', ')}, comma-separated`,
      })
      .transform((text) => [...new Set(text.split(','))] as WorkflowRunStatus[])
      .optional(),
  },
  ...ENVIRONMENT_PARAMS,
  ...PAGE_PARAMS,
} satisfies QueryParams;

export const APPROVAL_LIST_PARAMS = {
  status: {
    description: `Only approvals with this status: ${APPROVAL_STATUSES.join(', ')}`,
    schema: z
      .enum(APPROVAL_STATUSES, { error: `must be one of ${APPROVAL_STATUSES.join(', ')}` })
      .optional(),
  },
  workflow_run_id: integer('Only approvals of this workflow run', 1),
  ...PAGE_PARAMS,
} satisfies QueryParams;

const enabled = flag('Only enabled (true) or only disabled (false) schedules');

export const SCHEDULE_LIST_PARAMS = {
  kind: {
    description: `Only schedules of this kind: ${SCHEDULE_KINDS.join(', ')}`,
    schema: z
      .enum(SCHEDULE_KINDS, { error: `must be one of ${SCHEDULE_KINDS.join(', ')}` })
      .optional(),
  },
  ...ENVIRONMENT_PARAMS,
  enabled: { ...enabled, schema: enabled.schema.optional() },
  ...PAGE_PARAMS,
} satisfies QueryParams;

function got(raw: string): string {
  return raw.length > 100 ? `${JSON.stringify(raw.slice(0, 100))}…` : JSON.stringify(raw);
}

/**
 * Checks a query against a route's table: an unknown or repeated parameter, or a value its
 * schema refuses, is INVALID_PARAMETER naming the parameter.
 */
export function parseQuery<P extends QueryParams>(
  query: Record<string, unknown>,
  params: P,
): QueryValues<P> {
  for (const key of Object.keys(query)) {
    if (!Object.hasOwn(params, key)) {
      const known = Object.keys(params);
      throw new RestApiError(
        'INVALID_PARAMETER',
        known.length === 0
          ? `Unknown query parameter "${key}": this route takes none.`
          : `Unknown query parameter "${key}"; this route accepts ${known.join(', ')}.`,
        { field: key, location: 'query' },
      );
    }
  }
  const values: Record<string, unknown> = {};
  for (const [key, param] of Object.entries(params)) {
    const raw = query[key];
    if (raw !== undefined && typeof raw !== 'string') {
      throw new RestApiError(
        'INVALID_PARAMETER',
        `Query parameter "${key}" must be given once, as a plain value.`,
        { field: key, location: 'query' },
      );
    }
    const input =
      raw !== undefined && param.integer && /^[+-]?\d{1,16}$/.test(raw) ? Number(raw) : raw;
    const result = param.schema.safeParse(input);
    if (!result.success) {
      const problem = result.error.issues[0]?.message ?? 'is invalid';
      throw new RestApiError(
        'INVALID_PARAMETER',
        `Query parameter "${key}" ${problem}; got ${got(raw ?? '')}.`,
        { field: key, location: 'query', value: raw ?? null },
      );
    }
    values[key] = result.data;
  }
  return values as QueryValues<P>;
}

/** The schema of the `{agent_id}` and `{run_id}` path parameters. */
export const pathIdSchema = z.int().min(1).max(Number.MAX_SAFE_INTEGER);

/** Longest text path parameter (`{workflow_id}`, `{approval_id}`). */
export const MAX_PATH_KEY_LENGTH = 200;

/** The schema of text path parameters: a workflow's id in its file, an approval id. */
export const pathKeySchema = z
  .string()
  .min(1)
  .max(MAX_PATH_KEY_LENGTH)
  .refine((text) => !hasControlCharacter(text));

/** A path id (`agent_id`, `run_id`): a positive whole number, else INVALID_PARAMETER naming it. */
export function parsePathId(param: unknown, field: string): number {
  const raw = typeof param === 'string' ? param : undefined;
  const value = raw !== undefined && /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
  if (!pathIdSchema.safeParse(value).success) {
    throw new RestApiError(
      'INVALID_PARAMETER',
      `Path parameter "${field}" must be a positive whole number; got ${got(raw ?? '')}.`,
      { field, location: 'path', value: raw ?? null },
    );
  }
  return value;
}

/** A text path id (`workflow_id`, `approval_id`): 1 to 200 characters without control characters. */
export function parsePathKey(param: unknown, field: string): string {
  const raw = typeof param === 'string' ? param : '';
  if (!pathKeySchema.safeParse(raw).success) {
    throw new RestApiError(
      'INVALID_PARAMETER',
      `Path parameter "${field}" must be 1 to ${MAX_PATH_KEY_LENGTH} characters without control characters; got ${got(raw)}.`,
      { field, location: 'path', value: raw },
    );
  }
  return raw;
}

const TRACE_STATUSES = ['error', 'ok'] as const;

/** GET /api/v1/traces: the trace viewer's search. */
export const TRACE_LIST_PARAMS = {
  service: { description: 'Only traces with a span of this service', schema: name('a service') },
  operation: {
    description: 'Only traces with a span of this name (e.g. agent.execute)',
    schema: name('an operation'),
  },
  run_id: integer('Only traces with a span of this Junction run (attribute run_id)', 1),
  status: {
    description: 'error: traces with a span in error; ok: traces without one',
    schema: z
      .enum(TRACE_STATUSES, { error: `must be one of ${TRACE_STATUSES.join(', ')}` })
      .optional(),
  },
  since: time('Traces that started at or after this time'),
  until: time('Traces that started before this time'),
  limit: {
    description: 'Most traces answered, 1 to 200',
    schema: z
      .int({ error: 'must be a whole number' })
      .min(1, { error: 'must be at least 1' })
      .max(200, { error: 'must be at most 200' })
      .default(20),
    integer: true,
  },
} satisfies QueryParams;

/** The path parameter of GET /api/v1/traces/:trace_id (as published; the route checks it). */
export const TRACE_ID_SCHEMA = z.string().regex(/^[0-9a-fA-F]{32}$/);

/** GET /api/v1/mcp-servers. */
export const MCP_SERVER_LIST_PARAMS = { ...ENVIRONMENT_PARAMS } satisfies QueryParams;

/** GET /api/v1/runs/stream: the filters of the run list (its first page is what is streamed). */
export const RUN_STREAM_PARAMS = RUN_LIST_PARAMS;
