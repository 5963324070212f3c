// The run journal: what a run's events keep (their `journal`) so that another attempt of the
// run — after a crash, a lost lease or a graceful stop — goes on from its last finished step.
// A resumed attempt runs the same loop from the start; its model answers the journaled turns
// from the journal (the provider is not asked again) and its tools answer the journaled calls
// with their recorded results (nothing is called again). See docs/runs.md.
import type {
  LanguageModelV3,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3GenerateResult,
  LanguageModelV3Middleware,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
  SharedV3ProviderMetadata,
} from '@ai-sdk/provider';
import { wrapLanguageModel } from 'ai';
import type { JournalEntry } from '@junction/store';
import type { Redactor } from '@junction/telemetry';

/** What a model turn's event keeps for another attempt: the model's whole answer. */
export interface TurnAnswer {
  content: LanguageModelV3Content[];
  finishReason: LanguageModelV3FinishReason;
  usage: LanguageModelV3Usage;
  /**
   * Ids of its tool calls whose arguments held a secret, kept as [REDACTED] in the journal (set
   * when the answer is journaled): such a call is never made again from the journal.
   */
  redactedCalls?: string[];
}

/** What a tool call's event keeps for another attempt: the call and its whole result. */
export interface ToolOutcome {
  /** The model's id of the call (the same in every attempt: its turn is answered again). */
  id: string;
  /** The turn that asked for it: some providers give the same ids in every turn. */
  step: number;
  text: string;
  /** Set when the call failed: the model was given this error instead of a result. */
  error?: string;
}

/** A tool call a journaled turn asked for: where it is in the run. */
export interface JournaledCall {
  step: number;
  /** Its place among its turn's tool calls, from 0. */
  index: number;
  tool: string;
  /**
   * Its arguments held a secret, which the journal keeps as [REDACTED]: the call can be given
   * its recorded result, but never made again from the journal.
   */
  redacted: boolean;
}

/** A run's journal, read back for a resumed attempt. */
export interface RunJournal {
  turns: TurnAnswer[];
  /** Finished tool calls, by `callKey`. */
  outcomes: Map<string, ToolOutcome>;
  /** Every tool call the journaled turns asked for, by `callKey`. */
  calls: Map<string, JournaledCall>;
}

/** A call's key in a journal: its turn and its id (ids repeat across turns with some providers). */
export function callKey(step: number, id: string): string {
  return `${step}:${id}`;
}

/** The events that are journal entries, and the key of the entry in each. */
export const JOURNAL_EVENT_TYPES = { turn: 'model_turn', toolCall: 'tool_call' } as const;

/** An empty journal: a run's first attempt. */
export function emptyJournal(): RunJournal {
  return { turns: [], outcomes: new Map(), calls: new Map() };
}

/** The tool calls of a turn's answer, in order. */
export function toolCallsOf(answer: TurnAnswer): Array<{ id: string; name: string }> {
  const calls: Array<{ id: string; name: string }> = [];
  for (const part of answer.content) {
    if (part.type === 'tool-call') calls.push({ id: part.toolCallId, name: part.toolName });
  }
  return calls;
}

/** Adds a turn's tool calls to `calls` (step is the turn's number, from 1). */
export function noteCalls(
  calls: Map<string, JournaledCall>,
  step: number,
  answer: TurnAnswer,
): void {
  toolCallsOf(answer).forEach((call, index) =>
    calls.set(callKey(step, call.id), {
      step,
      index,
      tool: call.name,
      redacted: answer.redactedCalls?.includes(call.id) ?? false,
    }),
  );
}

/**
 * The answer of a turn with secrets taken out, as the journal keeps it; the calls whose
 * arguments lost a secret are named (`redactedCalls`).
 */
export function redactedAnswer(answer: TurnAnswer, redactor: Redactor): TurnAnswer {
  const redactedCalls: string[] = [];
  const content = answer.content.map((part) => {
    if (part.type === 'text' || part.type === 'reasoning')
      return { ...part, text: redactor.text(part.text) };
    if (part.type !== 'tool-call') return part;
    const input = redactor.text(part.input);
    if (input !== part.input) redactedCalls.push(part.toolCallId);
    return { ...part, input };
  });
  return { ...answer, content, ...(redactedCalls.length > 0 ? { redactedCalls } : {}) };
}

/** Reads a run's journal entries (its events' journals, in order). */
export function readJournal(entries: readonly JournalEntry[]): RunJournal {
  const journal = emptyJournal();
  for (const entry of entries) {
    if (entry.type === JOURNAL_EVENT_TYPES.turn) {
      const answer = entry.journal as TurnAnswer;
      journal.turns.push(answer);
      noteCalls(journal.calls, journal.turns.length, answer);
    } else if (entry.type === JOURNAL_EVENT_TYPES.toolCall) {
      const outcome = entry.journal as ToolOutcome;
      journal.outcomes.set(callKey(outcome.step, outcome.id), outcome);
    }
  }
  return journal;
}

/** The stable key of a tool call, the same in every attempt: run, step, place in the step. */
export function idempotencyKey(runId: number, call: Pick<JournaledCall, 'step' | 'index'>): string {
  return `junction:run-${runId}:step-${call.step}:call-${call.index}`;
}

