// Asking before something is deleted: at a terminal, a y/N question (no is the default); in a
// pipe or under --json there is nobody to ask, so only --force goes ahead.
import { createInterface } from 'node:readline/promises';
import { CliError } from './cli-error.js';

/**
 * Resolves true when the user confirms `question` (or `force` is set); false when they decline.
 * INVALID_ARGUMENT (exit 2) when nobody can be asked and --force is missing.
 */
export async function confirmed(question: string, force: boolean, json: boolean): Promise<boolean> {
  if (force) return true;
  if (json || !process.stdin.isTTY) {
    throw new CliError(
      'INVALID_ARGUMENT',
      `${question.replace(/\?$/, '')}: there is no terminal to confirm at; add --force to delete without asking.`,
      { argument: 'force' },
    );
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${question} [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}
