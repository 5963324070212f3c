import { Flags } from '@oclif/core';
import { JunctionCommand } from '../../base-command.js';
import { tableFlags } from '../../flags.js';

export interface TokenStats {
  group_by: 'agent' | 'model';
  period: string;
  since: string;
  until: string;
  rows: Array<{
    key: string;
    runs: number;
    input_tokens: number;
    output_tokens: number;
    total_tokens: number;
  }>;
}

export default class StatsTokens extends JunctionCommand {
  static override description =
    'Tokens used by runs queued in the last period, per agent or per model, most first.';

  static override examples = [
    '<%= config.bin %> stats tokens --group-by agent --period 7d',
    '<%= config.bin %> stats tokens --group-by model --period 30d --json',
  ];

  static override flags = {
    ...tableFlags,
    'group-by': Flags.string({
      description: 'one row per agent or per model',
      options: ['agent', 'model'],
      default: 'agent',
    }),
    period: Flags.string({
      char: 'p',
      description: 'how far back to look (500ms, 5s, 2m, 1h, 7d)',
      default: '7d',
    }),
  };

  static override enableJsonFlag = true;

  async run(): Promise<TokenStats> {
    const { flags } = await this.parse(StatsTokens);
    const { parseDuration } = await import('../../duration.js');
    const ms = parseDuration(flags.period, '--period');
    const groupBy = flags['group-by'] === 'model' ? 'model' : 'agent';
    const { createContext } = await import('../../context.js');
    const { formatTable } = await import('../../table.js');
    const ctx = await createContext();
    try {
      const store = await ctx.store();
      const until = new Date();
      const since = new Date(until.getTime() - ms);
      const usage = await store.runStats.tokenUsage({ groupBy, since });
      const result: TokenStats = {
        group_by: groupBy,
        period: flags.period,
        since: since.toISOString(),
        until: until.toISOString(),
        rows: usage.map((r) => ({
          key: r.key,
          runs: r.runs,
          input_tokens: r.inputTokens,
          output_tokens: r.outputTokens,
          total_tokens: r.totalTokens,
        })),
      };
      if (result.rows.length === 0) {
        this.log(`No runs in the last ${flags.period}.`);
      } else {
        const sum = (pick: (r: TokenStats['rows'][number]) => number): number =>
          result.rows.reduce((n, r) => n + pick(r), 0);
        this.log(
          formatTable(
            [groupBy.toUpperCase(), 'RUNS', 'INPUT', 'OUTPUT', 'TOTAL'],
            [
              ...result.rows.map((r) => [
                r.key,
                r.runs,
                r.input_tokens,
                r.output_tokens,
                r.total_tokens,
              ]),
              [
                '(all)',
                sum((r) => r.runs),
                sum((r) => r.input_tokens),
                sum((r) => r.output_tokens),
                sum((r) => r.total_tokens),
              ],
            ],
          ),
        );
      }
      return result;
    } finally {
      await ctx.close();
    }
  }
}