/** The name tool servers read the idempotency key under, in a tools/call request's `_meta`. */
export const IDEMPOTENCY_META_KEY = 'junction/idempotency-key';

/**
 * The answer a streamed turn gave, put together from its parts as they pass: its text and
 * reasoning (joined per part), its tool calls, its finish.
 */
export class StreamedAnswer {
  readonly #content: LanguageModelV3Content[] = [];
  readonly #open = new Map<
    string,
    { type: 'text' | 'reasoning'; text: string; providerMetadata?: SharedV3ProviderMetadata }
  >();

  /** Takes one part of the stream. */
  add(part: LanguageModelV3StreamPart): void {
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start': {
        const entry = {
          type: part.type === 'text-start' ? 'text' : 'reasoning',
          text: '',
        } as const;
        const open = { ...entry };
        this.#open.set(`${entry.type}:${part.id}`, open);
        this.#content.push(open as LanguageModelV3Content);
        break;
      }
      case 'text-delta':
      case 'reasoning-delta': {
        const kind: 'text' | 'reasoning' = part.type === 'text-delta' ? 'text' : 'reasoning';
        const open = this.#open.get(`${kind}:${part.id}`);
        if (open) open.text += part.delta;
        else {
          const added = { type: kind, text: part.delta };
          this.#open.set(`${kind}:${part.id}`, added);
          this.#content.push(added as LanguageModelV3Content);
        }
        break;
      }
      case 'text-end':
      case 'reasoning-end': {
        // A provider's signature of the part (a thinking block's) comes with its end.
        const kind: 'text' | 'reasoning' = part.type === 'text-end' ? 'text' : 'reasoning';
        const open = this.#open.get(`${kind}:${part.id}`);
        if (open && part.providerMetadata) open.providerMetadata = part.providerMetadata;
        break;
      }
      case 'tool-call':
        // As the provider gave it, its metadata (a thought signature) included.
        this.#content.push({ ...part });
        break;
      default:
        break;
    }
  }

  /** The answer, once the stream finished with `finish`. */
  answer(finish: {
    finishReason: LanguageModelV3FinishReason;
    usage: LanguageModelV3Usage;
  }): TurnAnswer {
    return {
      content: this.#content.map((part) => ({ ...part })),
      finishReason: finish.finishReason,
      usage: finish.usage,
    };
  }
}

/** The parts of a stream that says `answer` again. */
function streamParts(answer: TurnAnswer): LanguageModelV3StreamPart[] {
  const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
  answer.content.forEach((part, i) => {
    const id = `journal-${i}`;
    const meta =
      'providerMetadata' in part && part.providerMetadata
        ? { providerMetadata: part.providerMetadata }
        : {};
    if (part.type === 'text') {
      parts.push({ type: 'text-start', id });
      parts.push({ type: 'text-delta', id, delta: part.text });
      parts.push({ type: 'text-end', id, ...meta });
    } else if (part.type === 'reasoning') {
      parts.push({ type: 'reasoning-start', id });
      parts.push({ type: 'reasoning-delta', id, delta: part.text });
      parts.push({ type: 'reasoning-end', id, ...meta });
    } else if (part.type === 'tool-call') {
      parts.push(part);
    }
  });
  parts.push({ type: 'finish', finishReason: answer.finishReason, usage: answer.usage });
  return parts;
}

export interface ReplayHooks {
  /** Told of each turn answered from the journal (its number, from 1), before it is given. */
  onReplayed(step: number, answer: TurnAnswer): void;
  /** Awaited before each call that goes to the model: the step boundary (see AgentRunner). */
  beforeLive(): Promise<void>;
}

/**
 * `model`, answering its first calls from the journal's turns: the provider is not asked again
 * for a turn that finished in an earlier attempt. The calls after those go to `model`, each
 * after `beforeLive`. A replayed turn makes no span, metric or event: they were made when it
 * was answered.
 */
export function replayingModel(
  model: LanguageModelV3,
  turns: readonly TurnAnswer[],
  hooks: ReplayHooks,
): LanguageModelV3 {
  let calls = 0;
  /** The journaled answer of the next call, or undefined once the journal is used up. */
  const next = (): TurnAnswer | undefined => {
    const answer = turns[calls];
    calls += 1;
    if (answer) hooks.onReplayed(calls, answer);
    return answer;
  };
  const middleware: LanguageModelV3Middleware = {
    specificationVersion: 'v3',
    wrapGenerate: async ({ doGenerate }) => {
      const answer = next();
      if (!answer) {
        await hooks.beforeLive();
        return doGenerate();
      }
      const result: LanguageModelV3GenerateResult = {
        content: answer.content,
        finishReason: answer.finishReason,
        usage: answer.usage,
        warnings: [],
      };
      return result;
    },
    wrapStream: async ({ doStream }) => {
      const answer = next();
      if (!answer) {
        await hooks.beforeLive();
        return doStream();
      }
      const parts = streamParts(answer);
      return {
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
  return wrapLanguageModel({ model, middleware });
}
