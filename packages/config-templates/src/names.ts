import { WorkspaceError } from './errors.js';

const NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** True for names that are safe as one folder or file name: letters, digits, `-`, `_`, at most 64. */
export function isValidName(name: string): boolean {
  return NAME_PATTERN.test(name);
}

/** Throws INVALID_NAME unless `name` is a valid environment or agent name. */
export function assertValidName(kind: 'environment' | 'agent', name: string): void {
  if (isValidName(name)) return;
  throw new WorkspaceError(
    'INVALID_NAME',
    `Invalid ${kind} name ${JSON.stringify(name)}: use 1 to 64 letters, digits, "-" or "_" (no spaces, path separators or dots).`,
    { details: { kind, name } },
  );
}
