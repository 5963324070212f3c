// GET /api/v1/schedules, POST /api/v1/schedules, GET and DELETE /api/v1/schedules/:schedule_id,
// POST /api/v1/schedules/:schedule_id/run. The rules are @junction/scheduler's (which agent or
// workflow a request means, the cron check, the one view); this file only words them for HTTP.
import {
  findScheduleTarget,
  ScheduleError,
  scheduleView,
  setSchedule as setOperatorSchedule,
  type ScheduleTargetRef,
} from '@junction/scheduler';
import type { Schedule, Store } from '@junction/store';
import type { Request, RequestHandler, Response } from 'express';
import { environmentFilter } from '../environment-filter.js';
import { NO_PARAMS, parsePathId, parseQuery, SCHEDULE_LIST_PARAMS } from '../query-params.js';
import { validBody } from '../request-body.js';
import type { RouteContext } from '../route-context.js';
import {
  setScheduleRequestSchema,
  type ScheduleBody,
  type ScheduleListBody,
  type ScheduleRunAnswerBody,
} from '../schemas.js';

const SET_EXAMPLE = '{"name": "triage", "cron": "0 9 * * 1-5", "timezone": "Europe/Paris"}';

/** The view of a schedule as this API answers it: secret-looking variables and input redacted. */
function scheduleBody(ctx: RouteContext, schedule: Schedule): ScheduleBody {
  return ctx.redact(scheduleView(schedule)) as ScheduleBody;
}

/** The schedule of the path, or SCHEDULE_NOT_FOUND. */
async function scheduleOf(store: Store, req: Request): Promise<Schedule> {
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

/** GET /api/v1/schedules: a page of schedules, soonest next fire first. */
export function listSchedules(ctx: RouteContext): RequestHandler {
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
}

/** POST /api/v1/schedules: 201 with a new schedule, 200 when it replaced the target's. */
export function setSchedule(ctx: RouteContext): RequestHandler {
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
}

/** GET /api/v1/schedules/:schedule_id. */
export function getSchedule(ctx: RouteContext): RequestHandler {
  const { store } = ctx.deps;
  return async (req: Request, res: Response): Promise<void> => {
    res.json(scheduleBody(ctx, await scheduleOf(store, req)));
  };
}

/** DELETE /api/v1/schedules/:schedule_id: 200 with the schedule as it was. */
export function removeSchedule(ctx: RouteContext): RequestHandler {
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
}

/** POST /api/v1/schedules/:schedule_id/run: fires it now through this process's scheduler; 202. */
export function runSchedule(ctx: RouteContext): RequestHandler {
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
}
