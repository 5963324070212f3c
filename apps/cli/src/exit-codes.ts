// The exit code of every error a command can end with: by its code's kind (@junction/errors),
// with the few codes that have an exit code of their own listed below.
import type { AgentCoreErrorCode } from '@junction/agent-core';
import type { CodingBusErrorCode } from '@junction/coding-bus';
import type { ConfigTemplatesErrorCode } from '@junction/config-templates';
import type { ErrorKind } from '@junction/errors';
import type { ScheduleErrorCode } from '@junction/scheduler';
import type { ServiceErrorCode } from '@junction/service-kit';
import type { StoreErrorCode } from '@junction/store';
import type { TelemetryErrorCode } from '@junction/telemetry';
import type { WorkflowErrorCode } from '@junction/workflows';
import { CLI_ERRORS, type CliErrorCode } from './cli-error.js';

/** Every code a command can end with: the CLI's own and those of the packages it uses. */
export type ExitCodeKey =
  | CliErrorCode
  | AgentCoreErrorCode
  | CodingBusErrorCode
  | ConfigTemplatesErrorCode
  | ScheduleErrorCode
  | ServiceErrorCode
  | StoreErrorCode
  | TelemetryErrorCode
  | WorkflowErrorCode;

/**
 * The exit code of each kind (docs/cli.md, "Exit codes"): 2 the command line or its input,
 * 3 the configuration or a file, 4 not found, 5 a conflict, 1 anything else.
 */
const EXIT_BY_KIND: Readonly<Record<ErrorKind, number>> = {
  invalid: 2,
  unauthenticated: 2,
  forbidden: 2,
  too_large: 2,
  misconfigured: 3,
  not_found: 4,
  conflict: 5,
  unprocessable: 1,
  unavailable: 1,
  internal: 1,
};

/** The codes with an exit code of their own. */
const EXIT_EXCEPTIONS: Readonly<Partial<Record<ExitCodeKey, number>>> = {
  // the shell's own code for a command that is not there
  COMMAND_NOT_FOUND: 127,
  // the store: 6, whatever kept it from answering
  STORE_OPEN_FAILED: 6,
  STORE_MIGRATION_FAILED: 6,
  STORE_CLOSED: 6,
  STORE_BUSY: 6,
  STORE_UNAVAILABLE: 6,
  // a file or template an agent needs: fixed in the workspace, like the configuration
  CONFIG_UNREADABLE: 3,
  FILE_UNREADABLE: 3,
  TEMPLATE_VARIABLE_MISSING: 3,
  WORKFLOW_INVALID: 3,
  // two things of that name (409 over HTTP): the command line must say which
  WORKFLOW_AMBIGUOUS: 2,
  SCHEDULE_TARGET_AMBIGUOUS: 2,
  // an agent names a tool or sub-agent that is not there
  TOOL_NOT_FOUND: 4,
  TOOL_AMBIGUOUS: 4,
  SUB_AGENT_NOT_FOUND: 4,
};

/**
 * The exit code of an error with `code` of kind `kind` (every Junction error carries its kind; a
 * CLI code is known here without it). 1 for anything else. Only the CLI's own table is read at
 * run time: the packages' tables would load every package into every command's start.
 */
export function exitCodeFor(code: string | undefined, kind?: ErrorKind): number {
  if (code === undefined) return 1;
  const own = EXIT_EXCEPTIONS[code as ExitCodeKey];
  if (own !== undefined) return own;
  const known = kind ?? CLI_ERRORS[code as CliErrorCode];
  return known === undefined ? 1 : EXIT_BY_KIND[known];
}
