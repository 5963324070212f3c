import type { AgentCoreErrorCode } from '@junction/agent-core';
import type { ConfigTemplatesErrorCode } from '@junction/config-templates';
import type { ScheduleErrorCode } from '@junction/scheduler';
import type { ServiceErrorCode } from '@junction/service-kit';
import type { StoreErrorCode } from '@junction/store';
import type { WorkflowErrorCode } from '@junction/workflows';
import type { CliErrorCode } from './cli-error.js';

/** Every code a command can end with: the CLI's own and those of the packages it uses. */
export type ExitCodeKey =
  | CliErrorCode
  | AgentCoreErrorCode
  | ConfigTemplatesErrorCode
  | ScheduleErrorCode
  | ServiceErrorCode
  | StoreErrorCode
  | WorkflowErrorCode;

/** The one table mapping error codes from every package to process exit codes. */
export const EXIT_CODES: Readonly<Partial<Record<ExitCodeKey, number>>> = {
  // usage and input
  INVALID_NAME: 2,
  INVALID_ARGUMENT: 2,
  // oclif's own refusals: a missing argument, an unknown flag, a bad flag value
  INVALID_USAGE: 2,
  // a mistyped command (the shell's own code for a command that is not there)
  COMMAND_NOT_FOUND: 127,
  // configuration and files
  CONFIG_INVALID: 3,
  CONFIG_UNREADABLE: 3,
  VARIABLES_INVALID: 3,
  FILE_UNREADABLE: 3,
  PROMPT_INVALID: 3,
  TEMPLATE_INVALID: 3,
  TEMPLATE_VARIABLE_MISSING: 3,
  // things that are not there, or are already there
  ENVIRONMENT_NOT_FOUND: 4,
  AGENT_NOT_FOUND: 4,
  NOT_FOUND: 4,
  ENVIRONMENT_EXISTS: 5,
  AGENT_FILE_EXISTS: 5,
  CONFLICT: 5,
  PORT_IN_USE: 5,
  LISTEN_FAILED: 1,
  // the store
  STORE_OPEN_FAILED: 6,
  STORE_UNAVAILABLE: 6,
  // models (configuration)
  MODEL_NOT_CONFIGURED: 3,
  MODEL_PROVIDER_UNKNOWN: 3,
  MODEL_API_KEY_MISSING: 3,
  MODEL_BASE_URL_MISSING: 3,
  // runs
  RUN_NOT_FOUND: 4,
  RUN_ENDED: 5,
  RUN_REQUEST_INVALID: 2,
  AGENT_AMBIGUOUS: 2,
  IDEMPOTENCY_KEY_REUSED: 5,
  // agents and tools
  AGENT_INVALID: 3,
  AGENT_EXISTS: 5,
  AGENT_IN_USE: 5,
  ENVIRONMENT_IN_USE: 5,
  TOOL_NOT_FOUND: 4,
  TOOL_AMBIGUOUS: 4,
  SUB_AGENT_NOT_FOUND: 4,
  // workflows and approvals
  WORKFLOW_INVALID: 3,
  WORKFLOW_INPUT_INVALID: 2,
  WORKFLOW_AMBIGUOUS: 2,
  WORKFLOW_NOT_FOUND: 4,
  WORKFLOW_RUN_NOT_FOUND: 4,
  APPROVAL_NOT_FOUND: 4,
  WORKFLOW_DISABLED: 5,
  WORKFLOW_RUN_ENDED: 5,
  APPROVAL_DECIDED: 5,
  APPROVAL_EXPIRED: 5,
  APPROVAL_WITHDRAWN: 5,
  APPROVER_NOT_ALLOWED: 2,
  APPROVAL_TOKEN_INVALID: 2,
  // schedules
  SCHEDULE_INVALID: 2,
  SCHEDULE_TARGET_AMBIGUOUS: 2,
  SCHEDULE_NOT_FOUND: 4,
  SCHEDULE_TARGET_NOT_FOUND: 4,
  SCHEDULER_UNAVAILABLE: 1,
  // the management platform
  MANAGEMENT_NOT_CONFIGURED: 3,
  TRACES_DISABLED: 3,
  MANAGEMENT_KEY_REFUSED: 2,
  MANAGEMENT_UNREACHABLE: 1,
};

/** Exit code for an error code; 1 for anything unlisted. */
export function exitCodeFor(code: string | undefined): number {
  return (code && EXIT_CODES[code as ExitCodeKey]) || 1;
}
