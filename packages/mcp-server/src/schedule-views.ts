// Schedules as the reference's schedule tools answer them (cron_expression, schedule_variables,
// last_run, next_run), with @junction/scheduler's one schedule view under `details`, so a client
// of the reference finds its fields and nothing of Junction's is lost.
import { scheduleView, type ScheduleView } from '@junction/scheduler';
import type { Schedule } from '@junction/store';
import { iso } from './tool-kit.js';

type Redact = (value: unknown) => unknown;

/** The view every surface answers with; variables and input through the caller's redactor. */
export function scheduleDetails(schedule: Schedule, redact: Redact): ScheduleView {
  return redact(scheduleView(schedule)) as ScheduleView;
}

/** The `schedule` of set_schedule's answer. */
export function scheduleSetFields(schedule: Schedule, redact: Redact): Record<string, unknown> {
  return {
    cron_expression: schedule.cron,
    enabled: schedule.enabled,
    schedule_variables: redact(schedule.variables),
  };
}

/** The `schedule` of get_schedule's answer; an agent without one is shown disabled, with nulls. */
export function scheduleGetFields(
  schedule: Schedule | undefined,
  redact: Redact,
): Record<string, unknown> {
  return {
    enabled: schedule?.enabled ?? false,
    cron_expression: schedule?.cron ?? null,
    schedule_variables: redact(schedule?.variables ?? {}),
    last_run: iso(schedule?.lastRunAt ?? null),
    next_run: iso(schedule?.nextRunAt ?? null),
  };
}
