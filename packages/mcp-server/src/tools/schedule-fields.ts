// Argument schemas of the schedule tools, named as the reference's clients send them
// (cron_schedule, schedule_variables as a string of JSON). The cron itself is checked where
// every surface's is: @junction/scheduler's setSchedule.
import { refusingReservedKeys } from '@junction/agent-core/runs';
import { hasControlCharacter } from '@junction/config-templates';
import { SCHEDULE_CATCH_UPS, SCHEDULE_OVERLAPS } from '@junction/store';
import { z } from 'zod';

const CRON_MESSAGE = 'cron_schedule must be a string: a cron expression such as "0 9 * * 1-5"';

export const cronScheduleArg = z
  .string({ error: CRON_MESSAGE })
  .max(200, { error: 'cron_schedule must be at most 200 characters' })
  .describe(
    'When it runs: a cron expression of 5 fields (minute hour day month weekday), such as "0 9 * * 1-5", or 6 with seconds first.',
  );

const VARIABLES_MESSAGE =
  'schedule_variables must be a JSON object of string values, such as "{\\"city\\": \\"Paris\\"}"';

/**
 * The variables of each scheduled run: a string holding a JSON object of string values (what the
 * reference's clients send), or that object itself. A blank string is no variables.
 */
export const scheduleVariablesArg = z
  .union([z.string(), z.record(z.string(), z.unknown())], { error: VARIABLES_MESSAGE })
  .transform((value, ctx): unknown => {
    if (typeof value !== 'string') return value;
    if (value.trim() === '') return {};
    try {
      return JSON.parse(value) as unknown;
    } catch (err) {
      ctx.addIssue({
        code: 'custom',
        message: `schedule_variables is not valid JSON (${(err as Error).message}); ${VARIABLES_MESSAGE}`,
      });
      return z.NEVER;
    }
  })
  .pipe(
    refusingReservedKeys(
      'schedule_variables',
      'variable',
      z.record(
        z.string(),
        z.string({ error: 'each value in schedule_variables must be a string' }),
        { error: VARIABLES_MESSAGE },
      ),
    ),
  )
  .describe(
    'Agents: values for the variables of the agent prompt in each run, as a JSON object of strings, such as "{\\"city\\": \\"Paris\\"}". Each run also gets cron_schedule and scheduled_at.',
  );

export const timezoneArg = z
  .string({ error: 'timezone must be a string: an IANA time zone such as "Europe/Paris"' })
  .max(100, { error: 'timezone must be at most 100 characters' })
  .refine((text) => !hasControlCharacter(text), {
    error: 'timezone must not contain control characters',
  })
  .describe(
    'IANA time zone the cron is read in, such as "Europe/Paris". Default: the time zone of the Junction server.',
  );

export const enabledArg = z
  .boolean({ error: 'enabled must be true or false' })
  .describe('false: keep the schedule without firing it. Default true.');

export const catchUpArg = z
  .enum(SCHEDULE_CATCH_UPS, { error: `catch_up must be one of ${SCHEDULE_CATCH_UPS.join(', ')}` })
  .describe('A fire missed while no scheduler ran: "once" (fire it once, the default) or "skip".');

export const overlapArg = z
  .enum(SCHEDULE_OVERLAPS, { error: `overlap must be one of ${SCHEDULE_OVERLAPS.join(', ')}` })
  .describe(
    'A fire while the previous run has not ended: "skip" (the default) or "queue" another run.',
  );
