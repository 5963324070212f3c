import { Flags } from '@oclif/core';

/** `--env`: the environment a command works in. */
export const envFlag = Flags.string({
  char: 'e',
  description: 'environment to use',
  default: 'default',
});

/** `--no-color`: status words without colour (as NO_COLOR does; a pipe never gets colour). */
export const noColorFlag = Flags.boolean({
  description: 'no colour in the output (also NO_COLOR=1; output to a pipe has none)',
  default: false,
});

/** `--columns` and `--no-truncate` of a command that prints a table (see table.ts). */
export const tableFlags = {
  columns: Flags.string({
    description: 'only these columns, comma-separated, in this order (e.g. id,status)',
  }),
  'no-truncate': Flags.boolean({
    description: 'never cut long values to the terminal width',
    default: false,
  }),
};

/** `--debug` and `--drain-seconds` of a command that works runs until a signal (serve, worker). */
export const serviceFlags = {
  debug: Flags.boolean({ description: 'log at debug level', default: false }),
  'drain-seconds': Flags.integer({
    description:
      'on SIGTERM, how long in-flight runs may finish; then each is handed over at its next step boundary: re-queued, to be resumed from its journal',
    default: 10,
    min: 0,
    max: 3600,
  }),
};

/** Resolves with the name of the first SIGINT or SIGTERM. */
export function untilSignal(): Promise<string> {
  return new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
}
