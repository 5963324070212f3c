// Cron expressions as schedule files write them: 5 fields (minute hour day month weekday) or 6
// with seconds first (what the reference documents), read in an IANA time zone. croner does the
// reading; this module says what is wrong in a user's words and when an expression fires next.
import { Cron } from 'croner';

/** A fire missed while no process ran: fired once on start-up, or skipped (see the scheduler). */
export const SCHEDULE_CATCH_UPS = ['once', 'skip'] as const;
/** A fire while the schedule's previous run still goes: skipped, or started anyway. */
export const SCHEDULE_OVERLAPS = ['skip', 'queue'] as const;

/** What is wrong with a schedule's cron or time zone, naming the field. */
export interface CronProblem {
  field: 'cron' | 'timezone';
  message: string;
}

function pattern(expr: string, timezone: string | undefined): Cron {
  return new Cron(expr, { paused: true, ...(timezone !== undefined ? { timezone } : {}) });
}

/** True when `timezone` is an IANA time zone this Node knows. */
export function isTimeZone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/**
 * What is wrong with a cron expression and time zone, or undefined when they can fire: 5 or 6
 * fields, each in range, a known time zone, and a time that comes (`0 0 31 2 *` never does).
 */
export function cronProblem(expr: unknown, timezone?: unknown): CronProblem | undefined {
  if (typeof expr !== 'string' || expr.trim() === '') {
    return { field: 'cron', message: 'must be a cron expression such as "0 9 * * *"' };
  }
  if (timezone !== undefined && timezone !== null) {
    if (typeof timezone !== 'string' || !isTimeZone(timezone)) {
      return {
        field: 'timezone',
        message: `${JSON.stringify(timezone)} is not a time zone; use an IANA name such as "Europe/Paris" or "UTC"`,
      };
    }
  }
  const fields = expr.trim().split(/\s+/).length;
  if (fields !== 5 && fields !== 6) {
    return {
      field: 'cron',
      message: `${JSON.stringify(expr)} has ${fields} fields; write 5 (minute hour day month weekday) or 6 (seconds first)`,
    };
  }
  let next: Date | null;
  try {
    next = pattern(expr, typeof timezone === 'string' ? timezone : undefined).nextRun();
  } catch (err) {
    const detail = (err as Error).message.replace(/^CronPattern:\s*/, '');
    return {
      field: 'cron',
      message: `${JSON.stringify(expr)} is not a cron expression: ${detail}`,
    };
  }
  if (next === null) {
    return { field: 'cron', message: `${JSON.stringify(expr)} never fires (no such date)` };
  }
  return undefined;
}

/** The first time after `after` (exclusive) the expression fires, or null if it never does. */
export function nextFireTime(
  expr: string,
  timezone: string | null | undefined,
  after: Date,
): Date | null {
  return pattern(expr, timezone ?? undefined).nextRun(after);
}
