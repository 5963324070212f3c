// GET /api/v1/schedules, POST /api/v1/schedules, GET and DELETE /api/v1/schedules/:schedule_id,
// POST /api/v1/schedules/:schedule_id/run. The rules are @junction/scheduler's (which agent or
// workflow a request means, the cron check, the one view); this file only words them for HTTP.
import { hasControlCharacter, MAX_INPUT_DEPTH } from '@junction/config-templates';
import { refusingReservedKeys, runRequestFields } from '@junction/agent-core/runs';
import {
  findScheduleTarget,
  ScheduleError,
  scheduleView,
  setSchedule as setOperatorSchedule,
  type ScheduleTargetRef,
} from '@junction/scheduler';
import {
  SCHEDULE_CATCH_UPS,
  SCHEDULE_KINDS,
  SCHEDULE_OVERLAPS,
  type Schedule,
  type Store,
} from '@junction/store';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { defineRoute } from '../define-route.js';
import { environmentFilter } from '../environment-filter.js';
import { NO_PARAMS, parsePathId, parseQuery, SCHEDULE_LIST_PARAMS } from '../query-params.js';
import { validBody } from '../request-body.js';
import { badParams, envNotFound, notJson, tooLarge } from '../responses.js';
import type { RouteContext } from '../route-context.js';
import type { PathParam, ResponseSpec } from '../route-spec.js';
import type { ScheduleBody, ScheduleListBody, ScheduleRunAnswerBody } from '../schemas.js';

const scheduleText = (field: string, what: string, max: number): z.ZodString =>
  z
    .string({ error: `${field} must be a string: ${what}` })
    .max(max, { error: `${field} must be at most ${max} characters` })
    .refine((text) => !hasControlCharacter(text), {
      error: `${field} must not contain control characters`,
    });

/** The body of `POST /api/v1/schedules`: what to schedule, and when. */
export const setScheduleRequestSchema = z
  .strictObject({
    kind: z
      .enum(SCHEDULE_KINDS, { error: `kind must be one of ${SCHEDULE_KINDS.join(', ')}` })
      .optional()
      .describe(
        'agent or workflow; without it, a name that is both an agent and a workflow is refused (409)',
      ),
    name: scheduleText('name', "the agent's name or the workflow's id", 200)
      .optional()
      .describe(
        'The agent (by name) or workflow (by the id in its file) to schedule, in `environment`',
      ),
    agent_id: runRequestFields.agent_id
      .optional()
      .describe('The agent to schedule, by id (instead of name)'),
    environment: runRequestFields.environment
      .optional()
      .describe('Environment of `name` (default "default")'),
    cron: z
      .string({
        error: (issue) =>
          issue.input === undefined
            ? 'cron is required: a cron expression such as "0 9 * * 1-5"'
            : 'cron must be a string: a cron expression such as "0 9 * * 1-5"',
      })
      .max(200, { error: 'cron must be at most 200 characters' })
      .describe('5 fields (minute hour day month weekday), or 6 with seconds first'),
    timezone: scheduleText('timezone', 'an IANA time zone such as "Europe/Paris"', 100)
      .optional()
      .describe('IANA time zone of the cron (default: the time zone of the process that fires it)'),
    enabled: z
      .boolean({ error: 'enabled must be true or false' })
      .optional()
      .describe('false: stored, but it does not fire (default true)'),
    task: runRequestFields.task
      .optional()
      .describe("Agents: the task of each run (default: the scheduler's, from the description)"),
    variables: runRequestFields.variables
      .optional()
      .describe('Agents: values for the prompt template variables of each run'),
    input: refusingReservedKeys(
      'input',
      'field',
      z.record(z.string(), z.unknown(), {
        error: 'input must be a JSON object, such as {"ticket": "T-1"}',
      }),
    )
      .optional()
      .describe(
        `Workflows: the input of each run, nested at most ${MAX_INPUT_DEPTH} levels (checked against its inputSchema when it fires)`,
      ),
    catch_up: z
      .enum(SCHEDULE_CATCH_UPS, {
        error: `catch_up must be one of ${SCHEDULE_CATCH_UPS.join(', ')}`,
      })
      .optional()
      .describe('A fire missed while no scheduler ran: once (default) or skip'),
    overlap: z
      .enum(SCHEDULE_OVERLAPS, { error: `overlap must be one of ${SCHEDULE_OVERLAPS.join(', ')}` })
      .optional()
      .describe('A fire while the previous run still runs: skip (default) or queue'),
  })
  .superRefine((body, ctx) => {
    if (body.agent_id === undefined) return;
    // An id names one agent: a name, environment or workflow kind beside it could only disagree.
    const beside = (['name', 'environment'] as const).find((key) => body[key] !== undefined);
    if (beside !== undefined || body.kind === 'workflow') {
      ctx.addIssue({
        code: 'custom',
        path: ['agent_id'],
        message:
          beside !== undefined
            ? `agent_id names one agent: leave out ${beside}, or send name (and environment) without agent_id`
            : 'agent_id names an agent: a workflow schedule takes name (the workflow id) and kind "workflow"',
      });
    }
  })
  .describe('A schedule of an agent (name or agent_id) or a workflow (name), set by an operator');

