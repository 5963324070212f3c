import type { ScheduleView } from '@junction/scheduler';
import { JunctionCommand } from '../../base-command.js';
import { scheduleNameArg, scheduleTargetFlags } from '../../schedule-args.js';

export default class ScheduleRemove extends JunctionCommand {
  static override description =
    'Remove the schedule of an agent (or, with --workflow, of a workflow). A schedule from a file comes back at the next sync unless the file loses it.';

  static override examples = [
    '<%= config.bin %> schedule remove assistant',
    '<%= config.bin %> schedule remove daily-report --workflow --json',
  ];

  static override args = scheduleNameArg;

  static override flags = scheduleTargetFlags;

  static override enableJsonFlag = true;

  async run(): Promise<ScheduleView> {
    const { args, flags } = await this.parse(ScheduleRemove);
    const { scheduleTargetRef, scheduleViewOf, withScheduleStore } = await import(
      '../../schedule-args.js'
    );
    const { removeSchedule } = await import('@junction/scheduler');
    const { scheduleTitle } = await import('../../schedule-view.js');
    const view = await withScheduleStore(async (store, ctx) =>
      scheduleViewOf(await removeSchedule(store, scheduleTargetRef(args.name, flags)), ctx),
    );
    this.log(
      `Schedule removed: ${scheduleTitle(view, flags.env)} no longer runs on "${view.cron}".`,
    );
    this.log(
      view.origin === 'file'
        ? `It came from its file: the next \`junction sync ${flags.env}\` sets it again unless the file's schedule is removed.`
        : `If its file has a schedule, the next \`junction sync ${flags.env}\` sets that one.`,
    );
    return view;
  }
}
