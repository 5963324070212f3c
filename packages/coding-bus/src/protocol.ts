// The messages of the coding bus, as the published opencode plugin for the reference service
// speaks them (so that plugin works against Junction with only its subjects set): a task on
// the task subject, progress events on `<stream>.<taskID>`, one result on `<result>.<taskID>`.
// Incoming messages are checked; one that does not fit is dropped and logged, never trusted.
import { z } from 'zod';

/** A coding task, as published on the task subject. */
export interface CodingTask {
  taskID: string;
  session: { name: string; continue?: boolean };
  workspace: {
    name: string;
    git?: {
      url: string;
      branch?: string;
      ref?: string;
      /** A token for https clones; prefer `tokenFromKV`, which keeps it out of the message. */
      token?: string;
      tokenFromKV?: string;
      pull?: boolean;
    };
  };
  prompt: string;
  agent?: string;
  model?: { providerID: string; modelID: string };
  /** Milliseconds the backend may spend on it. */
  timeout?: number;
  callback: { streamSubject: string; resultSubject: string };
}

export const STREAM_EVENT_TYPES = [
  'session_created',
  'session_reused',
  'workspace_created',
  'workspace_reused',
  'git_clone',
  'git_pull',
  'git_checkout',
  'prompt_sent',
  'text',
  'thinking',
  'tool_start',
  'tool_end',
  'error',
] as const;

const streamEventSchema = z.object({
  taskID: z.string(),
  seq: z.number().int().nonnegative(),
  timestamp: z.string(),
  type: z.enum(STREAM_EVENT_TYPES),
  content: z.string().optional(),
  tool: z
    .object({
      name: z.string(),
      callID: z.string(),
      args: z.record(z.string(), z.unknown()).optional(),
      output: z.string().optional(),
      duration: z.number().optional(),
    })
    .optional(),
  git: z
    .object({
      url: z.string().optional(),
      branch: z.string().optional(),
      commit: z.string().optional(),
    })
    .optional(),
  session: z.object({ name: z.string(), opencodeID: z.string() }).optional(),
});

/** A progress event of a task. */
export type CodingStreamEvent = z.infer<typeof streamEventSchema>;

export const RESULT_STATUSES = ['completed', 'error', 'timeout', 'cancelled'] as const;

const resultSchema = z.object({
  taskID: z.string(),
  status: z.enum(RESULT_STATUSES),
  result: z.string().optional(),
  error: z.string().optional(),
  errorType: z.string().optional(),
  session: z.object({ name: z.string(), opencodeID: z.string(), messageCount: z.number() }),
  workspace: z.object({
    name: z.string(),
    path: z.string(),
    git: z.object({ branch: z.string(), commit: z.string(), dirty: z.boolean() }).optional(),
  }),
  metrics: z.object({
    duration: z.number(),
    promptTokens: z.number().optional(),
    completionTokens: z.number().optional(),
    toolCalls: z.number(),
    streamEvents: z.number().optional(),
  }),
});

/** The one result of a task. */
export type CodingResult = z.infer<typeof resultSchema>;

/** A stream event of `taskID` from `data`, or why it is not one. */
export function parseStreamEvent(
  data: unknown,
  taskID: string,
): { ok: true; event: CodingStreamEvent } | { ok: false; reason: string } {
  const parsed = streamEventSchema.safeParse(data);
  if (!parsed.success) return { ok: false, reason: firstIssue(parsed.error) };
  if (parsed.data.taskID !== taskID)
    return { ok: false, reason: `it is for task ${parsed.data.taskID}` };
  return { ok: true, event: parsed.data };
}

/** The result of `taskID` from `data`, or why it is not one. */
export function parseResult(
  data: unknown,
  taskID: string,
): { ok: true; result: CodingResult } | { ok: false; reason: string } {
  const parsed = resultSchema.safeParse(data);
  if (!parsed.success) return { ok: false, reason: firstIssue(parsed.error) };
  if (parsed.data.taskID !== taskID)
    return { ok: false, reason: `it is for task ${parsed.data.taskID}` };
  return { ok: true, result: parsed.data };
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || 'message'}: ${issue.message}` : 'not valid';
}
