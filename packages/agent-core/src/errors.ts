import { codesOf, errorClass, type ErrorCodes } from '@junction/errors';

/** Every code agent-core raises, with its kind (who can fix it; see @junction/errors). */
export const AGENT_CORE_ERRORS = {
  MCP_CONNECT_FAILED: 'internal',
  MCP_TIMEOUT: 'internal',
  MCP_SERVER_EXITED: 'internal',
  MCP_REQUEST_FAILED: 'internal',
  MCP_POOL_CLOSED: 'internal',
  ENVIRONMENT_NOT_FOUND: 'not_found',
  AGENT_NOT_FOUND: 'not_found',
  AGENT_AMBIGUOUS: 'invalid',
  AGENT_INVALID: 'misconfigured',
  AGENT_EXISTS: 'conflict',
  AGENT_IN_USE: 'conflict',
  ENVIRONMENT_IN_USE: 'conflict',
  TOOL_NOT_FOUND: 'unprocessable',
  TOOL_AMBIGUOUS: 'unprocessable',
  SUB_AGENT_NOT_FOUND: 'unprocessable',
  TEMPLATE_VARIABLE_MISSING: 'unprocessable',
  MAX_STEPS_REACHED: 'unprocessable',
  TOOL_OUTCOME_UNKNOWN: 'unprocessable',
  TOOL_GONE: 'unprocessable',
  RUN_NOT_FOUND: 'not_found',
  RUN_ENDED: 'conflict',
  RUN_REQUEST_INVALID: 'invalid',
  IDEMPOTENCY_KEY_REUSED: 'conflict',
  MODEL_NOT_CONFIGURED: 'misconfigured',
  MODEL_PROVIDER_UNKNOWN: 'misconfigured',
  MODEL_API_KEY_MISSING: 'misconfigured',
  MODEL_BASE_URL_MISSING: 'misconfigured',
} as const satisfies ErrorCodes;

export type AgentCoreErrorCode = keyof typeof AGENT_CORE_ERRORS;

/** Stable codes of every error agent-core raises. */
export const AGENT_CORE_ERROR_CODES = codesOf<AgentCoreErrorCode>(AGENT_CORE_ERRORS);

/** An agent-core failure: a stable code, a message that says what to do, JSON-safe details. */
export const AgentCoreError = errorClass<AgentCoreErrorCode>('AgentCoreError', AGENT_CORE_ERRORS);
export type AgentCoreError = InstanceType<typeof AgentCoreError>;

/** True when err is an AgentCoreError (optionally with the given code). */
export function isAgentCoreError(err: unknown, code?: AgentCoreErrorCode): err is AgentCoreError {
  return err instanceof AgentCoreError && (code === undefined || err.code === code);
}
