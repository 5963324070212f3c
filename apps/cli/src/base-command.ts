import { Command } from '@oclif/core';
import { exitCodeFor } from './exit-codes.js';

interface CodedError extends Error {
  code?: string;
  details?: unknown;
}

/** Base of every junction command: coded errors become a clear message and a mapped exit code. */
export abstract class JunctionCommand extends Command {
  protected override async catch(
    err: CodedError & { exitCode?: number; oclif?: { exit?: number } },
  ): Promise<unknown> {
    // `this.exit(n)` after a JSON answer (a run that ended badly) is not an error to print again.
    if (err.code === 'EEXIT' && typeof err.oclif?.exit === 'number') throw err;
    // oclif's own parse errors (unknown flag, missing argument) keep oclif's handling and exit 2.
    if (err.oclif || typeof err.code !== 'string' || !/^[A-Z_]+$/.test(err.code)) {
      return super.catch(err);
    }
    const exit = exitCodeFor(err.code);
    if (this.jsonEnabled()) {
      process.stdout.write(
        `${JSON.stringify({ error: { code: err.code, message: err.message, details: err.details ?? null } }, null, 2)}\n`,
      );
    } else {
      process.stderr.write(`Error [${err.code}]: ${err.message}\n`);
    }
    return this.exit(exit);
  }
}