const SET_EXAMPLE = '{"name": "triage", "cron": "0 9 * * 1-5", "timezone": "Europe/Paris"}';

/** The view of a schedule as this API answers it: secret-looking variables and input redacted. */
function scheduleBody(ctx: RouteContext, schedule: Schedule): ScheduleBody {
  return ctx.redact(scheduleView(schedule)) as ScheduleBody;
}

/** The schedule of the path, or SCHEDULE_NOT_FOUND. */
async function scheduleOf(store: Pick<Store, 'schedules'>, req: Request): Promise<Schedule> {
  const id = parsePathId(req.params.schedule_id, 'schedule_id');
  parseQuery(req.query as Record<string, unknown>, NO_PARAMS);
  const schedule = await store.schedules.get(id);
  if (!schedule) {
    throw new ScheduleError(
      'SCHEDULE_NOT_FOUND',
      `No schedule has id ${id}. GET /api/v1/schedules lists them.`,
      { schedule_id: id },
    );
  }
  return schedule;
}

const scheduleParam: PathParam = { name: 'schedule_id', description: 'The schedule id' };

const badScheduleId = badParams(
  'schedule_id is not a positive whole number, or a query parameter was given',
);

const scheduleNotFound: ResponseSpec = {
  description: 'SCHEDULE_NOT_FOUND: no schedule has this id',
  body: 'Error',
};

/** GET /api/v1/schedules: a page of schedules, soonest next fire first. */
export const listSchedulesRoute = defineRoute({
  operationId: 'listSchedules',
  method: 'get',
  path: '/api/v1/schedules',
  summary: 'List schedules',
  description:
    'Schedules of agents and workflows (from their files and set by operators), soonest next fire first, disabled ones last.',
  tag: 'schedules',
  auth: true,
  query: SCHEDULE_LIST_PARAMS,
  pathParams: [],
  responses: {
    200: { description: 'A page of schedules', body: 'ScheduleList' },
    400: badParams('an unknown, repeated or malformed query parameter'),
    404: envNotFound,
  },
  handle(ctx) {
    const { store } = ctx.deps;
    return async (req: Request, res: Response): Promise<void> => {
      const q = parseQuery(req.query as Record<string, unknown>, SCHEDULE_LIST_PARAMS);
      const environmentId = await environmentFilter(store, q);
      // Schedules are few (one per agent or workflow at most): read at once and paged in memory.
      const all = await store.schedules.list({
        ...(q.kind !== undefined ? { kind: q.kind } : {}),
        ...(q.enabled !== undefined ? { enabled: q.enabled } : {}),
        ...(environmentId !== undefined ? { environmentId } : {}),
      });
      const body: ScheduleListBody = {
        items: all.slice(q.offset, q.offset + q.limit).map((s) => scheduleBody(ctx, s)),
        total: all.length,
        limit: q.limit,
        offset: q.offset,
      };
      res.json(body);
    };
  },
});

