/** Stable codes of every error the scheduler package raises. */
export const SCHEDULE_ERROR_CODES = [
  'SCHEDULE_INVALID',
  'SCHEDULE_NOT_FOUND',
  'SCHEDULE_TARGET_NOT_FOUND',
  'SCHEDULE_TARGET_AMBIGUOUS',
  'SCHEDULER_UNAVAILABLE',
] as const;

export type ScheduleErrorCode = (typeof SCHEDULE_ERROR_CODES)[number];

/** A scheduler failure: a stable code, a message that says what to do, JSON-safe details. */
export class ScheduleError extends Error {
  readonly code: ScheduleErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: ScheduleErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'ScheduleError';
    this.code = code;
    this.details = details;
  }

  toJSON(): { code: string; message: string; details: Record<string, unknown> } {
    return { code: this.code, message: this.message, details: this.details };
  }
}

/** True when err is a ScheduleError (optionally with the given code). */
export function isScheduleError(err: unknown, code?: ScheduleErrorCode): err is ScheduleError {
  return err instanceof ScheduleError && (code === undefined || err.code === code);
}
