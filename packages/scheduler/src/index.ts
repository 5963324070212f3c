// Public API of @junction/scheduler: schedules of agents and workflows fired on cron by the
// process that holds the scheduler lease, through the one run door.
export {
  Scheduler,
  type FireOutcome,
  type SchedulerError,
  type SchedulerOptions,
  type SchedulerStore,
  type SchedulerStatus,
  type StartWorkflow,
} from './scheduler.js';
export {
  findScheduleTarget,
  getSchedule,
  removeSchedule,
  scheduleView,
  setSchedule,
  type ScheduleAdminStore,
  type ScheduleSettings,
  type ScheduleTargetRef,
  type ScheduleView,
} from './schedules.js';
export {
  isScheduleError,
  ScheduleError,
  SCHEDULE_ERRORS,
  type ScheduleErrorCode,
} from './errors.js';
