import { Args, Flags } from '@oclif/core';
import { JunctionCommand } from '../../base-command.js';
import type { AttemptView, RunOriginView } from '@junction/agent-core/runs';
import type { RunEventView, RunView } from '../../run-view.js';

export interface RunInspection {
  run: RunView;
  /** Its attempts (more than one when it was interrupted and resumed: docs/runs.md). */
  attempts: AttemptView[];
  events: RunEventView[];
}

export default class RunsInspect extends JunctionCommand {
  static override description =
    'Show one run: its record, then every event in order (model turns, tool calls, sub-agents, errors).';

  static override examples = [
    '<%= config.bin %> runs inspect 42',
    '<%= config.bin %> runs inspect 42 --verbose',
    '<%= config.bin %> runs inspect 42 --json',
  ];

  static override args = { id: Args.string({ description: 'run id', required: true }) };

  static override flags = {
    verbose: Flags.boolean({
      char: 'v',
      description: 'print each event in full: tool arguments and results, model text',
      default: false,
    }),
  };

  static override enableJsonFlag = true;

  async run(): Promise<RunInspection> {
    const { args, flags } = await this.parse(RunsInspect);
    const { runIdArg } = await import('../../run-args.js');
    const id = runIdArg(args.id);
    const { createContext } = await import('../../context.js');
    const { runView, runEventView, payloadLines } = await import('../../run-view.js');
    const { formatDuration } = await import('../../duration.js');
    const { formatUsd } = await import('../../usd.js');
    const ctx = await createContext();
    try {
      const store = await ctx.store();
      const run = await store.runs.get(id);
      if (!run) {
        const { AgentCoreError } = await import('@junction/agent-core');
        throw new AgentCoreError(
          'RUN_NOT_FOUND',
          `There is no run ${id}; it may have been pruned. \`junction runs list\` shows the recent runs.`,
          { runId: id },
        );
      }
      const events = [];
      for (let offset = 0; ; offset += 1000) {
        const page = await store.runEvents.list(id, { limit: 1000, offset });
        events.push(...page);
        if (page.length < 1000) break;
      }
      const v = runView(run, await ctx.pricing());
      const eventViews = events.map((e) => runEventView(e, flags.verbose));
      const { attemptViews } = await import('@junction/agent-core/runs');
      const attempts = attemptViews(
        run,
        events.filter((e) => e.type === 'attempt_ended'),
        events.filter((e) => e.type === 'resumed'),
      );

      const dash = (x: string | number | null): string =>
        x === null || x === '' ? '-' : String(x);
      this.log(`Run ${v.run_id}  ${v.agent_name}  ${v.status}`);
      this.log(`  source          ${v.source}`);
      this.log(`  parent run      ${dash(v.parent_run_id)}`);
      if (v.origin !== null) this.log(`  origin          ${originText(v.origin)}`);
      this.log(`  model           ${dash(v.model)}`);
      this.log(`  steps           ${v.steps_taken}`);
      this.log(`  tokens          ${v.input_tokens} in / ${v.output_tokens} out`);
      this.log(`  cost            ${formatUsd(v.cost_usd)}`);
      this.log(`  duration        ${v.duration_ms === null ? '-' : formatDuration(v.duration_ms)}`);
      this.log(`  queued          ${v.queued_at}`);
      this.log(`  started         ${dash(v.started_at)}`);
      this.log(`  completed       ${dash(v.completed_at)}`);
      this.log(`  trace id        ${dash(v.trace_id)}`);
      this.log(`  task            ${indentRest(v.task, 18)}`);
      if (v.error !== null) this.log(`  error           ${indentRest(v.error, 18)}`);
      this.log(
        `  final response  ${v.final_response === null ? '-' : indentRest(v.final_response, 18)}`,
      );
      this.log('');
      if (attempts.length > 1) {
        this.log(`Attempts (${attempts.length})`);
        for (const a of attempts) {
          const parts = [
            `  #${a.attempt}`,
            a.worker_id ?? '-',
            a.resumed_from_step !== null ? `from step ${a.resumed_from_step}` : 'from the start',
            `started ${dash(a.started_at)}`,
            a.end_reason !== null ? `ended ${dash(a.ended_at)}: ${a.end_reason}` : undefined,
          ];
          this.log(parts.filter((x) => x !== undefined).join('  '));
        }
        this.log('');
      }
      if (eventViews.length === 0) {
        this.log('No events.');
      } else {
        this.log(`Events (${eventViews.length})`);
        const typeWidth = Math.max(...eventViews.map((e) => e.type.length));
        for (const [i, e] of eventViews.entries()) {
          const took = e.duration_ms === null ? '-' : formatDuration(e.duration_ms);
          this.log(
            `  #${String(e.seq).padEnd(4)} ${e.type.padEnd(typeWidth)}  ${took.padStart(7)}  ${e.summary}`,
          );
          if (flags.verbose) {
            for (const line of payloadLines(events[i]?.payload)) this.log(`        ${line}`);
          }
        }
      }
      return { run: v, attempts, events: eventViews };
    } finally {
      await ctx.close();
    }
  }
}

/** A run's origin in one line: `workflow run 12, step build#1`, `schedule 3`, `platform run abc`. */
function originText(origin: RunOriginView): string {
  return [
    origin.workflow_run_id !== null &&
      `workflow run ${origin.workflow_run_id}` +
        (origin.workflow_step !== null ? `, step ${origin.workflow_step}` : ''),
    origin.schedule_id !== null && `schedule ${origin.schedule_id}`,
    origin.platform_run_id !== null && `platform run ${origin.platform_run_id}`,
  ]
    .filter((part) => part !== false)
    .join('; ');
}

/** Multi-line text under a label: the lines after the first are indented to the label's width. */
function indentRest(text: string, width: number): string {
  return text.replace(/\n/g, `\n${' '.repeat(width)}`);
}
