import { Flags } from '@oclif/core';
import { JunctionCommand } from '../../base-command.js';
import { tableFlags } from '../../flags.js';

/** Tokens and cost of a group of runs. */
export interface TokenTotals {
  runs: number;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  /** USD of the runs whose model has a price; null when runs with tokens have none priced. */
  cost_usd: number | null;
  /** Runs with tokens whose model has no price: their tokens are not in cost_usd. */
  unpriced_runs: number;
}

export interface TokenStats {
  group_by: 'agent' | 'model';
  period: string;
  since: string;
  until: string;
  rows: Array<TokenTotals & { key: string }>;
  total: TokenTotals;
  /** Models of the unpriced runs, as stored (`(unknown)`: runs that recorded none). */
  unpriced_models: string[];
}

export default class StatsTokens extends JunctionCommand {
  static override description =
    'Tokens used by runs queued in the last period, per agent or per model, most first, and what they cost (config.yaml pricing, else built-in list prices).';

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
    const { formatUsd } = await import('../../usd.js');
    const { roundUsd } = await import('@junction/agent-core/views');
    const { UNKNOWN_MODEL } = await import('@junction/store');
    const ctx = await createContext();
    try {
      const store = await ctx.store();
      const pricing = await ctx.pricing();
      const until = new Date();
      const since = new Date(until.getTime() - ms);
      const [usage, byModel] = await Promise.all([
        store.runStats.tokenUsage({ groupBy, since }),
        store.runStats.tokenUsageByModel({ groupBy, since }),
      ]);
      // Each group's cost is the sum of its models' costs; tokens without a price are counted apart.
      const costs = new Map<string, { usd: number; priced: boolean; unpriced: number }>();
      const unpricedModels = new Set<string>();
      for (const r of byModel) {
        const cost = costs.get(r.key) ?? { usd: 0, priced: false, unpriced: 0 };
        // Runs without tokens cost nothing, priced or not: they make no row's cost known.
        if (r.runsWithTokens === 0) {
          costs.set(r.key, cost);
          continue;
        }
        const usd = pricing.costOf(r.model, r.inputTokens, r.outputTokens);
        if (usd !== null) {
          cost.usd += usd;
          cost.priced = true;
        } else {
          cost.unpriced += r.runsWithTokens;
          unpricedModels.add(r.model ?? UNKNOWN_MODEL);
        }
        costs.set(r.key, cost);
      }
      const costOf = (usd: number, priced: boolean, unpriced: number): number | null =>
        unpriced > 0 && !priced ? null : roundUsd(usd);
      const rows = usage.map((r) => {
        const cost = costs.get(r.key) ?? { usd: 0, priced: false, unpriced: 0 };
        return {
          key: r.key,
          runs: r.runs,
          input_tokens: r.inputTokens,
          output_tokens: r.outputTokens,
          total_tokens: r.totalTokens,
          cost_usd: costOf(cost.usd, cost.priced, cost.unpriced),
          unpriced_runs: cost.unpriced,
        };
      });
      const sum = (pick: (r: TokenTotals) => number): number =>
        rows.reduce((n, r) => n + pick(r), 0);
      const all = [...costs.values()];
      const unpriced = sum((r) => r.unpriced_runs);
      const result: TokenStats = {
        group_by: groupBy,
        period: flags.period,
        since: since.toISOString(),
        until: until.toISOString(),
        rows,
        total: {
          runs: sum((r) => r.runs),
          input_tokens: sum((r) => r.input_tokens),
          output_tokens: sum((r) => r.output_tokens),
          total_tokens: sum((r) => r.total_tokens),
          cost_usd: costOf(
            all.reduce((n, c) => n + c.usd, 0),
            all.some((c) => c.priced),
            unpriced,
          ),
          unpriced_runs: unpriced,
        },
        unpriced_models: [...unpricedModels].sort(),
      };
      if (result.rows.length === 0) {
        this.log(`No runs in the last ${flags.period}.`);
      } else {
        const line = (key: string, t: TokenTotals): Array<string | number> => [
          key,
          t.runs,
          t.input_tokens,
          t.output_tokens,
          t.total_tokens,
          formatUsd(t.cost_usd),
        ];
        this.log(
          formatTable(
            [groupBy.toUpperCase(), 'RUNS', 'INPUT', 'OUTPUT', 'TOTAL', 'COST'],
            [...result.rows.map((r) => line(r.key, r)), line('(all)', result.total)],
          ),
        );
        if (unpriced > 0) {
          this.log('');
          this.log(
            `Cost unknown for ${unpriced} ${unpriced === 1 ? 'run' : 'runs'}: no price for ${result.unpriced_models.join(', ')}. Set one under pricing in config.yaml.`,
          );
        }
      }
      return result;
    } finally {
      await ctx.close();
    }
  }
}
