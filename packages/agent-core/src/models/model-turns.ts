import type {
  LanguageModelV3,
  LanguageModelV3GenerateResult,
  LanguageModelV3Middleware,
} from '@ai-sdk/provider';
import { wrapLanguageModel } from 'ai';
import type { Metrics, Tracer } from '@junction/telemetry';
import { llmGenerateAttributes, SPAN_LLM_GENERATE, withSpan } from '@junction/telemetry';

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
}

export interface ModelTurnHooks {
  tracer: Tracer;
  metrics?: Metrics;
  /** "provider/model", as records name it. */
  modelId: string;
  provider: string;
  now?: () => number;
  onTurn: (turn: ModelTurn) => Promise<void> | void;
}

function summarise(
  result: LanguageModelV3GenerateResult,
): Pick<ModelTurn, 'inputTokens' | 'outputTokens' | 'finishReason' | 'text' | 'toolCalls'> {
  let text = '';
  const toolCalls: Array<{ id: string; name: string }> = [];
  for (const part of result.content) {
    if (part.type === 'text') text += part.text;
    else if (part.type === 'tool-call')
      toolCalls.push({ id: part.toolCallId, name: part.toolName });
  }
  return {
    inputTokens: result.usage.inputTokens.total ?? 0,
    outputTokens: result.usage.outputTokens.total ?? 0,
    finishReason: result.finishReason.unified,
    text,
    toolCalls,
  };
}

/**
 * Wraps a model so every call is a model turn: an `llm.generate` span, the llm_* metrics,
 * and a callback with tokens and tool calls, in the order the turns happen. A failed
 * attempt (retried or not) is a span with an error and counts in llm_errors_total.
 */
export function withModelTurns(model: LanguageModelV3, hooks: ModelTurnHooks): LanguageModelV3 {
  const now = hooks.now ?? Date.now;
  let step = 0;
  const middleware: LanguageModelV3Middleware = {
    specificationVersion: 'v3',
    wrapGenerate: async ({ doGenerate }) =>
      withSpan(
        hooks.tracer,
        SPAN_LLM_GENERATE,
        llmGenerateAttributes({ model: hooks.modelId, provider: hooks.provider }),
        async (span) => {
          const started = now();
          let result: LanguageModelV3GenerateResult;
          try {
            result = await doGenerate();
          } catch (err) {
            hooks.metrics?.recordLlm({
              model: hooks.modelId,
              provider: hooks.provider,
              latencySeconds: (now() - started) / 1000,
              error: true,
            });
            throw err;
          }
          const latencyMs = now() - started;
          const turn: ModelTurn = {
            step: ++step,
            model: hooks.modelId,
            provider: hooks.provider,
            latencyMs,
            ...summarise(result),
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
          return result;
        },
      ),
  };
  return wrapLanguageModel({ model, middleware });
}
