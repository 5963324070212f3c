// The exit code a command ends with for an error code, as a test knows it from the code alone:
// the code's kind read from the tables of every package the CLI uses (a command reads the kind
// from the error itself; see src/exit-codes.ts).
import { AGENT_CORE_ERRORS } from '@junction/agent-core';
import { CODING_BUS_ERRORS } from '@junction/coding-bus';
import { CONFIG_TEMPLATES_ERRORS } from '@junction/config-templates';
import type { ErrorCodes } from '@junction/errors';
import { MANAGEMENT_CLIENT_ERRORS } from '@junction/management-client';
import { SCHEDULE_ERRORS } from '@junction/scheduler';
import { SERVICE_ERRORS } from '@junction/service-kit';
import { STORE_ERRORS } from '@junction/store';
import { TELEMETRY_ERRORS } from '@junction/telemetry';
import { WORKFLOW_ERRORS } from '@junction/workflows';
import { CLI_ERRORS } from '../src/cli-error.js';
import { exitCodeFor } from '../src/exit-codes.js';

/** Every code a command can end with, and its kind. */
export const KINDS: ErrorCodes = {
  ...AGENT_CORE_ERRORS,
  ...CODING_BUS_ERRORS,
  ...CONFIG_TEMPLATES_ERRORS,
  ...MANAGEMENT_CLIENT_ERRORS,
  ...SCHEDULE_ERRORS,
  ...SERVICE_ERRORS,
  ...STORE_ERRORS,
  ...TELEMETRY_ERRORS,
  ...WORKFLOW_ERRORS,
  ...CLI_ERRORS,
};

/** The exit code of an error with `code`. */
export function exitCodeOf(code: string): number {
  return exitCodeFor(code, KINDS[code]);
}
