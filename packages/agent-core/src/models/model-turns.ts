import type {
  LanguageModelV3,
  LanguageModelV3GenerateResult,
  LanguageModelV3Middleware,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
} from '@ai-sdk/provider';
import { APICallError, wrapLanguageModel } from 'ai';
import { backoffDelay } from '@junction/errors';
import type { Metrics, Tracer } from '@junction/telemetry';
import { StreamedAnswer, toolCallsOf, type TurnAnswer } from '../runs/run-journal.js';
import type { Span } from '@junction/telemetry';
import {
  llmGenerateAttributes,
  recordSpanError,
  SPAN_LLM_GENERATE,
  SpanKind,
  withSpan,
} from '@junction/telemetry';

/** One model turn as the runner records it. */
export interface ModelTurn {
  /** 1-based turn number within the run. */
  step: number;
  model: string;
  provider: string;
  inputTokens: number;
  outputTokens: number;
  latencyMs: number;
  finishReason: string;
  text: string;
  toolCalls: Array<{ id: string; name: string }>;
  /** The whole answer, for the run's journal (a resumed attempt is given it again). */
  answer: TurnAnswer;
}

export interface ModelTurnHooks {
  tracer: Tracer;
  metrics?: Metrics;
  /** "provider/model", as records name it. */
  modelId: string;
  provider: string;
  now?: () => number;
  onTurn: (turn: ModelTurn) => Promise<void> | void;
  /**
   * A model call failed and the AI SDK will call again (at most `maxRetries` times a turn):
   * `attempt` is the failed call's number within the turn, `delayMs` the wait before the next.
   */
  onRetry?: (retry: ModelRetry) => void;
  /** Retries the AI SDK makes per turn (generateText's maxRetries). Default 2, as the SDK's. */
  maxRetries?: number;
  /** The text of a streamed turn as it arrives. */
  onTextDelta?: (delta: string) => void;
  /** Turns the run had before this model's first call (a resumed attempt's journaled ones). */
  stepsBefore?: number;
}

/** A failed model call that is tried again. */
export interface ModelRetry {
  attempt: number;
  delayMs: number;
  /** The provider's HTTP status, or null for a network failure. */
  status: number | null;
}

/**
 * The wait before the AI SDK's next attempt, by its own rule (ai's retry with exponential
 * backoff respecting retry headers): `retry-after-ms` or `retry-after` when under 60 s (or
 * under the backoff), else 2 s doubled per attempt. Kept here only to say it to a person.
 */
export function retryDelayMs(err: unknown, attempt: number): number {
  const backoff = backoffDelay(attempt - 1, { firstMs: 2000, maxMs: Infinity });
  const headers = APICallError.isInstance(err) ? err.responseHeaders : undefined;
  let ms: number | undefined;
  const afterMs = headers?.['retry-after-ms'];
  if (afterMs !== undefined && !Number.isNaN(parseFloat(afterMs))) ms = parseFloat(afterMs);
  const after = headers?.['retry-after'];
  if (after !== undefined && ms === undefined) {
    const seconds = parseFloat(after);
    ms = Number.isNaN(seconds) ? Date.parse(after) - Date.now() : seconds * 1000;
  }
  return ms !== undefined && !Number.isNaN(ms) && ms >= 0 && (ms < 60_000 || ms < backoff)
    ? ms
    : backoff;
}

/** True when the AI SDK tries a failed call again (a retryable provider answer). */
function retryable(err: unknown): boolean {
  return APICallError.isInstance(err) && err.isRetryable === true;
}

/** A turn's figures and text, from its whole answer. */
export function summarise(
  answer: TurnAnswer,
): Pick<
  ModelTurn,
  'inputTokens' | 'outputTokens' | 'finishReason' | 'text' | 'toolCalls' | 'answer'
> {
  let text = '';
  for (const part of answer.content) {
    if (part.type === 'text') text += part.text;
  }
  return {
    inputTokens: answer.usage.inputTokens.total ?? 0,
    outputTokens: answer.usage.outputTokens.total ?? 0,
    finishReason: answer.finishReason.unified,
    text,
    toolCalls: toolCallsOf(answer),
    answer,
  };
}

/**
 * Wraps a model so every call is a model turn: an `llm.generate` span, the llm_* metrics,
 * and a callback with tokens and tool calls, in the order the turns happen — for a generated
 * answer and a streamed one alike (a streamed turn ends when its stream does, and its text
 * reaches `onTextDelta` as it arrives). A failed attempt (retried or not) is a span with an
 * error and counts in llm_errors_total.
 */
export function withModelTurns(model: LanguageModelV3, hooks: ModelTurnHooks): LanguageModelV3 {
  const turns = new TurnRecorder(hooks);
  const middleware: LanguageModelV3Middleware = {
    specificationVersion: 'v3',
    wrapGenerate: async ({ doGenerate }) => generatedTurn(turns, doGenerate),
    wrapStream: async ({ doStream }) => streamedTurn(turns, doStream),
  };
  return wrapLanguageModel({ model, middleware });
}

/**
 * One wrapped model's count of turns and of failed calls, and what each call's end records:
 * shared by its generated and streamed calls, so turns are numbered in the order they happen.
 */
class TurnRecorder {
  readonly hooks: ModelTurnHooks;
  readonly now: () => number;
  #step: number;
  // Failed calls since the last turn that succeeded: the attempt number within a turn.
  #failures = 0;

