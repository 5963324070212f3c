// Argument schemas shared by the tools. Reference clients send ids as strings of digits;
// numbers are accepted too, anything else is refused with a message that says what to send.
import { z } from 'zod';

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
