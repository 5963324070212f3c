import { Flags } from '@oclif/core';
import { JunctionCommand } from '../../base-command.js';

export interface PruneResult {
  pruned: number;
  before: string;
}

export default class RunsPrune extends JunctionCommand {
  static override description =
    'Delete finished runs (completed, error, timeout, cancelled) queued before now minus a duration, with their events. Queued and running runs are kept.';

  static override examples = [
    '<%= config.bin %> runs prune --older-than 30d',
    '<%= config.bin %> runs prune --older-than 12h --json',
  ];

  static override flags = {
    'older-than': Flags.string({
      description: 'delete finished runs queued longer ago than this (500ms, 5s, 2m, 1h, 7d)',
      required: true,
    }),
  };

  static override enableJsonFlag = true;

  async run(): Promise<PruneResult> {
    const { flags } = await this.parse(RunsPrune);
    const { parseDuration } = await import('../../duration.js');
    const ms = parseDuration(flags['older-than'], '--older-than');
    const { createContext } = await import('../../context.js');
    const ctx = await createContext();
    try {
      const store = await ctx.store();
      const before = new Date(Date.now() - ms);
      const pruned = await store.runs.pruneOlderThan(before);
      this.log(
        `Pruned ${pruned} finished ${pruned === 1 ? 'run' : 'runs'} queued before ${before.toISOString()}.`,
      );
      return { pruned, before: before.toISOString() };
    } finally {
      await ctx.close();
    }
  }
}