/** POST /api/v1/schedules: 201 with a new schedule, 200 when it replaced the target's. */
export const setScheduleRoute = defineRoute({
  operationId: 'setSchedule',
  method: 'post',
  path: '/api/v1/schedules',
  summary: 'Set the schedule of an agent or workflow',
  description:
    "Creates or replaces the one schedule of an agent (by name or agent_id) or a workflow (by name, its id in the file), as an operator: a later sync keeps it. The cron and time zone are checked as a file's are. The schedule fires in whichever process holds the scheduler lease. Nothing is written when the answer is an error.",
  tag: 'schedules',
  auth: true,
  query: NO_PARAMS,
  pathParams: [],
  body: { schema: setScheduleRequestSchema },
  responses: {
    200: {
      description: 'The schedule, replacing the one the agent or workflow had',
      body: 'Schedule',
      location: 'The schedule: /api/v1/schedules/{schedule_id}',
    },
    201: {
      description: 'The schedule, new',
      body: 'Schedule',
      location: 'The schedule: /api/v1/schedules/{schedule_id}',
    },
    400: {
      description:
        'INVALID_JSON: the body is not JSON; INVALID_BODY: a field is missing, of the wrong type or unknown, or agent_id is sent with name or environment (details.field names it); SCHEDULE_INVALID: the cron, time zone or a field that does not fit the kind (input for an agent, task or variables for a workflow), an input nested more than 64 levels, or no agent or workflow named (details.field names it)',
      body: 'Error',
    },
    404: {
      description:
        'SCHEDULE_TARGET_NOT_FOUND: no agent has this id, no agent or workflow has this name in the environment, or no environment has that name',
      body: 'Error',
    },
    409: {
      description:
        'SCHEDULE_TARGET_AMBIGUOUS: the name is both an agent and a workflow in the environment; send kind',
      body: 'Error',
    },
    413: tooLarge,
    415: notJson,
  },
  handle(ctx) {
    const { store, now } = ctx.deps;
    return async (req: Request, res: Response): Promise<void> => {
      parseQuery(req.query as Record<string, unknown>, NO_PARAMS);
      const body = validBody(req.body, setScheduleRequestSchema, SET_EXAMPLE);
      const { kind, name, agent_id, environment, ...settings } = body;
      const ref: ScheduleTargetRef = {
        ...(kind !== undefined ? { kind } : {}),
        ...(name !== undefined ? { name } : {}),
        ...(agent_id !== undefined ? { agent_id } : {}),
        ...(environment !== undefined ? { environment } : {}),
      };
      // Whether it replaces one decides 201 or 200; a name without a target is refused by setSchedule.
      const target =
        name !== undefined || agent_id !== undefined
          ? await findScheduleTarget(store, ref)
          : undefined;
      const existed = target ? await store.schedules.getFor(target.kind, target.id) : undefined;
      const schedule = await setOperatorSchedule(store, ref, settings, now());
      ctx.deps.scheduler?.changed();
      ctx.deps.logger.info(existed ? 'schedule replaced' : 'schedule set', {
        schedule_id: schedule.id,
        kind: schedule.kind,
        target: schedule.target,
        cron: schedule.cron,
        source: 'api',
      });
      res
        .status(existed ? 200 : 201)
        .location(`/api/v1/schedules/${schedule.id}`)
        .json(scheduleBody(ctx, schedule));
    };
  },
});

/** GET /api/v1/schedules/:schedule_id. */
export const getScheduleRoute = defineRoute({
  operationId: 'getSchedule',
  method: 'get',
  path: '/api/v1/schedules/:schedule_id',
  summary: 'Get a schedule',
  description: 'One schedule with its next fire and how its last fire went.',
  tag: 'schedules',
  auth: true,
  query: NO_PARAMS,
  pathParams: [scheduleParam],
  responses: {
    200: { description: 'The schedule', body: 'Schedule' },
    400: badScheduleId,
    404: scheduleNotFound,
  },
  handle(ctx) {
    const { store } = ctx.deps;
    return async (req: Request, res: Response): Promise<void> => {
      res.json(scheduleBody(ctx, await scheduleOf(store, req)));
    };
  },
});

