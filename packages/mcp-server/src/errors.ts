// Errors of the MCP surface and the one table that turns any domain error into a tool error.
import { isAgentCoreError, type AgentCoreErrorCode } from '@junction/agent-core';
import { isConfigTemplatesError, type ConfigTemplatesErrorCode } from '@junction/config-templates';
import { isScheduleError, type ScheduleErrorCode } from '@junction/scheduler';
import { isStoreError, type StoreErrorCode } from '@junction/store';
import { isWorkflowError, type WorkflowErrorCode } from '@junction/workflows';

/** Codes raised by the MCP tools themselves (domain packages bring their own). */
export const MCP_SERVER_ERROR_CODES = [
  'ARGUMENT_INVALID',
  'CONFIG_NOT_FOUND',
  'WORKFLOWS_UNAVAILABLE',
] as const;

export type McpServerErrorCode = (typeof MCP_SERVER_ERROR_CODES)[number];

/** A refusal of an MCP tool: a stable code, a message that says what to do, JSON-safe details. */
export class McpServerError extends Error {
  readonly code: McpServerErrorCode;
  readonly details: Record<string, unknown>;

  constructor(
    code: McpServerErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'McpServerError';
    this.code = code;
    this.details = details;
  }
}

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

/**
 * Domain codes that are the server's trouble, not the caller's; every other code is the
 * caller's. WORKFLOWS_UNAVAILABLE stays the caller's: retrying cannot help, and its message
 * says which server to use instead.
 */
const SERVER_FAULTS: ReadonlySet<ToolFailureCode> = new Set<ToolFailureCode>([
  // @junction/store
  'STORE_OPEN_FAILED',
  'STORE_MIGRATION_FAILED',
  'STORE_CLOSED',
  'STORE_BUSY',
  'STORE_UNAVAILABLE',
  'STORE_QUERY_FAILED',
  // @junction/agent-core
  'MCP_POOL_CLOSED',
  // @junction/config-templates
  'CONFIG_UNREADABLE',
  'FILE_UNREADABLE',
]);

/** A failure as a tool result shows it. */
export interface ToolFailure {
  code: string;
  message: string;
  fault: Fault;
  details?: unknown;
}

/** Classifies any thrown value: known domain errors keep their code and message. */
export function toolFailure(err: unknown): ToolFailure {
  if (
    err instanceof McpServerError ||
    isAgentCoreError(err) ||
    isStoreError(err) ||
    isConfigTemplatesError(err) ||
    isWorkflowError(err) ||
    isScheduleError(err)
  ) {
    return {
      code: err.code,
      message: err.message,
      fault: SERVER_FAULTS.has(err.code as ToolFailureCode) ? 'server' : 'caller',
      details: err.details,
    };
  }
  return {
    code: 'INTERNAL',
    message: err instanceof Error ? err.message : String(err),
    fault: 'server',
  };
}
