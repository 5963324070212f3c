/** Stable codes of every error the workflows package raises. */
export const WORKFLOW_ERROR_CODES = [
  'WORKFLOW_INVALID',
  'WORKFLOW_NOT_FOUND',
  'WORKFLOW_AMBIGUOUS',
  'WORKFLOW_DISABLED',
  'WORKFLOW_INPUT_INVALID',
  'WORKFLOW_RUN_NOT_FOUND',
  'WORKFLOW_RUN_ENDED',
  'APPROVAL_NOT_FOUND',
  'APPROVAL_DECIDED',
  'APPROVAL_EXPIRED',
  'APPROVAL_WITHDRAWN',
  'APPROVER_NOT_ALLOWED',
  'APPROVAL_TOKEN_INVALID',
] as const;

export type WorkflowErrorCode = (typeof WORKFLOW_ERROR_CODES)[number];

/** A workflows failure: a stable code, a message that says what to do, JSON-safe details. */
export class WorkflowError extends Error {
  readonly code: WorkflowErrorCode;
  readonly details: Record<string, unknown>;

  constructor(
    code: WorkflowErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'WorkflowError';
    this.code = code;
    this.details = details;
  }

  toJSON(): { code: string; message: string; details: Record<string, unknown> } {
    return { code: this.code, message: this.message, details: this.details };
  }
}

/** True when err is a WorkflowError (optionally with the given code). */
export function isWorkflowError(err: unknown, code?: WorkflowErrorCode): err is WorkflowError {
  return err instanceof WorkflowError && (code === undefined || err.code === code);
}
