import { Flags } from '@oclif/core';
import { JunctionCommand } from '../../base-command.js';
import type { LogFileRecord } from '../../log-file.js';

export default class Logs extends JunctionCommand {
  static override description =
    'Show the service log (JSON lines in <workspace>/logs/junction.log): the last lines, filtered by level and agent, or follow it with -f.';

  static override examples = [
    '<%= config.bin %> logs',
    '<%= config.bin %> logs --level warn --agent triage --lines 20',
    '<%= config.bin %> logs -f',
    '<%= config.bin %> logs --json',
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
    lines: Flags.integer({
      char: 'n',
      description: 'how many of the last matching records to show first',
      default: 100,
      min: 0,
      max: 100_000,
    }),
  };

  static override enableJsonFlag = true;

  async run(): Promise<LogFileRecord[] | undefined> {
    const { flags } = await this.parse(Logs);
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
}
