import { codesOf, errorClass, type ErrorCodes } from '@junction/errors';

/** Codes of the errors the CLI raises itself (the packages raise their own), with their kinds. */
export const CLI_ERRORS = {
  INVALID_ARGUMENT: 'invalid',
  INVALID_USAGE: 'invalid',
  COMMAND_NOT_FOUND: 'not_found',
  INTERNAL_ERROR: 'internal',
  TRACES_DISABLED: 'misconfigured',
} as const satisfies ErrorCodes;

export type CliErrorCode = keyof typeof CLI_ERRORS;

/** Codes of the errors the CLI raises itself. */
export const CLI_ERROR_CODES = codesOf<CliErrorCode>(CLI_ERRORS);

/** A usage or lookup failure found by a command: a stable code, a message that says what to do, JSON-safe details. */
export const CliError = errorClass<CliErrorCode>('CliError', CLI_ERRORS);
export type CliError = InstanceType<typeof CliError>;
