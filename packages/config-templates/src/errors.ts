// One error family for everything this package reports. Each code is declared once with its
// kind (@junction/errors), by which every surface answers it; codes never change meaning.
import {
  codesOf,
  JunctionError,
  type ErrorCodes,
  type JunctionErrorOptions,
} from '@junction/errors';

/** A value that survives JSON.stringify unchanged. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };

/** Every code this package throws, with its kind (see @junction/errors). */
export const CONFIG_TEMPLATES_ERRORS = {
  CONFIG_INVALID: 'misconfigured',
  CONFIG_UNREADABLE: 'internal',
  INVALID_NAME: 'invalid',
  ENVIRONMENT_NOT_FOUND: 'not_found',
  ENVIRONMENT_EXISTS: 'conflict',
  AGENT_NOT_FOUND: 'not_found',
  AGENT_FILE_EXISTS: 'conflict',
  VARIABLES_INVALID: 'misconfigured',
  TEMPLATE_VARIABLE_MISSING: 'unprocessable',
  TEMPLATE_INVALID: 'misconfigured',
  PROMPT_INVALID: 'misconfigured',
  FILE_UNREADABLE: 'internal',
} as const satisfies ErrorCodes;

/** A stable, upper-case error code of this package. */
export type ConfigTemplatesErrorCode = keyof typeof CONFIG_TEMPLATES_ERRORS;

/** Every code this package throws. */
export const CONFIG_TEMPLATES_ERROR_CODES =
  codesOf<ConfigTemplatesErrorCode>(CONFIG_TEMPLATES_ERRORS);

/** Base class: a stable `code`, a message that says what to do, JSON-safe `details`, the original `cause`. */
export class ConfigTemplatesError extends JunctionError<
  ConfigTemplatesErrorCode,
  Record<string, JsonValue>
> {
  constructor(
    code: ConfigTemplatesErrorCode,
    message: string,
    details: Record<string, JsonValue> = {},
    options: JunctionErrorOptions = {},
  ) {
    super(code, CONFIG_TEMPLATES_ERRORS[code], message, details, options);
    this.name = 'ConfigTemplatesError';
  }
}

/** config.yaml or a JUNCTION_ / OTEL_ environment variable is wrong. */
export class ConfigError extends ConfigTemplatesError {
  override readonly name = 'ConfigError';
}

/** An environment, variables file or agent file on disk is missing, clashing or malformed. */
export class WorkspaceError extends ConfigTemplatesError {
  override readonly name = 'WorkspaceError';
}

/** An MCP server template cannot be rendered or is not a valid template. */
export class TemplateError extends ConfigTemplatesError {
  override readonly name = 'TemplateError';
}

/** An agent `.prompt` file cannot be parsed, rendered or written. */
export class PromptError extends ConfigTemplatesError {
  override readonly name = 'PromptError';
}

/** True when `error` belongs to this package's error family (optionally with the given code). */
export function isConfigTemplatesError(
  error: unknown,
  code?: ConfigTemplatesErrorCode,
): error is ConfigTemplatesError {
  return error instanceof ConfigTemplatesError && (code === undefined || error.code === code);
}

/** Describes a value the way error messages quote it: strings in quotes, lists and maps by kind. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') {
    const shown = value.length > 60 ? `${value.slice(0, 57)}...` : value;
    return JSON.stringify(shown);
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Date) return `a date (${value.toISOString()})`;
  if (typeof value === 'object') return 'a map';
  return typeof value;
}

/** Builds a zod error function that reports `expected <what>, got <value>`. */
export function expecting(what: string): (issue: { readonly input?: unknown }) => string {
  return (issue) => `expected ${what}, got ${describeValue(issue.input)}`;
}
