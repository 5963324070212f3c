import {
  ROOT_CONTEXT,
  SpanStatusCode,
  context,
  createContextKey,
  isSpanContextValid,
  trace,
} from '@opentelemetry/api';
import type { Attributes, Context, Span, SpanKind, Tracer } from '@opentelemetry/api';

/** Span of one agent run (spec §6.3). */
export const SPAN_AGENT_EXECUTE = 'agent.execute';
/** Span of one model turn (spec §6.3). */
export const SPAN_LLM_GENERATE = 'llm.generate';
/** Span of one tool call (spec §6.3). */
export const SPAN_TOOL_CALL = 'tool.call';
/** Span of rendering a prompt file (the spec's "prompt-execution flow"; name chosen by Junction). */
export const SPAN_PROMPT_RENDER = 'prompt.render';
/** Span of a store operation (the spec's "database operations"; name chosen by Junction). */
export const SPAN_DB_OPERATION = 'db.operation';

/** Attribute names of the spec's spans. */
export const SPAN_ATTR = {
  AGENT_ID: 'agent.id',
  AGENT_NAME: 'agent.name',
  AGENT_ENVIRONMENT: 'agent.environment',
  TASK: 'task',
  MODEL: 'model',
  MAX_STEPS: 'max_steps',
  PROVIDER: 'provider',
  INPUT_TOKENS: 'input_tokens',
  OUTPUT_TOKENS: 'output_tokens',
  LATENCY_MS: 'latency_ms',
  TOOL_NAME: 'tool.name',
  TOOL_SERVER: 'tool.server',
  DURATION_MS: 'duration_ms',
  SUCCESS: 'success',
  /** The Junction run a span belongs to (set on every span inside a run; see withSpan's `runId`). */
  RUN_ID: 'run_id',
} as const;

/**
 * OpenTelemetry GenAI semantic-convention attributes, set beside the spec's own names so
 * Jaeger, Tempo, Langfuse and Phoenix show model and tool spans natively.
 */
export const GEN_AI_ATTR = {
  OPERATION_NAME: 'gen_ai.operation.name',
  PROVIDER_NAME: 'gen_ai.provider.name',
  /** The older name of the provider attribute; still read by several viewers. */
  SYSTEM: 'gen_ai.system',
  REQUEST_MODEL: 'gen_ai.request.model',
  AGENT_ID: 'gen_ai.agent.id',
  AGENT_NAME: 'gen_ai.agent.name',
  INPUT_TOKENS: 'gen_ai.usage.input_tokens',
  OUTPUT_TOKENS: 'gen_ai.usage.output_tokens',
  TOOL_NAME: 'gen_ai.tool.name',
  TOOL_TYPE: 'gen_ai.tool.type',
} as const;

/** `gen_ai.operation.name` values Junction uses. */
export const GEN_AI_OPERATION = {
  INVOKE_AGENT: 'invoke_agent',
  CHAT: 'chat',
  EXECUTE_TOOL: 'execute_tool',
} as const;

/** Longest `task` attribute kept; longer tasks are cut, since span attributes travel with every export. */
export const MAX_TASK_ATTRIBUTE_LENGTH = 2048;

/** Fields of an `agent.execute` span. */
export interface AgentExecuteAttributesInput {
  /** The run this span executes (attribute `run_id`). */
  runId?: number;
  agentId: number | string;
  agentName: string;
  environment?: string;
  task?: string;
  model?: string;
  maxSteps?: number;
}

/** Fields of an `llm.generate` span; token counts and latency are usually set when the call returns. */
export interface LlmGenerateAttributesInput {
  model?: string;
  provider?: string;
  inputTokens?: number;
  outputTokens?: number;
  latencyMs?: number;
}

/** Fields of a `tool.call` span; duration and success are usually set when the call returns. */
export interface ToolCallAttributesInput {
  toolName?: string;
  toolServer?: string;
  durationMs?: number;
  success?: boolean;
}

function setInt(out: Attributes, key: string, value: number | undefined): void {
  if (value !== undefined && Number.isFinite(value)) out[key] = Math.round(value);
}

function setString(out: Attributes, key: string, value: string | undefined): void {
  if (value !== undefined) out[key] = value;
}

/** Attributes of an `agent.execute` span: `agent.id` as a string, `max_steps` as an integer, `task` cut to MAX_TASK_ATTRIBUTE_LENGTH. */
export function agentExecuteAttributes(input: AgentExecuteAttributesInput): Attributes {
  const out: Attributes = {
    [SPAN_ATTR.AGENT_ID]: String(input.agentId),
    [SPAN_ATTR.AGENT_NAME]: input.agentName,
    [GEN_AI_ATTR.OPERATION_NAME]: GEN_AI_OPERATION.INVOKE_AGENT,
    [GEN_AI_ATTR.AGENT_ID]: String(input.agentId),
    [GEN_AI_ATTR.AGENT_NAME]: input.agentName,
  };
  setInt(out, SPAN_ATTR.RUN_ID, input.runId);
  setString(out, SPAN_ATTR.AGENT_ENVIRONMENT, input.environment);
  if (input.task !== undefined) {
    out[SPAN_ATTR.TASK] =
      input.task.length > MAX_TASK_ATTRIBUTE_LENGTH
        ? `${input.task.slice(0, MAX_TASK_ATTRIBUTE_LENGTH)}…`
        : input.task;
  }
  setString(out, SPAN_ATTR.MODEL, input.model);
  setString(out, GEN_AI_ATTR.REQUEST_MODEL, input.model);
  setInt(out, SPAN_ATTR.MAX_STEPS, input.maxSteps);
  return out;
}

