// One error family for everything this package reports. Surfaces (CLI, REST, MCP) map the
// stable `code` to exit codes / status codes in one table each, so codes never change meaning.

/** A value that survives JSON.stringify unchanged. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };

/** Every code this package throws. */
export const CONFIG_TEMPLATES_ERROR_CODES = [
  'CONFIG_INVALID',
  'CONFIG_UNREADABLE',
  'INVALID_NAME',
  'ENVIRONMENT_NOT_FOUND',
  'ENVIRONMENT_EXISTS',
  'AGENT_NOT_FOUND',
  'AGENT_FILE_EXISTS',
  'VARIABLES_INVALID',
  'TEMPLATE_VARIABLE_MISSING',
  'TEMPLATE_INVALID',
  'PROMPT_INVALID',
  'FILE_UNREADABLE',
] as const;

/** A stable, upper-case error code of this package. */
export type ConfigTemplatesErrorCode = (typeof CONFIG_TEMPLATES_ERROR_CODES)[number];

/** Options shared by every error of the family. */
export interface ConfigTemplatesErrorOptions {
  details?: Record<string, JsonValue>;
  cause?: unknown;
}

/** Base class: a stable `code`, a message that says what to do, JSON-safe `details`, the original `cause`. */
export class ConfigTemplatesError extends Error {
  readonly code: ConfigTemplatesErrorCode;
  readonly details: Record<string, JsonValue>;

  constructor(
    code: ConfigTemplatesErrorCode,
    message: string,
    options: ConfigTemplatesErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ConfigTemplatesError';
    this.code = code;
    this.details = options.details ?? {};
  }

  /** The JSON shape surfaces send to clients. */
  toJSON(): {
    code: ConfigTemplatesErrorCode;
    message: string;
    details: Record<string, JsonValue>;
  } {
    return { code: this.code, message: this.message, details: this.details };
  }
}

/** config.yaml or a JUNCTION_ / OTEL_ environment variable is wrong. */
export class ConfigError extends ConfigTemplatesError {
  constructor(
    code: ConfigTemplatesErrorCode,
    message: string,
    options: ConfigTemplatesErrorOptions = {},
  ) {
    super(code, message, options);
    this.name = 'ConfigError';
  }
}

/** An environment, variables file or agent file on disk is missing, clashing or malformed. */
export class WorkspaceError extends ConfigTemplatesError {
  constructor(
    code: ConfigTemplatesErrorCode,
    message: string,
    options: ConfigTemplatesErrorOptions = {},
  ) {
    super(code, message, options);
    this.name = 'WorkspaceError';
  }
}

/** An MCP server template cannot be rendered or is not a valid template. */
export class TemplateError extends ConfigTemplatesError {
  constructor(
    code: ConfigTemplatesErrorCode,
    message: string,
    options: ConfigTemplatesErrorOptions = {},
  ) {
    super(code, message, options);
    this.name = 'TemplateError';
  }
}

/** An agent `.prompt` file cannot be parsed, rendered or written. */
export class PromptError extends ConfigTemplatesError {
  constructor(
    code: ConfigTemplatesErrorCode,
    message: string,
    options: ConfigTemplatesErrorOptions = {},
  ) {
    super(code, message, options);
    this.name = 'PromptError';
  }
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
