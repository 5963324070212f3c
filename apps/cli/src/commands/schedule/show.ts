import type { ScheduleView } from '@junction/scheduler';
import { JunctionCommand } from '../../base-command.js';
import { scheduleNameArg, scheduleTargetFlags } from '../../schedule-args.js';

export default class ScheduleShow extends JunctionCommand {
  static override description =
    'Show the schedule of an agent (or, with --workflow, of a workflow): cron, time zone, what each run is given, policies, last and next fire.';

  static override examples = [
    '<%= config.bin %> schedule show assistant',
    '<%= config.bin %> schedule show daily-report --workflow --json',
  ];

  static override args = scheduleNameArg;

  static override flags = scheduleTargetFlags;

  static override enableJsonFlag = true;

  async run(): Promise<ScheduleView> {
    const { args, flags } = await this.parse(ScheduleShow);
    const { scheduleTargetRef, scheduleViewOf, withScheduleStore } = await import(
      '../../schedule-args.js'
    );
    const { getSchedule } = await import('@junction/scheduler');
    const { scheduleLines, scheduleTitle } = await import('../../schedule-view.js');
    const view = await withScheduleStore(async (store, ctx) =>
      scheduleViewOf(await getSchedule(store, scheduleTargetRef(args.name, flags)), ctx),
    );
    this.log(`Schedule of ${scheduleTitle(view, flags.env)}`);
    for (const line of scheduleLines(view, new Date())) this.log(line);
    return view;
  }
}
