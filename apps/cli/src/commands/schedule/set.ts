import { Flags } from '@oclif/core';
import type { ScheduleView } from '@junction/scheduler';
import { JunctionCommand } from '../../base-command.js';
import { scheduleNameArg, scheduleTargetFlags } from '../../schedule-args.js';

export default class ScheduleSet extends JunctionCommand {
  static override description =
    'Set the cron schedule of an agent (or, with --workflow, of a workflow), replacing the one it has: ' +
    'checked like a file schedule, kept by later syncs. Prints it with its next fire time; a running `junction serve` fires it.';

  static override examples = [
    '<%= config.bin %> schedule set assistant --cron "0 9 * * 1-5" --timezone Europe/Paris --task "Add 20 and 22"',
    '<%= config.bin %> schedule set daily-report --workflow --cron "30 6 * * *" --input \'{"days": 1}\'',
    '<%= config.bin %> schedule set triage --env prod --cron "*/15 * * * *" --var repo=junction --overlap queue',
  ];

  static override args = scheduleNameArg;

  static override flags = {
    ...scheduleTargetFlags,
    cron: Flags.string({
      char: 'c',
      description:
        'cron expression: minute hour day-of-month month day-of-week (6 fields: seconds first)',
      required: true,
    }),
    timezone: Flags.string({
      char: 'z',
      description: 'IANA time zone the cron is read in (default: the firing process’s own)',
    }),
    task: Flags.string({
      description:
        'task of each agent run (default: "Scheduled execution: <the agent’s description>")',
    }),
    var: Flags.string({
      description: 'variable name=value of each agent run (repeatable)',
      multiple: true,
      // One value per --var: a task after it stays the task.
      multipleNonGreedy: true,
    }),
    input: Flags.string({
      char: 'i',
      description: 'input of each workflow run: a JSON object, or @file with one',
    }),
    disabled: Flags.boolean({ description: 'keep the schedule without firing it' }),
    'catch-up': Flags.string({
      description: 'a fire missed while no scheduler ran: once (fire it once, late) or skip',
    }),
    overlap: Flags.string({
      description:
        'a fire while the previous run still goes: skip, or queue (start it; one waiting at most)',
    }),
  };

  static override enableJsonFlag = true;

  async run(): Promise<ScheduleView> {
    const { args, flags } = await this.parse(ScheduleSet);
    const { parseVars, readInput } = await import('../../run-args.js');
    const vars = flags.var ?? [];
    const variables = vars.length > 0 ? parseVars(vars) : undefined;
    const input = flags.input === undefined ? undefined : await readInput(flags.input);
    if (
      input !== undefined &&
      (input === null || typeof input !== 'object' || Array.isArray(input))
    ) {
      const { CliError } = await import('../../cli-error.js');
      throw new CliError(
        'INVALID_ARGUMENT',
        `--input must be a JSON object, such as '{"days": 1}'; got ${JSON.stringify(input)}.`,
        { argument: 'input' },
      );
    }
    const { scheduleTargetRef, scheduleViewOf, withScheduleStore } = await import(
      '../../schedule-args.js'
    );
    const { setSchedule } = await import('@junction/scheduler');
    const { scheduleLines, scheduleTitle } = await import('../../schedule-view.js');
    const view = await withScheduleStore(async (store, ctx) =>
      scheduleViewOf(
        await setSchedule(store, scheduleTargetRef(args.name, flags), {
          cron: flags.cron,
          ...(flags.timezone !== undefined ? { timezone: flags.timezone } : {}),
          enabled: !flags.disabled,
          ...(flags.task !== undefined ? { task: flags.task } : {}),
          ...(variables !== undefined ? { variables } : {}),
          ...(input !== undefined ? { input: input as Record<string, unknown> } : {}),
          ...(flags['catch-up'] !== undefined
            ? { catch_up: flags['catch-up'] as 'once' | 'skip' }
            : {}),
          ...(flags.overlap !== undefined ? { overlap: flags.overlap as 'skip' | 'queue' } : {}),
        }),
        ctx,
      ),
    );
    this.log(`Schedule set: ${scheduleTitle(view, flags.env)}`);
    for (const line of scheduleLines(view, new Date())) this.log(line);
    this.log(
      view.enabled
        ? 'A running `junction serve` fires it.'
        : 'It does not fire until it is set again without --disabled.',
    );
    return view;
  }
}
