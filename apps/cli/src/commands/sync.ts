import { Args, Flags } from '@oclif/core';
import type { SyncReport, syncEnvironment } from '@junction/agent-core/sync';
import type { SyncWorkflowsResult } from '@junction/workflows';
import { JunctionCommand } from '../base-command.js';
import type { CliContext } from '../context.js';
import { noColorFlag } from '../flags.js';
import type { Spinner } from '../progress.js';

/** What the command reports: the agents' sync and the workflows'. */
type SyncResult = SyncReport & { workflows: SyncWorkflowsResult };

/** One progress event of syncEnvironment (a server starting, or a server, config or agent done). */
type SyncProgress = Parameters<NonNullable<Parameters<typeof syncEnvironment>[0]['onProgress']>>[0];

/** A list of names cut to fit a table cell. */
function brief(names: string[], width = 40): string {
  const text = names.join(',');
  return text.length <= width ? text : `${text.slice(0, width - 1)}… (${names.length})`;
}

export default class Sync extends JunctionCommand {
  static override description =
    'Render the MCP templates of an environment, list the tools of every server, and store servers, tools, agents and workflows. ' +
    'Exits 7 when any config, server, agent or workflow failed (the rest are still synced).';

  static override examples = [
    '<%= config.bin %> sync default',
    '<%= config.bin %> sync prod --dry-run',
    '<%= config.bin %> sync default --json',
  ];

  static override args = {
    environment: Args.string({ description: 'environment to sync', required: true }),
  };

  static override flags = {
    'dry-run': Flags.boolean({
      description: 'show what would change without writing to the store',
    }),
    timeout: Flags.integer({
      description: 'seconds to wait for each server to start and list its tools',
      default: 60,
      min: 1,
    }),
    'no-color': noColorFlag,
  };

  static override enableJsonFlag = true;

  async run(): Promise<SyncResult> {
    const { args, flags } = await this.parse(Sync);
    const { createContext } = await import('../context.js');
    const { McpClientPool } = await import('@junction/agent-core/mcp');
    const { syncEnvironment } = await import('@junction/agent-core/sync');
    const ctx = await createContext();
    const pool = new McpClientPool({
      connectTimeoutMs: flags.timeout * 1000,
      requestTimeoutMs: flags.timeout * 1000,
      clientName: 'junction',
    });
    const { Spinner, colourOn, paint } = await import('../progress.js');
    // Live at a terminal (servers under way, status in colour); plain lines in a pipe.
    const spinner = new Spinner((line) => this.log(line), !this.jsonEnabled());
    const colour = colourOn(flags['no-color']);
    let agentsReport: SyncReport;
    let workflows: SyncWorkflowsResult;
    try {
      if (!this.jsonEnabled()) {
        this.log(
          `${flags['dry-run'] ? 'Dry run: ' : ''}syncing environment "${args.environment}"…`,
        );
      }
      agentsReport = await syncEnvironment({
        workspace: ctx.workspace,
        store: await ctx.store(),
        pool,
        environment: args.environment,
        dryRun: flags['dry-run'],
        onProgress: (event) => showProgress(event, spinner, (word) => paint(word, colour)),
      });
      workflows = await this.#syncWorkflows(ctx, args.environment, flags['dry-run']);
    } finally {
      spinner.stop();
      await pool.closeAll();
      await ctx.close();
    }
    const workflowsOk = workflows.workflows.every((w) => w.status === 'synced');
    const report = { ...agentsReport, ok: agentsReport.ok && workflowsOk, workflows };
    if (this.jsonEnabled()) {
      if (!report.ok) {
        this.logJson(report);
        return this.exit(7);
      }
      return report;
    }
    await this.#printSummary(report);
    if (!report.ok) {
      this.logToStderr('Some configs, servers, agents or workflows failed; see the lines above.');
      return this.exit(7);
    }
    return report;
  }

