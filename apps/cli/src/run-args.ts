// What a run is given on the command line — `--var name=value` (agent runs) and
// `--input JSON|@file` (workflow runs) — read the same way by every command that starts or
// schedules one.
import { CliError } from './cli-error.js';

/** A run id argument: a whole number; INVALID_ARGUMENT (exit 2) otherwise. */
export function runIdArg(value: string): number {
  if (!/^\d{1,15}$/.test(value)) {
    throw new CliError(
      'INVALID_ARGUMENT',
      `A run id is a whole number such as 42; got ${JSON.stringify(value)}.`,
      { argument: 'id', value },
    );
  }
  return Number(value);
}

/** Parses repeated `--var k=v` flags; a malformed one is INVALID_ARGUMENT (exit 2). */
export function parseVars(pairs: readonly string[]): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) {
      throw new CliError(
        'INVALID_ARGUMENT',
        `--var "${pair}" is not name=value (for example --var city=Paris).`,
        { argument: 'var', value: pair },
      );
    }
    vars[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return vars;
}

/** `--input`: JSON text, or @file holding JSON; INVALID_ARGUMENT (exit 2) when it is neither. */
export async function readInput(flag: string | undefined): Promise<unknown> {
  if (flag === undefined) return {};
  let text = flag;
  if (flag.startsWith('@')) {
    const { readFile } = await import('node:fs/promises');
    try {
      text = await readFile(flag.slice(1), 'utf8');
    } catch (err) {
      throw new CliError(
        'INVALID_ARGUMENT',
        `Cannot read the input file ${flag.slice(1)}: ${(err as Error).message}.`,
        { argument: 'input' },
      );
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new CliError(
      'INVALID_ARGUMENT',
      `--input must be JSON (or @file with JSON): ${(err as Error).message}. For example --input '{"ticket": "T-1"}'.`,
      { argument: 'input' },
    );
  }
}
