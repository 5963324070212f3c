import { Flags } from '@oclif/core';
import { JunctionCommand } from '../../base-command.js';
import type { LogFileRecord } from '../../log-file.js';

export default class Logs extends JunctionCommand {
  static override description =
    'Show the service log (JSON lines in <workspace>/logs/junction.log): the last lines, filtered by level and agent, or follow it with -f. ' +
    'With --run <id>: the events of that run instead (model turns, tool calls, errors) from the store, and with -f the new ones live until it ends, whichever host executes it.';

  static override examples = [
    '<%= config.bin %> logs',
    '<%= config.bin %> logs --level warn --agent triage --lines 20',
    '<%= config.bin %> logs -f',
    '<%= config.bin %> logs --json',
    '<%= config.bin %> logs --run 42 -f',
  ];

  static override flags = {
    follow: Flags.boolean({
      char: 'f',
      description: 'keep printing lines as they are written, until Ctrl-C',
      default: false,
    }),
    level: Flags.string({
      char: 'l',
      description: 'show this level and the more severe ones (error < warn < info < debug)',
      options: ['error', 'warn', 'info', 'debug'],
    }),
    agent: Flags.string({ char: 'a', description: 'only records of this agent (agent_name)' }),
    run: Flags.integer({
      char: 'r',
      description:
        'the events of this run (its id) instead of the service log; -f follows it until it ends',
      min: 1,
      exclusive: ['level', 'agent'],
    }),
    lines: Flags.integer({
      char: 'n',
      description: 'how many of the last matching records to show first',
      default: 100,
      min: 0,
      max: 100_000,
    }),
  };

  static override enableJsonFlag = true;

  async run(): Promise<LogFileRecord[] | RunEventLine[] | undefined> {
    const { flags } = await this.parse(Logs);
    if (flags.run !== undefined) return this.#runEvents(flags.run, flags.follow, flags.lines);
    const { createContext } = await import('../../context.js');
    const logFile = await import('../../log-file.js');
    const { formatTextRecord } = await import('@junction/telemetry');
    type Level = Parameters<typeof formatTextRecord>[0]['level'];

    const filter = {
      ...(flags.level !== undefined ? { level: flags.level as Level } : {}),
      ...(flags.agent !== undefined ? { agent: flags.agent } : {}),
    };
    const json = this.jsonEnabled();
    const print = (record: LogFileRecord): void => {
      if (json) {
        process.stdout.write(`${JSON.stringify(record)}\n`);
        return;
      }
      const { level, ts, msg, ...fields } = record;
      process.stdout.write(`${formatTextRecord({ level: level as Level, ts, msg, fields })}\n`);
    };

    const ctx = await createContext();
    try {
      const last = await logFile.readLastRecords(ctx.logFile, flags.lines, filter);
      if (!flags.follow) {
        if (last === undefined) {
          this.log(
            `No log file yet at ${ctx.logFile}. Junction writes it once a command or \`junction serve\` logs something.`,
          );
          return [];
        }
        if (!json) for (const record of last.records) print(record);
        return last.records;
      }

      // Following: records go out as they come, JSON lines with --json.
      if (last === undefined) process.stderr.write(`Waiting for ${ctx.logFile} to be written…\n`);
      for (const record of last?.records ?? []) print(record);
      await new Promise<void>((resolve) => {
        const follower = new logFile.LogFollower(ctx.logFile, {
          offset: last?.size ?? 0,
          ...(last ? { inode: last.inode } : {}),
          onLine: (line) => {
            const record = logFile.parseLogLine(line);
            if (record && logFile.matchesLogFilter(record, filter)) print(record);
          },
        });
        const stop = (): void => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          follower.stop();
          resolve();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
        follower.start();
      });
      return undefined;
    } finally {
      await ctx.close();
    }
  }

  /** The events of run `runId` (the last `lines`), then, following, the new ones until it ends. */
  async #runEvents(
    runId: number,
    follow: boolean,
    lines: number,
  ): Promise<RunEventLine[] | undefined> {
    const { createContext } = await import('../../context.js');
    const { createService } = await import('../../service.js');
    const { summarizeEvent } = await import('@junction/agent-core/views');
    const ctx = await createContext();
    const service = await createService(ctx, { version: this.config.version, executes: false });
    const json = this.jsonEnabled();
    const seen: RunEventLine[] = [];
    const print = (event: { type: string; payload: unknown; durationMs: number | null }): void => {
      const line: RunEventLine = {
        run_id: runId,
        type: event.type,
        summary: summarizeEvent(event.type, event.payload),
        duration_ms: event.durationMs,
        payload: event.payload,
      };
      seen.push(line);
      if (json) {
        if (follow) process.stdout.write(`${JSON.stringify(line)}\n`);
      } else {
        this.log(`${line.type.padEnd(12)} ${line.summary}`.trimEnd());
      }
    };
    const stop = new AbortController();
    const onSignal = (): void => stop.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      if (follow) await service.start();
      // Not following, the run's events as they are now: its end is not waited for.
      if (!follow) stop.abort();
      const total = await service.store.runEvents.count(runId);
      const afterSeq = Math.max(0, total - lines);
      const run = await service.runs.follow(runId, {
        keepAlive: true,
        signal: stop.signal,
        afterSeq,
        onEvent: print,
      });
      if (follow && !json)
        this.log(`run ${run.id} ${run.status}${run.error ? `: ${run.error}` : ''}`);
      // Followed as JSON, the lines went out as they came.
      return follow && json ? undefined : seen;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await service.stop();
      await ctx.close();
    }
  }
}

/** One event of `logs --run`, as --json prints it. */
export interface RunEventLine {
  run_id: number;
  type: string;
  summary: string;
  duration_ms: number | null;
  payload: unknown;
}
