import { Flags } from '@oclif/core';
import type { ScheduleView } from '@junction/scheduler';
import { JunctionCommand } from '../../base-command.js';
import { tableFlags } from '../../flags.js';

export default class ScheduleList extends JunctionCommand {
  static override description =
    'List schedules, soonest first: kind, target, environment, cron, time zone, enabled, next fire, last fire, last outcome, origin.';

  static override examples = [
    '<%= config.bin %> schedule list',
    '<%= config.bin %> schedule list --kind workflow --env prod --json',
  ];

  static override flags = {
    ...tableFlags,
    kind: Flags.string({ char: 'k', description: 'only schedules of agents or of workflows' }),
    env: Flags.string({
      char: 'e',
      description: 'only schedules in this environment (default: all)',
    }),
  };

  static override enableJsonFlag = true;

  async run(): Promise<ScheduleView[]> {
    const { flags } = await this.parse(ScheduleList);
    const { SCHEDULE_KINDS } = await import('@junction/store');
    const kinds: readonly string[] = SCHEDULE_KINDS;
    if (flags.kind !== undefined && !kinds.includes(flags.kind)) {
      const { CliError } = await import('../../cli-error.js');
      throw new CliError(
        'INVALID_ARGUMENT',
        `--kind must be one of ${kinds.join(', ')}; got ${JSON.stringify(flags.kind)}.`,
        { flag: '--kind', value: flags.kind, valid: kinds },
      );
    }
    const kind = flags.kind as (typeof SCHEDULE_KINDS)[number] | undefined;
    const { scheduleViewOf } = await import('../../schedule-args.js');
    const { formatTable } = await import('../../table.js');
    const { SCHEDULE_COLUMNS, scheduleRow } = await import('../../schedule-view.js');
    const { createContext } = await import('../../context.js');
    const ctx = await createContext();
    try {
      if (flags.env !== undefined) await ctx.requireEnvironment(flags.env);
      const store = await ctx.store();
      const envs = new Map((await store.environments.list()).map((e) => [e.id, e.name]));
      // An environment never synced has no schedules; -1 matches none.
      const environmentId =
        flags.env === undefined
          ? undefined
          : ([...envs].find(([, name]) => name === flags.env)?.[0] ?? -1);
      const schedules = await store.schedules.list({
        ...(kind !== undefined ? { kind } : {}),
        ...(environmentId !== undefined ? { environmentId } : {}),
      });
      const views = await Promise.all(schedules.map((s) => scheduleViewOf(s, ctx)));
      if (views.length === 0) {
        this.log(
          flags.kind !== undefined || flags.env !== undefined
            ? 'No schedules match.'
            : 'No schedules. Set one with `junction schedule set <agent> --cron "0 9 * * 1-5"` ' +
                '(or `--workflow <id>`), or give a prompt or workflow file a `schedule` and run `junction sync <env>`.',
        );
      } else {
        const now = new Date();
        this.log(
          formatTable(
            SCHEDULE_COLUMNS,
            views.map((v) =>
              scheduleRow(
                v,
                v.environment_id === null ? '-' : (envs.get(v.environment_id) ?? '?'),
                now,
              ),
            ),
          ),
        );
      }
      return views;
    } finally {
      await ctx.close();
    }
  }
}
