// The exit code of every error a command can end with: by its code's kind (@junction/errors),
// with the few codes that have an exit code of their own listed below.
import { AGENT_CORE_ERRORS, type AgentCoreErrorCode } from '@junction/agent-core';
import { CODING_BUS_ERRORS, type CodingBusErrorCode } from '@junction/coding-bus';
import { CONFIG_TEMPLATES_ERRORS, type ConfigTemplatesErrorCode } from '@junction/config-templates';
import type { ErrorCodes, ErrorKind } from '@junction/errors';
import { SCHEDULE_ERRORS, type ScheduleErrorCode } from '@junction/scheduler';
import { SERVICE_ERRORS, type ServiceErrorCode } from '@junction/service-kit';
import { STORE_ERRORS, type StoreErrorCode } from '@junction/store';
import { TELEMETRY_ERRORS, type TelemetryErrorCode } from '@junction/telemetry';
import { WORKFLOW_ERRORS, type WorkflowErrorCode } from '@junction/workflows';
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

const KINDS: ErrorCodes<ExitCodeKey> = {
  ...AGENT_CORE_ERRORS,
  ...CODING_BUS_ERRORS,
  ...CONFIG_TEMPLATES_ERRORS,
  ...SCHEDULE_ERRORS,
  ...SERVICE_ERRORS,
  ...STORE_ERRORS,
  ...TELEMETRY_ERRORS,
  ...WORKFLOW_ERRORS,
  ...CLI_ERRORS,
};

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

/** The exit code of every code a command can end with. */
export const EXIT_CODES: Readonly<Record<ExitCodeKey, number>> = Object.fromEntries(
  Object.entries(KINDS).map(([code, kind]) => [
    code,
    EXIT_EXCEPTIONS[code as ExitCodeKey] ?? EXIT_BY_KIND[kind],
  ]),
) as Record<ExitCodeKey, number>;

/** Exit code for an error code; 1 for a code no package declares. */
export function exitCodeFor(code: string | undefined): number {
  return (code && EXIT_CODES[code as ExitCodeKey]) || 1;
}
