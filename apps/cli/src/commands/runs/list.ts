import { Flags } from '@oclif/core';
import { JunctionCommand } from '../../base-command.js';
import { tableFlags } from '../../flags.js';
import type { RunView } from '../../run-view.js';

export default class RunsList extends JunctionCommand {
  static override description =
    'List runs, newest first: agent, status, steps, tokens, duration, when queued, task.';

  static override examples = [
    '<%= config.bin %> runs list',
    '<%= config.bin %> runs list --status failed --agent triage',
    '<%= config.bin %> runs list --min-duration 30s --limit 50 --json',
  ];

  static override flags = {
    ...tableFlags,
    'min-duration': Flags.string({
      description: 'only finished runs that took at least this long (500ms, 5s, 2m, 1h, 7d)',
    }),
    status: Flags.string({
      char: 's',
      description:
        'only runs with this status: queued, running, completed, error, timeout, cancelled, or failed (= error)',
    }),
    agent: Flags.string({ char: 'a', description: 'only runs of this agent' }),
    env: Flags.string({ char: 'e', description: 'only runs in this environment (default: all)' }),
    limit: Flags.integer({
      char: 'n',
      description: 'show at most this many runs',
      default: 20,
      min: 1,
      max: 10_000,
    }),
  };

  static override enableJsonFlag = true;

  async run(): Promise<RunView[]> {
    const { flags } = await this.parse(RunsList);
    const { CliError } = await import('../../cli-error.js');
    const { parseDuration, formatDuration, formatAgo } = await import('../../duration.js');
    const { runView, oneLine } = await import('../../run-view.js');
    const { formatTable } = await import('../../table.js');
    const { RUN_STATUSES } = await import('@junction/store');
    type StatusFilter = (typeof RUN_STATUSES)[number] | 'failed';

    const valid: readonly string[] = [...RUN_STATUSES, 'failed'];
    if (flags.status !== undefined && !valid.includes(flags.status)) {
      throw new CliError(
        'INVALID_ARGUMENT',
        `--status must be one of ${valid.join(', ')}; got ${JSON.stringify(flags.status)}.`,
        { flag: '--status', value: flags.status, valid },
      );
    }
    const minDurationMs =
      flags['min-duration'] === undefined
        ? undefined
        : parseDuration(flags['min-duration'], '--min-duration');

    const { createContext } = await import('../../context.js');
    const ctx = await createContext();
    try {
      const store = await ctx.store();
      let environmentId: number | undefined;
      if (flags.env !== undefined) {
        const env = await store.environments.getByName(flags.env);
        if (!env && !(await ctx.workspace.hasEnvironment(flags.env))) {
          const { AgentCoreError } = await import('@junction/agent-core');
          throw new AgentCoreError(
            'ENVIRONMENT_NOT_FOUND',
            `Environment "${flags.env}" does not exist. \`junction env list\` shows the environments.`,
            { environment: flags.env },
          );
        }
        // An environment never synced has no runs; -1 matches none.
        environmentId = env?.id ?? -1;
      }
      const runs = await store.runs.list({
        ...(flags.status !== undefined ? { status: flags.status as StatusFilter } : {}),
        ...(flags.agent !== undefined ? { agentName: flags.agent } : {}),
        ...(environmentId !== undefined ? { environmentId } : {}),
        ...(minDurationMs !== undefined ? { minDurationMs } : {}),
        limit: flags.limit,
      });
      const pricing = await ctx.pricing();
      const views = runs.map((run) => runView(run, pricing));
      if (views.length === 0) {
        this.log('No runs match.');
      } else {
        const now = new Date();
        this.log(
          formatTable(
            ['ID', 'AGENT', 'STATUS', 'STEPS', 'TOKENS (IN/OUT)', 'DURATION', 'QUEUED', 'TASK'],
            views.map((v) => [
              v.run_id,
              v.agent_name,
              v.status,
              v.steps_taken,
              `${v.input_tokens}/${v.output_tokens}`,
              v.duration_ms === null ? '-' : formatDuration(v.duration_ms),
              formatAgo(new Date(v.queued_at), now),
              oneLine(v.task, 1000),
            ]),
          ),
        );
      }
      return views;
    } finally {
      await ctx.close();
    }
  }
}