/** Attributes of an `llm.generate` span, integers rounded, absent fields left out. */
export function llmGenerateAttributes(input: LlmGenerateAttributesInput): Attributes {
  const out: Attributes = {};
  if (input.model !== undefined || input.provider !== undefined) {
    out[GEN_AI_ATTR.OPERATION_NAME] = GEN_AI_OPERATION.CHAT;
  }
  setString(out, SPAN_ATTR.MODEL, input.model);
  setString(out, GEN_AI_ATTR.REQUEST_MODEL, input.model);
  setString(out, SPAN_ATTR.PROVIDER, input.provider);
  setString(out, GEN_AI_ATTR.PROVIDER_NAME, input.provider);
  setString(out, GEN_AI_ATTR.SYSTEM, input.provider);
  setInt(out, SPAN_ATTR.INPUT_TOKENS, input.inputTokens);
  setInt(out, GEN_AI_ATTR.INPUT_TOKENS, input.inputTokens);
  setInt(out, SPAN_ATTR.OUTPUT_TOKENS, input.outputTokens);
  setInt(out, GEN_AI_ATTR.OUTPUT_TOKENS, input.outputTokens);
  setInt(out, SPAN_ATTR.LATENCY_MS, input.latencyMs);
  return out;
}

/** Attributes of a `tool.call` span, integers rounded, absent fields left out. */
export function toolCallAttributes(input: ToolCallAttributesInput): Attributes {
  const out: Attributes = {};
  if (input.toolName !== undefined) {
    out[GEN_AI_ATTR.OPERATION_NAME] = GEN_AI_OPERATION.EXECUTE_TOOL;
    out[GEN_AI_ATTR.TOOL_NAME] = input.toolName;
    out[GEN_AI_ATTR.TOOL_TYPE] = 'function';
  }
  setString(out, SPAN_ATTR.TOOL_NAME, input.toolName);
  setString(out, SPAN_ATTR.TOOL_SERVER, input.toolServer);
  setInt(out, SPAN_ATTR.DURATION_MS, input.durationMs);
  if (input.success !== undefined) out[SPAN_ATTR.SUCCESS] = input.success;
  return out;
}

/** Options of withSpan. */
export interface WithSpanOptions {
  kind?: SpanKind;
  /**
   * A W3C `traceparent` (`00-<trace id>-<span id>-<flags>`) to start the span under, instead of
   * the active span: how a run started by a workflow step nests under that step, whichever
   * worker executes it. An invalid one is ignored.
   */
  parent?: string | null;
  /**
   * The Junction run the span's work belongs to: set as `run_id` on this span and, through the
   * context, on every span started inside it (see createTracing's run-id processor).
   */
  runId?: number;
}

const RUN_ID_KEY = createContextKey('junction.run_id');

/** The run id carried by `ctx` (set by withSpan's `runId`), if any. */
export function runIdOf(ctx: Context): number | undefined {
  const value = ctx.getValue(RUN_ID_KEY);
  return typeof value === 'number' ? value : undefined;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The W3C `traceparent` of the active span, or undefined when there is none. */
export function activeTraceParent(): string | undefined {
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (spanContext === undefined || !isSpanContextValid(spanContext)) return undefined;
  const flags = spanContext.traceFlags.toString(16).padStart(2, '0');
  return `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
}

/** True for a well-formed W3C `traceparent`. */
export function isTraceParent(value: string): boolean {
  return TRACEPARENT.test(value);
}

/** The context of a remote parent span given as a `traceparent`, or undefined. */
function parentContext(parent: string | null | undefined) {
  const m = parent ? TRACEPARENT.exec(parent) : null;
  if (m === null) return undefined;
  const spanContext = {
    traceId: m[1] as string,
    spanId: m[2] as string,
    traceFlags: parseInt(m[3] as string, 16),
    isRemote: true,
  };
  return isSpanContextValid(spanContext)
    ? trace.setSpanContext(ROOT_CONTEXT, spanContext)
    : undefined;
}

/**
 * Runs `fn` inside a new active span (so spans started within it, across `await` and timers,
 * are its children); a throw or rejection is recorded as an exception with ERROR status and
 * rethrown; the span always ends.
 */
export async function withSpan<T>(
  tracer: Tracer,
  name: string,
  attributes: Attributes,
  fn: (span: Span) => T | Promise<T>,
  options: WithSpanOptions = {},
): Promise<T> {
  let parent = parentContext(options.parent) ?? context.active();
  if (options.runId !== undefined) parent = parent.setValue(RUN_ID_KEY, options.runId);
  return tracer.startActiveSpan(
    name,
    { attributes, ...(options.kind === undefined ? {} : { kind: options.kind }) },
    parent,
    async (span): Promise<T> => {
      try {
        return await fn(span);
      } catch (error) {
        recordSpanError(span, error);
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** Records `error` on `span` as an exception event and sets ERROR status with its message. */
export function recordSpanError(span: Span, error: unknown): void {
  if (error instanceof Error) {
    span.recordException(error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
  } else {
    let message: string;
    try {
      message = typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error));
    } catch {
      message = String(error);
    }
    span.recordException(message);
    span.setStatus({ code: SpanStatusCode.ERROR, message });
  }
}

/** The trace and span ids of the active span, for log lines (`trace_id`, `span_id`); undefined outside a span. */
export function activeSpanIds(): { trace_id: string; span_id: string } | undefined {
  const spanContext = trace.getActiveSpan()?.spanContext();
  return spanContext !== undefined && isSpanContextValid(spanContext)
    ? { trace_id: spanContext.traceId, span_id: spanContext.spanId }
    : undefined;
}

/** The trace id of the active span, if any (stored on run records to find the run's trace). */
export function activeTraceId(): string | undefined {
  const spanContext = trace.getActiveSpan()?.spanContext();
  return spanContext !== undefined && isSpanContextValid(spanContext)
    ? spanContext.traceId
    : undefined;
}
