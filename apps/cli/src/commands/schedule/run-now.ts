import type { ScheduleView } from '@junction/scheduler';
import { JunctionCommand } from '../../base-command.js';
import { scheduleNameArg, scheduleTargetFlags } from '../../schedule-args.js';

/** What `schedule run-now --json` answers. */
interface RunNowView {
  outcome: 'started' | 'skipped' | 'missed' | 'failed';
  /** The run (agent) or workflow run (workflow) it started. */
  run_id: number | null;
  /** Why it was skipped or failed. */
  error: string | null;
  schedule: ScheduleView;
}

/** Exit code when the fire could not start its run (as when a run ends badly). */
const FIRE_FAILED_EXIT = 8;

export default class ScheduleRunNow extends JunctionCommand {
  static override description =
    'Fire the schedule of an agent (or, with --workflow, of a workflow) once now, as the scheduler would (source cron_scheduler; ' +
    'its overlap policy applies). The run is queued: a running `junction serve` executes it. Exits 8 when the run could not be started.';

  static override examples = [
    '<%= config.bin %> schedule run-now assistant',
    '<%= config.bin %> schedule run-now daily-report --workflow --json',
  ];

  static override args = scheduleNameArg;

  static override flags = scheduleTargetFlags;

  static override enableJsonFlag = true;

  async run(): Promise<RunNowView> {
    const { args, flags } = await this.parse(ScheduleRunNow);
    const { scheduleTargetRef, scheduleViewOf, withScheduleStore } = await import(
      '../../schedule-args.js'
    );
    const { getSchedule, Scheduler } = await import('@junction/scheduler');
    const { createService } = await import('../../service.js');
    const { scheduleTitle } = await import('../../schedule-view.js');
    const result = await withScheduleStore(async (store, ctx): Promise<RunNowView> => {
      const schedule = await getSchedule(store, scheduleTargetRef(args.name, flags));
      // This process only queues the run: the doors of a process that executes none.
      const service = await createService(ctx, { version: this.config.version, executes: false });
      try {
        const scheduler = new Scheduler({
          store,
          runs: service.runs,
          startWorkflow: (request) => service.workflows.start(request),
          logger: service.logger,
        });
        const fired = await scheduler.fire(schedule, { now: true });
        const after = (await store.schedules.get(schedule.id)) ?? schedule;
        return {
          outcome: fired.outcome,
          run_id: fired.runId ?? null,
          error: fired.error ?? null,
          schedule: await scheduleViewOf(after, ctx),
        };
      } finally {
        await service.stop();
      }
    });
    const title = scheduleTitle(result.schedule, flags.env);
    const failed = result.outcome === 'failed';
    if (this.jsonEnabled()) {
      if (!failed) return result;
      this.logJson(result);
      return this.exit(FIRE_FAILED_EXIT);
    }
    if (result.outcome === 'started') {
      const workflow = result.schedule.kind === 'workflow';
      this.log(
        `${workflow ? 'workflow run' : 'run'} ${result.run_id}: ${title}, source cron_scheduler`,
      );
      this.log(
        `Queued: a running \`junction serve\` ${workflow ? 'advances' : 'executes'} it. ` +
          `Follow it with \`junction ${workflow ? 'workflow inspect' : 'runs inspect'} ${result.run_id}\`.`,
      );
    } else if (failed) {
      this.logToStderr(
        `Schedule of ${title} fired but could not start a run: ${result.error ?? ''}`,
      );
      return this.exit(FIRE_FAILED_EXIT);
    } else {
      this.log(`Not fired (${result.outcome}): ${result.error ?? ''}.`);
    }
    return result;
  }
}
