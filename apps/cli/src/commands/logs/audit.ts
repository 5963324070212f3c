import { Flags } from '@oclif/core';
import { JunctionCommand } from '../../base-command.js';
import { tableFlags } from '../../flags.js';

export interface AuditView {
  id: number;
  at: string;
  actor: string | null;
  source: string;
  transport: string | null;
  action: string;
  arguments: unknown;
  outcome: string;
  duration_ms: number | null;
  details: unknown;
}

export default class LogsAudit extends JunctionCommand {
  static override description =
    'Show the local audit trail, newest first: MCP tool calls and other audited actions.';

  static override examples = [
    '<%= config.bin %> logs audit',
    '<%= config.bin %> logs audit --filter mcp --limit 20',
    '<%= config.bin %> logs audit --filter http --json',
  ];

  static override flags = {
    ...tableFlags,
    filter: Flags.string({
      description: 'only entries whose source or transport is this (mcp, rest, cli, stdio, http …)',
    }),
    limit: Flags.integer({
      char: 'n',
      description: 'show at most this many entries',
      default: 50,
      min: 1,
      max: 10_000,
    }),
  };

  static override enableJsonFlag = true;

  async run(): Promise<AuditView[]> {
    const { flags } = await this.parse(LogsAudit);
    const { createContext } = await import('../../context.js');
    const { formatTable } = await import('../../table.js');
    const { formatDuration, formatWhen } = await import('../../duration.js');
    const ctx = await createContext();
    try {
      const store = await ctx.store();
      const wanted = flags.filter?.toLowerCase();
      const entries = [];
      // The store filters on source only; transport matches are picked out page by page.
      const PAGE = 500;
      for (let offset = 0; entries.length < flags.limit; offset += PAGE) {
        const page = await store.auditLog.list({ limit: PAGE, offset });
        for (const e of page) {
          if (
            wanted === undefined ||
            e.source.toLowerCase() === wanted ||
            e.transport?.toLowerCase() === wanted
          ) {
            entries.push(e);
          }
          if (entries.length === flags.limit) break;
        }
        if (page.length < PAGE) break;
      }
      const views: AuditView[] = entries.map((e) => ({
        id: e.id,
        at: e.at.toISOString(),
        actor: e.actor,
        source: e.source,
        transport: e.transport,
        action: e.action,
        arguments: e.arguments ?? null,
        outcome: e.outcome,
        duration_ms: e.durationMs,
        details: e.details ?? null,
      }));
      if (views.length === 0) {
        this.log(
          flags.filter === undefined
            ? 'No audit entries yet. MCP tool calls are recorded here once `junction stdio` or `junction serve` handles them.'
            : `No audit entries match "${flags.filter}".`,
        );
      } else {
        this.log(
          formatTable(
            ['AT', 'SOURCE', 'TRANSPORT', 'ACTOR', 'ACTION', 'OUTCOME', 'DURATION'],
            views.map((v) => [
              formatWhen(new Date(v.at)),
              v.source,
              v.transport ?? '-',
              v.actor ?? '-',
              v.action,
              v.outcome,
              v.duration_ms === null ? '-' : formatDuration(v.duration_ms),
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
