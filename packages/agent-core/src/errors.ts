/** Stable codes of every error agent-core raises. */
export const AGENT_CORE_ERROR_CODES = [
  'MCP_CONNECT_FAILED',
  'MCP_TIMEOUT',
  'MCP_SERVER_EXITED',
  'MCP_REQUEST_FAILED',
  'MCP_POOL_CLOSED',
  'ENVIRONMENT_NOT_FOUND',
  'AGENT_NOT_FOUND',
  'AGENT_AMBIGUOUS',
  'AGENT_INVALID',
  'AGENT_EXISTS',
  'AGENT_IN_USE',
  'ENVIRONMENT_IN_USE',
  'TOOL_NOT_FOUND',
  'TOOL_AMBIGUOUS',
  'SUB_AGENT_NOT_FOUND',
  'TEMPLATE_VARIABLE_MISSING',
  'MAX_STEPS_REACHED',
  'TOOL_OUTCOME_UNKNOWN',
  'TOOL_GONE',
  'RUN_NOT_FOUND',
  'RUN_ENDED',
  'RUN_REQUEST_INVALID',
  'IDEMPOTENCY_KEY_REUSED',
  'MODEL_NOT_CONFIGURED',
  'MODEL_PROVIDER_UNKNOWN',
  'MODEL_API_KEY_MISSING',
  'MODEL_BASE_URL_MISSING',
] as const;

export type AgentCoreErrorCode = (typeof AGENT_CORE_ERROR_CODES)[number];

/** An agent-core failure: a stable code, a message that says what to do, JSON-safe details. */
export class AgentCoreError extends Error {
  readonly code: AgentCoreErrorCode;
  readonly details: Record<string, unknown>;

  constructor(
    code: AgentCoreErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'AgentCoreError';
    this.code = code;
    this.details = details;
  }

  /** The JSON shape surfaces print. */
  toJSON(): { code: string; message: string; details: Record<string, unknown> } {
    return { code: this.code, message: this.message, details: this.details };
  }
}

/** True when err is an AgentCoreError (optionally with the given code). */
export function isAgentCoreError(err: unknown, code?: AgentCoreErrorCode): err is AgentCoreError {
  return err instanceof AgentCoreError && (code === undefined || err.code === code);
}
