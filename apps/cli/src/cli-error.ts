/** Codes of the errors the CLI raises itself (the packages raise their own). */
export const CLI_ERROR_CODES = [
  'INVALID_ARGUMENT',
  'INVALID_USAGE',
  'COMMAND_NOT_FOUND',
  'INTERNAL_ERROR',
  'MANAGEMENT_NOT_CONFIGURED',
  'MANAGEMENT_KEY_REFUSED',
  'MANAGEMENT_UNREACHABLE',
  'TRACES_DISABLED',
] as const;

export type CliErrorCode = (typeof CLI_ERROR_CODES)[number];

/** A usage or lookup failure found by a command: a stable code, a message that says what to do, JSON-safe details. */
export class CliError extends Error {
  override readonly name = 'CliError';
  readonly code: CliErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: CliErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.code = code;
    this.details = details;
  }
}
