// How a schedule prints in the terminal. `--json` answers the scheduler's one view
// (`scheduleView`); these lines and rows are drawn from it, never from the stored row.
import { visibleText } from '@junction/config-templates';
import type { ScheduleView } from '@junction/scheduler';
import { formatAgo, formatTime, formatWhen } from './duration.js';

/** The columns of `schedule list`. */
export const SCHEDULE_COLUMNS = [
  'KIND',
  'TARGET',
  'ENV',
  'CRON',
  'TIME ZONE',
  'ENABLED',
  'NEXT FIRE',
  'LAST FIRE',
  'LAST OUTCOME',
  'ORIGIN',
];

/** A schedule's time zone; `local` (the firing process's own) when it names none. */
function zoneOf(view: ScheduleView): string {
  return view.timezone ?? 'local';
}

/** The next fire: relative to `now` in a table, the exact time in a detail view (no `now`). */
function nextFire(view: ScheduleView, now?: Date): string {
  if (view.next_run_at) {
    const at = new Date(view.next_run_at);
    return now ? formatWhen(at, now) : formatTime(at);
  }
  return view.enabled ? '-' : 'never (disabled)';
}

function lastOutcome(view: ScheduleView): string {
  if (!view.last_outcome) return '-';
  return view.last_run_id !== null && view.last_outcome === 'started'
    ? `started (run ${view.last_run_id})`
    : view.last_outcome;
}

/** One row of `schedule list`, in SCHEDULE_COLUMNS order. */
export function scheduleRow(view: ScheduleView, environment: string, now: Date): string[] {
  return [
    view.kind,
    view.target,
    environment,
    view.cron,
    zoneOf(view),
    view.enabled ? 'yes' : 'no',
    nextFire(view, now),
    view.last_run_at ? formatAgo(new Date(view.last_run_at), now) : '-',
    lastOutcome(view),
    view.origin,
  ];
}

/** The lines of `schedule show` (and of `schedule set`, after its first line). */
export function scheduleLines(view: ScheduleView, now: Date): string[] {
  const fields: Array<[string, string]> = [
    ['cron', view.cron],
    ['time zone', zoneOf(view)],
    ['enabled', view.enabled ? 'yes' : 'no'],
    ...(view.kind === 'agent'
      ? ([
          ['task', view.task ?? "(the agent's default: Scheduled execution: <description>)"],
          [
            'variables',
            Object.entries(view.variables)
              .map(([k, v]) => `${k}=${v}`)
              .join(', ') || '-',
          ],
        ] as Array<[string, string]>)
      : ([['input', JSON.stringify(view.input ?? {})]] as Array<[string, string]>)),
    ['catch-up', view.catch_up],
    ['overlap', view.overlap],
    ['origin', view.origin],
    ['next fire', nextFire(view)],
    ['last fire', view.last_run_at ? formatAgo(new Date(view.last_run_at), now) : '-'],
    ['last outcome', lastOutcome(view)],
    ...(view.last_error ? ([['last error', view.last_error]] as Array<[string, string]>) : []),
  ];
  return fields.map(([name, value]) => `  ${name.padEnd(14)}${visibleText(value)}`);
}

/** `agent assistant (default)`: what a schedule fires, as its first line names it. */
export function scheduleTitle(view: ScheduleView, environment: string): string {
  return visibleText(`${view.kind} ${view.target} (${environment})`);
}
