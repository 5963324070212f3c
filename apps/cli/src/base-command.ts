import { Command } from '@oclif/core';
import { applyTableFlags } from './table.js';
import { exitCodeFor } from './exit-codes.js';

interface CodedError extends Error {
  code?: string;
  details?: unknown;
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

  protected override async catch(
    err: CodedError & { exitCode?: number; oclif?: { exit?: number } },
  ): Promise<unknown> {
    // `this.exit(n)` after a JSON answer (a run that ended badly) is not an error to print again.
    if (err.code === 'EEXIT' && typeof err.oclif?.exit === 'number') throw err;
    const coded = typeof err.code === 'string' && /^[A-Z_]+$/.test(err.code);
    if (!coded && !this.jsonEnabled()) {
      // oclif's own parse errors (unknown flag, missing argument) keep oclif's text and exit 2.
      return super.catch(err);
    }
    // Under --json every error is the same small object: oclif's refusals are INVALID_USAGE
    // (exit 2), anything uncoded INTERNAL_ERROR (exit 1) — never the error object dumped.
    const code = coded ? (err.code as string) : err.oclif ? 'INVALID_USAGE' : 'INTERNAL_ERROR';
    const exit = coded ? exitCodeFor(code) : (err.oclif?.exit ?? exitCodeFor(code));
    if (this.jsonEnabled()) {
      const message = stripAnsi(err.message).trim();
      process.stdout.write(
        `${JSON.stringify({ error: { code, message, details: err.details ?? null } }, null, 2)}\n`,
      );
    } else {
      process.stderr.write(`Error [${code}]: ${err.message}\n`);
    }
    return this.exit(exit);
  }
}

/** `text` without terminal colour codes (oclif colours parts of its messages). */
function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}
