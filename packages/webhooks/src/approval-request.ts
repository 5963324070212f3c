// The bodies of POST /workflow-approvals/:approval_id/approve and …/reject, as JSON or as the
// approval page's form sends them; checked with zod so the check and the type agree.
import { z } from 'zod';
import { hasControlCharacter } from '@junction/config-templates';
import { WebhookError, type JsonValue } from './errors.js';

/** Longest comment, reason or approver name accepted, in characters. */
export const MAX_APPROVAL_TEXT_CHARS = 2000;

function text(field: string): z.ZodString {
  return z.string({ error: `${field} must be a string` }).max(MAX_APPROVAL_TEXT_CHARS, {
    error: `${field} must be at most ${MAX_APPROVAL_TEXT_CHARS} characters`,
  });
}

// A name with a line break or an escape code would forge audit and log lines.
const approver = text('approver').refine((value) => !hasControlCharacter(value), {
  error: 'approver must not contain control characters (line breaks, tabs, escapes)',
});

/** POST …/approve: an optional comment and who approves. Other fields are ignored. */
export const approveRequestSchema = z.object(
  { comment: text('comment').optional(), approver: approver.optional() },
  { error: 'The body must be a JSON object: {"comment": "<optional>", "approver": "<optional>"}' },
);

/**
 * POST …/reject: an optional reason and who rejects. `comment` is another name for `reason`:
 * the approval page has one text box for both buttons.
 */
export const rejectRequestSchema = z
  .object(
    {
      reason: text('reason').optional(),
      comment: text('comment').optional(),
      approver: approver.optional(),
    },
    { error: 'The body must be a JSON object: {"reason": "<optional>", "approver": "<optional>"}' },
  )
  .superRefine((body, ctx) => {
    if (hasText(body.reason) && hasText(body.comment) && body.reason !== body.comment) {
      ctx.addIssue({
        code: 'custom',
        path: ['comment'],
        message: 'send the reason once: reason and comment are the same field here',
      });
    }
  });

/** A checked decision: what `WorkflowDoor.decide` is given besides the decision itself. */
export interface ApprovalRequest {
  /** Trimmed; undefined when absent or blank. */
  approver?: string;
  /** The comment or reason as sent; undefined when absent or blank. */
  comment?: string;
}

function hasText(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== '';
}

/**
 * Checks the body of an approve or reject request (undefined: no body); INVALID_REQUEST naming
 * every wrong field otherwise. Blank values count as absent, as an empty form field is sent.
 */
export function parseApprovalRequest(
  decision: 'approved' | 'rejected',
  body: unknown,
): ApprovalRequest {
  const parsed =
    decision === 'approved'
      ? approveRequestSchema.safeParse(body ?? {})
      : rejectRequestSchema.safeParse(body ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => ({
      field: issue.path.map(String).join('.'),
      message: issue.message,
    }));
    const details: Record<string, JsonValue> = {
      problems: problems.map((p) => ({ field: p.field, message: p.message })),
    };
    if (problems[0]?.field) details.field = problems[0].field;
    throw new WebhookError(
      'INVALID_REQUEST',
      `Invalid request body: ${problems.map((p) => p.message).join('; ')}.`,
      details,
    );
  }
  const data: { comment?: string; reason?: string; approver?: string } = parsed.data;
  const comment = [data.reason, data.comment].find(hasText);
  return {
    ...(hasText(data.approver) ? { approver: data.approver.trim() } : {}),
    ...(comment !== undefined ? { comment } : {}),
  };
}
