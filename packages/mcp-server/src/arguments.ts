// Argument schemas shared by the tools. Reference clients send ids as strings of digits;
// numbers are accepted too, anything else is refused with a message that says what to send.
import { z } from 'zod';
import { refusingReservedKeys } from '@junction/agent-core/runs';
import { hasControlCharacter } from '@junction/config-templates';

/** Largest `limit` a list tool accepts. */
export const MAX_LIST_LIMIT = 500;

function idMessage(field: string): string {
  return `${field} must be an id: a string of digits such as "12" (see the list tools for valid ids)`;
}

/** An id argument: `"12"` or `12`, parsed to a positive whole number. */
export function idArg(field: string, description: string): z.ZodType<number, string | number> {
  const message = idMessage(field);
  return z
    .union([z.string().regex(/^\d+$/, { error: message }), z.number().int({ error: message })], {
      error: message,
    })
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(1, { error: `${field} must be 1 or more` })
        .max(Number.MAX_SAFE_INTEGER, { error: `${field} is too large to be an id` }),
    )
    .describe(description);
}

/** The `agent_id` of the tools that show or change one agent. */
export const agentIdArg = idArg(
  'agent_id',
  'Id of the agent, a string of digits from list_agents.',
);

/** A whole-number argument (`limit`, `offset`): a number or a string of digits. */
export function countArg(
  field: string,
  min: number,
  max: number,
  description: string,
): z.ZodType<number, string | number> {
  const message = `${field} must be a whole number from ${min} to ${max}`;
  return z
    .union([z.string().regex(/^\d+$/, { error: message }), z.number().int({ error: message })], {
      error: message,
    })
    .transform(Number)
    .pipe(z.number().min(min, { error: message }).max(max, { error: message }))
    .describe(description);
}

/** `limit` and `offset` of a list tool. */
export function pageArgs(defaultLimit: number): {
  limit: z.ZodOptional<z.ZodType<number, string | number>>;
  offset: z.ZodOptional<z.ZodType<number, string | number>>;
} {
  return {
    limit: countArg(
      'limit',
      1,
      MAX_LIST_LIMIT,
      `How many to return, 1 to ${MAX_LIST_LIMIT}. Default ${defaultLimit}.`,
    ).optional(),
    offset: countArg(
      'offset',
      0,
      Number.MAX_SAFE_INTEGER,
      'How many to skip, for paging. Default 0.',
    ).optional(),
  };
}

/** Longest workflow id, approval id or approver name an argument may carry. */
export const MAX_REF_LENGTH = 200;

/** A string of at most MAX_REF_LENGTH characters, not blank, without control characters. */
function refString(field: string, message: string): z.ZodString {
  return z
    .string({ error: message })
    .max(MAX_REF_LENGTH, { error: `${field} must be at most ${MAX_REF_LENGTH} characters` })
    .refine((text) => text.trim().length > 0 && !hasControlCharacter(text), { error: message });
}

/**
 * A workflow argument: the workflow's id in its file (`"incident-triage"`), or its row id from
 * list_workflows (`"3"` or `3`). Passed on as sent; the workflows package resolves it.
 */
export function workflowRefArg(
  field: string,
  description: string,
): z.ZodType<string | number, string | number> {
  const message = `${field} must be a workflow's id: the id in its file, such as "incident-triage", or its id from list_workflows`;
  return z
    .union(
      [
        refString(field, message),
        z
          .number({ error: message })
          .int({ error: message })
          .min(1, { error: `${field} must be 1 or more` })
          .max(Number.MAX_SAFE_INTEGER, { error: `${field} is too large to be an id` }),
      ],
      { error: message },
    )
    .describe(description);
}

/** A text argument naming something by a string id or a name (approval_id, approver). */
export function refArg(field: string, what: string, description: string): z.ZodString {
  return refString(field, `${field} must be ${what}`).describe(description);
}

const INPUT_MESSAGE = 'input must be an object, such as {"ticket": "T-1"}';

/**
 * A workflow run's input: any JSON object, kept as sent; the workflow's inputSchema judges it. A
 * top-level `__proto__` or `constructor` key is refused by name rather than lost (as call_agent's
 * variables).
 */
export const workflowInputArg = refusingReservedKeys(
  'input',
  'field',
  z.record(z.string(), z.unknown(), { error: INPUT_MESSAGE }),
);