  constructor(hooks: ModelTurnHooks) {
    this.hooks = hooks;
    this.now = hooks.now ?? Date.now;
    this.#step = hooks.stepsBefore ?? 0;
  }

  /** The attributes an `llm.generate` span starts with. */
  attrs(): ReturnType<typeof llmGenerateAttributes> {
    return llmGenerateAttributes({ model: this.hooks.modelId, provider: this.hooks.provider });
  }

  /** A call that failed: metrics, and the retry it leads to, if any. */
  failed(err: unknown, started: number): void {
    const hooks = this.hooks;
    hooks.metrics?.recordLlm({
      model: hooks.modelId,
      provider: hooks.provider,
      latencySeconds: (this.now() - started) / 1000,
      error: true,
    });
    this.#failures += 1;
    if (retryable(err) && this.#failures <= (hooks.maxRetries ?? 2)) {
      hooks.onRetry?.({
        attempt: this.#failures,
        delayMs: retryDelayMs(err, this.#failures),
        status: APICallError.isInstance(err) ? (err.statusCode ?? null) : null,
      });
    } else {
      this.#failures = 0;
    }
  }

  /** A call that answered: the turn, recorded on `span` and in the metrics, then reported. */
  async answered(
    span: Span,
    started: number,
    summary: ReturnType<typeof summarise>,
  ): Promise<void> {
    const hooks = this.hooks;
    this.#failures = 0;
    const latencyMs = this.now() - started;
    const turn: ModelTurn = {
      step: ++this.#step,
      model: hooks.modelId,
      provider: hooks.provider,
      latencyMs,
      ...summary,
    };
    span.setAttributes(
      llmGenerateAttributes({
        model: hooks.modelId,
        provider: hooks.provider,
        inputTokens: turn.inputTokens,
        outputTokens: turn.outputTokens,
        latencyMs,
      }),
    );
    hooks.metrics?.recordLlm({
      model: hooks.modelId,
      provider: hooks.provider,
      inputTokens: turn.inputTokens,
      outputTokens: turn.outputTokens,
      latencySeconds: latencyMs / 1000,
    });
    await hooks.onTurn(turn);
  }
}

/** A generated turn: the call inside its span, recorded when it answers or fails. */
async function generatedTurn(
  turns: TurnRecorder,
  doGenerate: () => PromiseLike<LanguageModelV3GenerateResult>,
): Promise<LanguageModelV3GenerateResult> {
  return withSpan(
    turns.hooks.tracer,
    SPAN_LLM_GENERATE,
    turns.attrs(),
    async (span) => {
      const started = turns.now();
      let result: LanguageModelV3GenerateResult;
      try {
        result = await doGenerate();
      } catch (err) {
        turns.failed(err, started);
        throw err;
      }
      await turns.answered(
        span,
        started,
        summarise({
          content: result.content,
          finishReason: result.finishReason,
          usage: result.usage,
        }),
      );
      return result;
    },
    // A call out to the model provider: CLIENT, as the conventions say.
    { kind: SpanKind.CLIENT },
  );
}

/** A streamed turn: the span opens with the call and ends with its stream (see watchedStream). */
async function streamedTurn(
  turns: TurnRecorder,
  doStream: () => PromiseLike<LanguageModelV3StreamResult>,
): Promise<LanguageModelV3StreamResult> {
  // The span lasts as long as the stream, so it is ended by hand, not by withSpan.
  const span = turns.hooks.tracer.startSpan(SPAN_LLM_GENERATE, {
    attributes: turns.attrs(),
    kind: SpanKind.CLIENT,
  });
  const started = turns.now();
  let result: LanguageModelV3StreamResult;
  try {
    result = await doStream();
  } catch (err) {
    turns.failed(err, started);
    recordSpanError(span, err);
    span.end();
    throw err;
  }
  return { ...result, stream: watchedStream(turns, span, started, result.stream) };
}

/**
 * The stream passed on part by part, with its text told as it arrives, the turn recorded at its
 * finish, and a failed or unfinished stream recorded as a failed call when it ends.
 */
function watchedStream(
  turns: TurnRecorder,
  span: Span,
  started: number,
  stream: ReadableStream<LanguageModelV3StreamPart>,
): ReadableStream<LanguageModelV3StreamPart> {
  const answer = new StreamedAnswer();
  let finish: Extract<LanguageModelV3StreamPart, { type: 'finish' }> | undefined;
  let error: unknown;
  return stream.pipeThrough(
    new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
      async transform(part, controller) {
        answer.add(part);
        if (part.type === 'text-delta') {
          turns.hooks.onTextDelta?.(part.delta);
        } else if (part.type === 'finish') {
          finish = part;
          // The turn is reported (and journaled) before the finish reaches the AI SDK, which
          // starts the turn's tool calls once it sees it.
          if (error === undefined)
            await turns.answered(span, started, summarise(answer.answer(part)));
        } else if (part.type === 'error') {
          error = part.error;
        }
        controller.enqueue(part);
      },
      flush() {
        try {
          if (!finish || error !== undefined) {
            turns.failed(error, started);
            recordSpanError(span, error ?? new Error('the stream ended without finishing'));
          }
        } finally {
          span.end();
        }
      },
    }),
  );
}
