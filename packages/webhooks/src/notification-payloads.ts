// The bodies of the alert events POSTed to notifications.webhook_url. The spec leaves them open;
// these shapes are Junction's contract (README "Payloads"), written as zod schemas so receivers
// and tests can check them and the TypeScript types cannot drift.
import { z } from 'zod';
import { runDurationMs, type Run } from '@junction/store';

/** Longest final_response carried in an event; longer answers are cut and marked truncated. */
export const MAX_FINAL_RESPONSE_CHARS = 4000;

const isoTime = z.iso.datetime();

const serviceSchema = z.object({ name: z.literal('junction'), version: z.string() });

const agentRefSchema = z.object({
  id: z.number().int().nullable(),
  name: z.string(),
  environment: z.string().nullable(),
});

/** agent.completed / agent.failed / agent.timeout. */
export const agentEventPayloadSchema = z.object({
  event: z.enum(['agent.completed', 'agent.failed', 'agent.timeout']),
  occurred_at: isoTime,
  run_id: z.number().int(),
  agent: agentRefSchema,
  status: z.enum(['completed', 'error', 'timeout', 'cancelled']),
  source: z.string(),
  steps_taken: z.number().int(),
  error: z.string().nullable(),
  final_response: z.string().nullable(),
  final_response_truncated: z.boolean(),
  duration_ms: z.number().int().nullable(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  service: serviceSchema,
});

/** The body of an agent.* event. */
export type AgentEventPayload = z.infer<typeof agentEventPayloadSchema>;

/** scheduler.error. */
export const schedulerErrorPayloadSchema = z.object({
  event: z.literal('scheduler.error'),
  occurred_at: isoTime,
  error: z.string(),
  agent: agentRefSchema.nullable(),
  schedule: z.object({ id: z.number().int().nullable(), cron: z.string().nullable() }).nullable(),
  service: serviceSchema,
});

/** The body of a scheduler.error event. */
export type SchedulerErrorPayload = z.infer<typeof schedulerErrorPayloadSchema>;

/** The alert event of a finished run: completed → agent.completed; error and cancelled → agent.failed; timeout → agent.timeout. */
export function runEventOf(run: Pick<Run, 'status'>): AgentEventPayload['event'] | undefined {
  switch (run.status) {
    case 'completed':
      return 'agent.completed';
    case 'error':
    case 'cancelled':
      return 'agent.failed';
    case 'timeout':
      return 'agent.timeout';
    default:
      return undefined;
  }
}

/** The event body of a finished run; undefined while it is still queued or running. */
export function agentEventPayload(
  run: Run,
  context: { environment: string | null; version: string; now: () => Date },
): AgentEventPayload | undefined {
  const event = runEventOf(run);
  if (event === undefined) return undefined;
  const answer = run.finalResponse;
  const truncated = answer !== null && answer.length > MAX_FINAL_RESPONSE_CHARS;
  return {
    event,
    occurred_at: (run.completedAt ?? context.now()).toISOString(),
    run_id: run.id,
    agent: { id: run.agentId, name: run.agentName, environment: context.environment },
    status: run.status as AgentEventPayload['status'],
    source: run.source,
    steps_taken: run.stepsTaken,
    error: run.error,
    final_response: truncated ? answer.slice(0, MAX_FINAL_RESPONSE_CHARS) : answer,
    final_response_truncated: truncated,
    duration_ms: runDurationMs(run),
    input_tokens: run.inputTokens,
    output_tokens: run.outputTokens,
    service: { name: 'junction', version: context.version },
  };
}
