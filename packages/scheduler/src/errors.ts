import { codesOf, errorClass, type ErrorCodes } from '@junction/errors';

/** Every code the scheduler package raises, with its kind (see @junction/errors). */
export const SCHEDULE_ERRORS = {
  SCHEDULE_INVALID: 'invalid',
  SCHEDULE_NOT_FOUND: 'not_found',
  SCHEDULE_TARGET_NOT_FOUND: 'not_found',
  // An agent and a workflow of that name: say which (409, as the same name twice).
  SCHEDULE_TARGET_AMBIGUOUS: 'conflict',
  SCHEDULER_UNAVAILABLE: 'unavailable',
} as const satisfies ErrorCodes;

export type ScheduleErrorCode = keyof typeof SCHEDULE_ERRORS;

/** Stable codes of every error the scheduler package raises. */
export const SCHEDULE_ERROR_CODES = codesOf<ScheduleErrorCode>(SCHEDULE_ERRORS);

/** A scheduler failure: a stable code, a message that says what to do, JSON-safe details. */
export const ScheduleError = errorClass<ScheduleErrorCode>('ScheduleError', SCHEDULE_ERRORS);
export type ScheduleError = InstanceType<typeof ScheduleError>;

/** True when err is a ScheduleError (optionally with the given code). */
export function isScheduleError(err: unknown, code?: ScheduleErrorCode): err is ScheduleError {
  return err instanceof ScheduleError && (code === undefined || err.code === code);
}
