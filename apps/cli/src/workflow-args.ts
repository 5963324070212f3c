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

/**
 * A `--status` flag checked against the store's own list (imported here, not at the top of a
 * command, so `--help` never loads the database driver); INVALID_ARGUMENT naming the choices.
 */
export async function statusArg<T extends string>(
  value: string,
  kind: 'workflow run' | 'approval',
): Promise<T> {
  const { WORKFLOW_RUN_STATUSES, APPROVAL_STATUSES } = await import('@junction/store');
  const allowed: readonly string[] =
    kind === 'workflow run' ? WORKFLOW_RUN_STATUSES : APPROVAL_STATUSES;
  if (!allowed.includes(value)) {
    throw new CliError(
      'INVALID_ARGUMENT',
      `--status ${JSON.stringify(value)} is not a ${kind} status; use one of ${allowed.join(', ')}.`,
      { argument: 'status', value, allowed },
    );
  }
  return value as T;
}
