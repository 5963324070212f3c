// The workflow run id argument of `workflow inspect` and `workflow cancel`.
import { CliError } from './cli-error.js';

/** A workflow run id from the command line; INVALID_ARGUMENT (exit 2) unless a whole number. */
export function workflowRunIdArg(value: string): number {
  if (!/^\d{1,15}$/.test(value)) {
    throw new CliError(
      'INVALID_ARGUMENT',
      `A workflow run id is a whole number such as 7; got ${JSON.stringify(value)}.`,
      {
        argument: 'run',
        value,
      },
    );
  }
  return Number(value);
}
