// Errors of the MCP surface, and how any error becomes a tool error: by its code's kind
// (@junction/errors).
import type { AgentCoreErrorCode } from '@junction/agent-core';
import type { ConfigTemplatesErrorCode } from '@junction/config-templates';
import {
  codesOf,
  isJunctionError,
  errorClass,
  type ErrorCodes,
  type ErrorKind,
} from '@junction/errors';
import type { ScheduleErrorCode } from '@junction/scheduler';
import type { StoreErrorCode } from '@junction/store';
import type { WorkflowErrorCode } from '@junction/workflows';

/** Codes raised by the MCP tools themselves (domain packages bring their own), with their kinds. */
export const MCP_SERVER_ERRORS = {
  ARGUMENT_INVALID: 'invalid',
  CONFIG_NOT_FOUND: 'not_found',
  // Retrying cannot help, and its message says which server to use instead: the caller's.
  WORKFLOWS_UNAVAILABLE: 'misconfigured',
} as const satisfies ErrorCodes;

export type McpServerErrorCode = keyof typeof MCP_SERVER_ERRORS;

/** Codes raised by the MCP tools themselves. */
export const MCP_SERVER_ERROR_CODES = codesOf<McpServerErrorCode>(MCP_SERVER_ERRORS);

/** A refusal of an MCP tool: a stable code, a message that says what to do, JSON-safe details. */
export const McpServerError = errorClass<McpServerErrorCode>('McpServerError', MCP_SERVER_ERRORS);
export type McpServerError = InstanceType<typeof McpServerError>;

/**
 * Who can fix it: `caller` errors are answered as they are (the message says what to change);
 * `server` errors are logged and answered with advice to retry or look at the server logs.
 */
type Fault = 'caller' | 'server';

/** Every code a tool failure can carry: this surface's and the domain's. */
export type ToolFailureCode =
  | McpServerErrorCode
  | AgentCoreErrorCode
  | StoreErrorCode
  | ConfigTemplatesErrorCode
  | WorkflowErrorCode
  | ScheduleErrorCode;

/** The fault of each kind: the server's when it cannot answer now or failed itself. */
const FAULT_BY_KIND: Readonly<Record<ErrorKind, Fault>> = {
  invalid: 'caller',
  unauthenticated: 'caller',
  forbidden: 'caller',
  not_found: 'caller',
  conflict: 'caller',
  too_large: 'caller',
  unprocessable: 'caller',
  misconfigured: 'caller',
  unavailable: 'server',
  internal: 'server',
};

/** A failure as a tool result shows it. */
export interface ToolFailure {
  code: string;
  message: string;
  fault: Fault;
  details?: unknown;
}

/** Classifies any thrown value: known errors keep their code and message. */
export function toolFailure(err: unknown): ToolFailure {
  if (isJunctionError(err)) {
    return {
      code: err.code,
      message: err.message,
      fault: FAULT_BY_KIND[err.kind],
      details: err.details,
    };
  }
  return {
    code: 'INTERNAL',
    message: err instanceof Error ? err.message : String(err),
    fault: 'server',
  };
}
