import { and, count, desc, asc, eq, gte, isNotNull, lt, sql, type SQL } from 'drizzle-orm';
import type { RunStatus } from '../rows.js';
import { RUN_STATUSES, runs } from '../schema.js';
import type { StoreContext } from '../store-context.js';
import { StoreError } from '../store-error.js';

/** Which runs a statistic covers; times compare with the run's `queuedAt`. */
export interface RunStatsWindow {
  /** Queued at or after. */
  since?: Date;
  /** Queued before. */
  until?: Date;
  environmentId?: number;
}

export const TOKEN_USAGE_GROUPS = ['agent', 'model'] as const;
export type TokenUsageGroup = (typeof TOKEN_USAGE_GROUPS)[number];

export interface TokenUsageQuery extends RunStatsWindow {
  groupBy: TokenUsageGroup;
}

/** Tokens of the runs sharing one agent name or one model. */
export interface TokenUsageRow {
  /** The agent name, or the model (`(unknown)` for runs that never recorded one). */
  key: string;
  runs: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** Tokens of the runs sharing one agent name (or model) and one model, for pricing them. */
export interface ModelTokenUsageRow extends TokenUsageRow {
  /** The model the runs recorded, as stored (`openai/gpt-4o-mini`); null when they recorded none. */
  model: string | null;
  /** Runs that recorded any token (a run without tokens costs nothing, priced or not). */
  runsWithTokens: number;
}

export interface RunSummaryQuery extends RunStatsWindow {
  agentName?: string;
}

/** Durations in ms of finished runs; all null when no run in the window both started and ended. */
export interface RunDurationStats {
  /** Nearest-rank median. */
  p50: number | null;
  /** Nearest-rank 95th percentile. */
  p95: number | null;
  max: number | null;
  /** Rounded to a whole ms. */
  mean: number | null;
}

export interface RunSummary {
  total: number;
  byStatus: Record<RunStatus, number>;
  durationMs: RunDurationStats;
}

/** The label of runs without a model in `tokenUsage({ groupBy: 'model' })`. */
export const UNKNOWN_MODEL = '(unknown)';

function windowOf(query: RunStatsWindow & { agentName?: string }): SQL[] {
  const where: SQL[] = [];
  if (query.since !== undefined) where.push(gte(runs.queuedAt, query.since));
  if (query.until !== undefined) where.push(lt(runs.queuedAt, query.until));
  if (query.environmentId !== undefined) where.push(eq(runs.environmentId, query.environmentId));
  if (query.agentName !== undefined) where.push(eq(runs.agentName, query.agentName));
  return where;
}

/** What tokenUsage groups by; an unknown grouping is INVALID_INPUT. */
function groupKey(groupBy: TokenUsageGroup): SQL<string> {
  if (!TOKEN_USAGE_GROUPS.includes(groupBy)) {
    throw new StoreError(
      'INVALID_INPUT',
      `groupBy must be one of ${TOKEN_USAGE_GROUPS.join(', ')}; got ${JSON.stringify(String(groupBy))}.`,
      { field: 'groupBy', value: String(groupBy) },
    );
  }
  return groupBy === 'agent'
    ? sql<string>`${runs.agentName}`
    : sql<string>`COALESCE(${runs.model}, ${UNKNOWN_MODEL})`;
}

/** Nearest-rank position of the p-th percentile among n sorted values: ceil(p·n/100), in integers. */
function rankSql(n: SQL, p: number): SQL {
  // Inlined, not bound: a bound JS number may arrive as REAL and turn this into real division.
  return sql`((${n}) * ${sql.raw(String(Math.trunc(p)))} + 99) / 100`;
}

/** Aggregates over run history for `junction stats` and dashboards; read-only. */
export class RunStatsRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /** Input, output and total tokens per agent name or per model, most total tokens first. */
  async tokenUsage(query: TokenUsageQuery): Promise<TokenUsageRow[]> {
    const key = groupKey(query.groupBy);
    const input = sql<number>`COALESCE(SUM(${runs.inputTokens}), 0)`;
    const output = sql<number>`COALESCE(SUM(${runs.outputTokens}), 0)`;
    const total = sql<number>`COALESCE(SUM(${runs.inputTokens} + ${runs.outputTokens}), 0)`;
    const rows = await this.#ctx.read('sum token usage', (db) =>
      db
        .select({
          key: key.as('group_key'),
          runs: count(),
          inputTokens: input.as('input_tokens'),
          outputTokens: output.as('output_tokens'),
          totalTokens: total.as('total_tokens'),
        })
        .from(runs)
        .where(and(...windowOf(query)))
        .groupBy(sql`group_key`)
        .orderBy(desc(sql`total_tokens`), asc(sql`group_key`)),
    );
    return rows.map((r) => ({
      key: String(r.key),
      runs: Number(r.runs),
      inputTokens: Number(r.inputTokens),
      outputTokens: Number(r.outputTokens),
      totalTokens: Number(r.totalTokens),
    }));
  }

  /**
   * tokenUsage split by the model each run recorded: one row per (key, model), by key then model.
   * A group's cost is the sum of its rows', each priced by its model.
   */
  async tokenUsageByModel(query: TokenUsageQuery): Promise<ModelTokenUsageRow[]> {
    const key = groupKey(query.groupBy);
    const input = sql<number>`COALESCE(SUM(${runs.inputTokens}), 0)`;
    const output = sql<number>`COALESCE(SUM(${runs.outputTokens}), 0)`;
    const total = sql<number>`COALESCE(SUM(${runs.inputTokens} + ${runs.outputTokens}), 0)`;
    const withTokens = sql<number>`COALESCE(SUM(CASE WHEN ${runs.inputTokens} + ${runs.outputTokens} > 0 THEN 1 ELSE 0 END), 0)`;
    const rows = await this.#ctx.read('sum token usage by model', (db) =>
      db
        .select({
          key: key.as('group_key'),
          model: runs.model,
          runs: count(),
          inputTokens: input.as('input_tokens'),
          outputTokens: output.as('output_tokens'),
          totalTokens: total.as('total_tokens'),
          runsWithTokens: withTokens.as('runs_with_tokens'),
        })
        .from(runs)
        .where(and(...windowOf(query)))
        .groupBy(sql`group_key`, runs.model)
        .orderBy(asc(sql`group_key`), asc(runs.model)),
    );
    return rows.map((r) => ({
      key: String(r.key),
      model: r.model ?? null,
      runs: Number(r.runs),
      inputTokens: Number(r.inputTokens),
      outputTokens: Number(r.outputTokens),
      totalTokens: Number(r.totalTokens),
      runsWithTokens: Number(r.runsWithTokens),
    }));
  }

  /**
   * Run counts by status and the duration (completedAt − startedAt) of finished runs.
   * Percentiles use the nearest-rank method, computed in SQL with window functions.
   */
  async runSummary(query: RunSummaryQuery = {}): Promise<RunSummary> {
    const where = windowOf(query);
    return this.#ctx.read('summarise runs', async (db) => {
      const counts = await db
        .select({ status: runs.status, n: count() })
        .from(runs)
        .where(and(...where))
        .groupBy(runs.status);
      const byStatus = Object.fromEntries(RUN_STATUSES.map((s) => [s, 0])) as Record<
        RunStatus,
        number
      >;
      let total = 0;
      for (const row of counts) {
        byStatus[row.status] = Number(row.n);
        total += Number(row.n);
      }

      const ms = sql<number>`${runs.completedAt} - ${runs.startedAt}`;
      const finished = db.$with('finished').as(
        db
          .select({
            ms: ms.as('ms'),
            rn: sql<number>`ROW_NUMBER() OVER (ORDER BY ${ms})`.as('rn'),
            n: sql<number>`COUNT(*) OVER ()`.as('n'),
          })
          .from(runs)
          .where(and(...where, isNotNull(runs.startedAt), isNotNull(runs.completedAt))),
      );
      const [stats] = await db
        .with(finished)
        .select({
          p50: sql<
            number | null
          >`MAX(CASE WHEN ${finished.rn} = ${rankSql(sql`${finished.n}`, 50)} THEN ${finished.ms} END)`,
          p95: sql<
            number | null
          >`MAX(CASE WHEN ${finished.rn} = ${rankSql(sql`${finished.n}`, 95)} THEN ${finished.ms} END)`,
          max: sql<number | null>`MAX(${finished.ms})`,
          mean: sql<number | null>`AVG(${finished.ms})`,
        })
        .from(finished);
      const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
      const mean = num(stats?.mean);
      return {
        total,
        byStatus,
        durationMs: {
          p50: num(stats?.p50),
          p95: num(stats?.p95),
          max: num(stats?.max),
          mean: mean === null ? null : Math.round(mean),
        },
      };
    });
  }
}
