import { Command } from '@oclif/core';
import { applyTableFlags } from './table-settings.js';
import type { ErrorKind } from '@junction/errors';
import { exitCodeFor } from './exit-codes.js';
import { usageMessage, writeError } from './error-output.js';

interface CodedError extends Error {
  code?: string;
  /** Every Junction error's kind (@junction/errors): its exit code. */
  kind?: ErrorKind;
  details?: unknown;
  args?: Array<{ name?: string; description?: string }>;
}

/** Base of every junction command: coded errors become a clear message and a mapped exit code. */
export abstract class JunctionCommand extends Command {
  /** Lets tables know --columns and --no-truncate (table.ts); oclif checks them as flags. */
  public override async init(): Promise<void> {
    await super.init();
    const argv = this.argv;
    const flags: Record<string, unknown> = { 'no-truncate': argv.includes('--no-truncate') };
    argv.forEach((arg, i) => {
      if (arg === '--columns') flags.columns = argv[i + 1];
      else if (arg.startsWith('--columns=')) flags.columns = arg.slice('--columns='.length);
    });
    applyTableFlags(flags);
  }

  /**
   * Every error leaves in the documented form (error-output.ts): a coded error with its code's
   * exit code; oclif's refusals (unknown flag, missing argument) INVALID_USAGE, exit 2;
   * anything else INTERNAL_ERROR, exit 1 — never oclif's own text or the error object dumped.
   */
  protected override async catch(
    err: CodedError & { exitCode?: number; oclif?: { exit?: number } },
  ): Promise<unknown> {
    // `this.exit(n)` after a JSON answer (a run that ended badly) is not an error to print again.
    if (err.code === 'EEXIT' && typeof err.oclif?.exit === 'number') throw err;
    const coded = typeof err.code === 'string' && /^[A-Z_]+$/.test(err.code);
    const code = coded ? (err.code as string) : err.oclif ? 'INVALID_USAGE' : 'INTERNAL_ERROR';
    const exit = coded ? exitCodeFor(code, err.kind) : (err.oclif?.exit ?? exitCodeFor(code));
    const message = code === 'INVALID_USAGE' && !coded ? this.usageText(err) : err.message;
    writeError({ code, message, details: err.details }, this.jsonEnabled());
    return this.exit(exit);
  }

  /** oclif's refusal in our words, naming this command's --help. */
  private usageText(err: CodedError): string {
    const flags = Object.entries(this.ctor.flags ?? {})
      .filter(([name, flag]) => flag.type === 'option' && flag.multiple === true && this.gave(name))
      .map(([name]) => name);
    const commandLine = `${this.config.bin} ${(this.id ?? '').split(':').join(' ')}`.trim();
    return usageMessage(err, commandLine, flags);
  }

  private gave(flag: string): boolean {
    return this.argv.some((a) => a === `--${flag}` || a.startsWith(`--${flag}=`));
  }
}