/** DELETE /api/v1/schedules/:schedule_id: 200 with the schedule as it was. */
export const removeScheduleRoute = defineRoute({
  operationId: 'removeSchedule',
  method: 'delete',
  path: '/api/v1/schedules/:schedule_id',
  summary: 'Remove a schedule',
  description:
    'Removes the schedule and answers it as it was. A schedule from a file comes back at the next sync while the file still has it: remove it from the file, or set enabled false.',
  tag: 'schedules',
  auth: true,
  query: NO_PARAMS,
  pathParams: [scheduleParam],
  responses: {
    200: { description: 'The schedule removed', body: 'Schedule' },
    400: badScheduleId,
    404: scheduleNotFound,
  },
  handle(ctx) {
    const { store } = ctx.deps;
    return async (req: Request, res: Response): Promise<void> => {
      const schedule = await scheduleOf(store, req);
      await store.schedules.remove(schedule.id);
      ctx.deps.scheduler?.changed();
      ctx.deps.logger.info('schedule removed', {
        schedule_id: schedule.id,
        kind: schedule.kind,
        target: schedule.target,
        source: 'api',
      });
      res.json(scheduleBody(ctx, schedule));
    };
  },
});

/** POST /api/v1/schedules/:schedule_id/run: fires it now through this process's scheduler; 202. */
export const runScheduleRoute = defineRoute({
  operationId: 'runSchedule',
  method: 'post',
  path: '/api/v1/schedules/:schedule_id/run',
  summary: 'Fire a schedule now',
  description:
    'Fires the schedule at once (a disabled one too), as its due time would: a run with source cron_scheduler, its task and variables (or its workflow input); its overlap policy applies. Its next fire stays. Answers 202 with how the fire went whatever the outcome: a run was started (run_id; the Location header) or not (error says why). Needs a process that runs the scheduler. Takes no body (one sent is not read).',
  tag: 'schedules',
  auth: true,
  query: NO_PARAMS,
  pathParams: [scheduleParam],
  responses: {
    202: {
      description: 'The fire: outcome, the run it started, the schedule after it',
      body: 'ScheduleRunAnswer',
      location:
        'The run it started: /api/v1/runs/{run_id} (agent) or /api/v1/workflow-runs/{workflow_run_id} (workflow)',
    },
    400: badScheduleId,
    404: scheduleNotFound,
    503: {
      description:
        'SCHEDULER_UNAVAILABLE: this process runs no scheduler (it executes no runs); DATABASE_UNAVAILABLE',
      body: 'Error',
    },
  },
  handle(ctx) {
    const { store } = ctx.deps;
    return async (req: Request, res: Response): Promise<void> => {
      const schedule = await scheduleOf(store, req);
      const { scheduler } = ctx.deps;
      if (!scheduler) {
        throw new ScheduleError(
          'SCHEDULER_UNAVAILABLE',
          'This process runs no scheduler (it executes no runs), so it cannot fire a schedule. Send this to `junction serve` or api-server.',
          { schedule_id: schedule.id },
        );
      }
      const fired = await scheduler.fire(schedule, { now: true });
      const after = (await store.schedules.get(schedule.id)) ?? schedule;
      ctx.deps.logger.info('schedule fired now', {
        schedule_id: schedule.id,
        outcome: fired.outcome,
        ...(fired.runId !== undefined ? { run_id: fired.runId } : {}),
        source: 'api',
      });
      const body: ScheduleRunAnswerBody = {
        schedule: scheduleBody(ctx, after),
        outcome: fired.outcome,
        ...(fired.runId !== undefined ? { run_id: fired.runId } : {}),
        ...(fired.error !== undefined ? { error: ctx.clean(fired.error) } : {}),
      };
      if (fired.runId !== undefined) {
        const runs = schedule.kind === 'agent' ? 'runs' : 'workflow-runs';
        res.location(`/api/v1/${runs}/${fired.runId}`);
      }
      res.status(202).json(body);
    };
  },
});

/** The schedule routes, in the order they are mounted and documented. */
export const SCHEDULE_ROUTES = [
  listSchedulesRoute,
  setScheduleRoute,
  getScheduleRoute,
  removeScheduleRoute,
  runScheduleRoute,
] as const;
