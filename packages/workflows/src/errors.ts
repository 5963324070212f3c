import { codesOf, errorClass, type ErrorCodes } from '@junction/errors';

/** Every code the workflows package raises, with its kind (see @junction/errors). */
export const WORKFLOW_ERRORS = {
  WORKFLOW_INVALID: 'invalid',
  WORKFLOW_NOT_FOUND: 'not_found',
  // Two workflows of that name: say which (409, as the same name twice).
  WORKFLOW_AMBIGUOUS: 'conflict',
  WORKFLOW_DISABLED: 'conflict',
  WORKFLOW_INPUT_INVALID: 'invalid',
  WORKFLOW_RUN_NOT_FOUND: 'not_found',
  WORKFLOW_RUN_ENDED: 'conflict',
  APPROVAL_NOT_FOUND: 'not_found',
  APPROVAL_DECIDED: 'conflict',
  APPROVAL_EXPIRED: 'conflict',
  APPROVAL_WITHDRAWN: 'conflict',
  APPROVER_NOT_ALLOWED: 'forbidden',
  APPROVAL_TOKEN_INVALID: 'forbidden',
} as const satisfies ErrorCodes;

export type WorkflowErrorCode = keyof typeof WORKFLOW_ERRORS;

/** Stable codes of every error the workflows package raises. */
export const WORKFLOW_ERROR_CODES = codesOf<WorkflowErrorCode>(WORKFLOW_ERRORS);

/** A workflows failure: a stable code, a message that says what to do, JSON-safe details. */
export const WorkflowError = errorClass<WorkflowErrorCode>('WorkflowError', WORKFLOW_ERRORS);
export type WorkflowError = InstanceType<typeof WorkflowError>;

/** True when err is a WorkflowError (optionally with the given code). */
export function isWorkflowError(err: unknown, code?: WorkflowErrorCode): err is WorkflowError {
  return err instanceof WorkflowError && (code === undefined || err.code === code);
}
