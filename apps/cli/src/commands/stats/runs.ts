import { Flags } from '@oclif/core';
import { JunctionCommand } from '../../base-command.js';
import { tableFlags } from '../../flags.js';

export interface RunStats {
  period: string;
  since: string;
  until: string;
  agent: string | null;
  total: number;
  by_status: Record<string, number>;
  duration_ms: { p50: number | null; p95: number | null; max: number | null; mean: number | null };
}

export default class StatsRuns extends JunctionCommand {
  static override description =
    'Runs queued in the last period: counts by status and the p50/p95/max/mean duration of finished runs.';

  static override examples = [
    '<%= config.bin %> stats runs --period 7d',
    '<%= config.bin %> stats runs --period 24h --agent triage --json',
  ];

  static override flags = {
    ...tableFlags,
    period: Flags.string({
      char: 'p',
      description: 'how far back to look (500ms, 5s, 2m, 1h, 7d)',
      default: '7d',
    }),
    agent: Flags.string({ char: 'a', description: 'only runs of this agent' }),
  };

  static override enableJsonFlag = true;

  async run(): Promise<RunStats> {
    const { flags } = await this.parse(StatsRuns);
    const { parseDuration, formatDuration } = await import('../../duration.js');
    const ms = parseDuration(flags.period, '--period');
    const { createContext } = await import('../../context.js');
    const { formatTable } = await import('../../table.js');
    const ctx = await createContext();
    try {
      const store = await ctx.store();
      const until = new Date();
      const since = new Date(until.getTime() - ms);
      const summary = await store.runStats.runSummary({
        since,
        ...(flags.agent !== undefined ? { agentName: flags.agent } : {}),
      });
      const result: RunStats = {
        period: flags.period,
        since: since.toISOString(),
        until: until.toISOString(),
        agent: flags.agent ?? null,
        total: summary.total,
        by_status: summary.byStatus,
        duration_ms: summary.durationMs,
      };
      const who = flags.agent === undefined ? '' : ` of agent "${flags.agent}"`;
      this.log(
        `${summary.total} ${summary.total === 1 ? 'run' : 'runs'}${who} queued in the last ${flags.period}`,
      );
      if (summary.total > 0) {
        this.log('');
        this.log(
          formatTable(
            ['STATUS', 'RUNS'],
            Object.entries(summary.byStatus).map(([status, n]) => [status, n]),
          ),
        );
        const d = summary.durationMs;
        const f = (x: number | null): string => (x === null ? '-' : formatDuration(x));
        this.log('');
        this.log(
          `Duration of finished runs: p50 ${f(d.p50)}  p95 ${f(d.p95)}  max ${f(d.max)}  mean ${f(d.mean)}`,
        );
      }
      return result;
    } finally {
      await ctx.close();
    }
  }
}