  /** Stores the environment's workflows (after its agents) and prints a line for each. */
  async #syncWorkflows(
    ctx: CliContext,
    environment: string,
    dryRun: boolean,
  ): Promise<SyncWorkflowsResult> {
    const { syncWorkflows } = await import('@junction/workflows');
    const workflows = await syncWorkflows({
      workspace: ctx.workspace,
      store: await ctx.store(),
      environment,
      dryRun,
    });
    if (!this.jsonEnabled()) {
      for (const w of workflows.workflows) {
        this.log(
          `workflow ${w.workflowId}  ${w.status}  (${w.change})` +
            (w.error ? `  — ${w.error}` : ''),
        );
      }
      for (const id of workflows.disabled)
        this.log(`workflow ${id}  disabled (its file is gone or invalid)`);
    }
    return workflows;
  }

  /** The closing table of configs and servers, the totals line and any note on changed variables. */
  async #printSummary(report: SyncResult): Promise<void> {
    const { variablesChangedNote } = await import('@junction/agent-core/sync');
    const { formatTable } = await import('../table.js');
    const rows = summaryRows(report);
    this.log('');
    if (rows.length > 0) {
      this.log(
        formatTable(['CONFIG', 'SERVER', 'STATUS', 'CHANGE', 'TOOLS', 'ADDED', 'REMOVED'], rows),
      );
    }
    const t = report.totals;
    const workflows = report.workflows;
    this.log(
      `\n${report.dryRun ? 'Would sync' : 'Synced'} ${t.configs} configs, ${t.servers} servers (${t.failedServers} failed), ` +
        `${t.tools} tools, ${t.agents} agents (${t.failedAgents} failed), ` +
        `${workflows.workflows.length} workflows (${workflows.workflows.filter((w) => w.status !== 'synced').length} failed)` +
        (report.removedAgents.length
          ? `; removed agents: ${report.removedAgents.join(', ')}`
          : '') +
        (report.removedConfigs.length
          ? `; removed configs: ${report.removedConfigs.join(', ')}`
          : ''),
    );
    const variablesNote = variablesChangedNote(report);
    if (variablesNote !== undefined) this.log(variablesNote);
  }
}

/** One progress event of the agents' sync: a server under way, or the line of a server, config or agent. */
function showProgress(
  event: SyncProgress,
  spinner: Spinner,
  paint: (word: string) => string,
): void {
  if (event.type === 'server_start') {
    spinner.start(
      `${event.config}/${event.name}`,
      `starting ${event.name}${event.command ? ` (${event.command})` : ''}`,
    );
  } else if (event.type === 'server') {
    const s = event.server;
    spinner.done(`${s.config}/${s.name}`);
    spinner.line(
      `  server  ${s.config}/${s.name}  ${paint(s.status)}  ${s.tools} tools` +
        (s.error ? `  — ${s.error}` : ''),
    );
  } else if (event.type === 'config') {
    const c = event.config;
    spinner.line(
      `config  ${c.name}  ${paint(c.status)}  ${c.servers.length} servers` +
        (c.error ? `  — ${c.error}` : ''),
    );
  } else {
    const a = event.agent;
    spinner.line(
      `agent   ${a.name}  ${paint(a.status)}  (${a.change})` + (a.error ? `  — ${a.error}` : ''),
    );
  }
}

/** The table's rows: a row per server (or per config without servers), then the removed servers. */
function summaryRows(report: SyncReport): Array<Array<string | number>> {
  const rows: Array<Array<string | number>> = [];
  for (const c of report.configs) {
    if (c.servers.length === 0) rows.push([c.name, '-', c.status, c.change, 0, '', '']);
    for (const s of c.servers) {
      rows.push([
        c.name,
        s.name,
        s.status,
        s.change,
        s.tools,
        brief(s.toolsAdded),
        brief(s.toolsRemoved),
      ]);
    }
  }
  for (const name of report.removedServers) rows.push(['', name, 'removed', 'removed', 0, '', '']);
  return rows;
}
