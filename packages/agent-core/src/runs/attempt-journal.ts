// One attempt's side of the run journal: it writes the journal at the step boundaries (before a
// step's tool calls leave, fenced by the run's lease; before the model is asked again) and
// decides, for a resumed attempt, what each tool call the model asks for becomes: its recorded
// result, a new call, or — when its outcome is unknown — what the operator's rule says.
import type { PinnedStart, ToolAnnotations } from '@junction/store';
import type { Redactor } from '@junction/telemetry';
import { AgentCoreError } from '../errors.js';
import {
  callKey,
  idempotencyKey,
  noteCalls,
  type JournaledCall,
  type RunJournal,
  type ToolOutcome,
  type TurnAnswer,
} from './run-journal.js';
import type { RunRecorder } from './run-recorder.js';

/** What a resumed run does with a call whose outcome is unknown (`runs.on_unknown_outcome`). */
export type UnknownOutcomeAction = 'error' | 'retry' | 'skip';

/** How calls of one tool are resumed: whether repeating it is safe, and what to do if not. */
export interface ToolResumePolicy {
  safe: boolean;
  action: UnknownOutcomeAction;
}

/** One rule of `runs.tools` (config): which calls it is for, and how they are resumed. */
export interface ToolRule {
  match: readonly string[];
  environments?: readonly string[] | undefined;
  agents?: readonly string[] | undefined;
  retry?: 'safe' | undefined;
  on_unknown_outcome?: UnknownOutcomeAction | undefined;
}

/** The operator's settings for resumed runs (`runs.on_unknown_outcome`, `runs.tools`). */
export interface ResumeSettings {
  onUnknownOutcome?: UnknownOutcomeAction;
  tools?: readonly ToolRule[];
}

/** True when `name` matches `pattern`, where `*` stands for any run of characters. */
export function nameMatches(pattern: string, name: string): boolean {
  const parts = pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`).test(name);
}

/**
 * The resume policy of `tool`: safe when the server says it only reads or is idempotent, or the
 * first rule that matches it says `retry: safe`; the action that rule sets, else the agent's
 * front matter's, else the setting's (default `error`).
 */
export function toolResumePolicy(
  settings: ResumeSettings,
  call: {
    tool: string;
    environment: string;
    agent: string;
    annotations?: ToolAnnotations | null;
    agentAction?: UnknownOutcomeAction | undefined;
  },
): ToolResumePolicy {
  // The first rule that matches the call decides; the others are not read.
  const rule = (settings.tools ?? []).find(
    (r) =>
      r.match.some((pattern) => nameMatches(pattern, call.tool)) &&
      (r.environments === undefined || r.environments.includes(call.environment)) &&
      (r.agents === undefined || r.agents.includes(call.agent)),
  );
  const hints = call.annotations ?? {};
  const safe =
    hints.readOnlyHint === true || hints.idempotentHint === true || rule?.retry === 'safe';
  const action =
    rule?.on_unknown_outcome ?? call.agentAction ?? settings.onUnknownOutcome ?? 'error';
  return { safe, action };
}

/** What a tool call of a resumed attempt becomes (undefined: it is called, as in any attempt). */
export type ResumeDecision =
  | { kind: 'replay'; outcome: ToolOutcome }
  | { kind: 'skip'; text: string }
  | { kind: 'stop'; error: AgentCoreError };

/** A call the model asks for, as the tools see it. */
export interface AskedCall {
  id: string;
  /** The turn that asked for it. */
  step: number;
  tool: string;
  server: string;
  args: unknown;
}

export interface AttemptJournalOptions {
  runId: number;
  workerId: string;
  recorder: RunRecorder;
  /** The journal of the run's earlier attempts (empty on its first). */
  journal: RunJournal;
  /** What the run started with, pinned before its first tool call. */
  pin: () => PinnedStart;
  policy: (call: AskedCall) => ToolResumePolicy;
  /** Cleans the arguments an error names. */
  redactor: Redactor;
  /**
   * False only to measure what the journal costs (bench/durable-step): no write at the step
   * boundaries, as before runs were durable. Never in a service.
   */
  writes?: boolean;
}

/** The journal of one attempt of a run (see the top of this file). */
export class AttemptJournal {
  readonly #o: AttemptJournalOptions;
  /** Every tool call asked for so far, journaled and live, by id. */
  readonly #calls: Map<string, JournaledCall>;
  /** The fenced write of the step whose calls are leaving now. */
  #acting: { step: number; written: Promise<void> } | undefined;
  #pinned: boolean;
  /** An outcome of a call that is not safe to repeat waits to be written. */
  #unsafeOutcome = false;

  constructor(options: AttemptJournalOptions) {
    this.#o = options;
    this.#calls = new Map(options.journal.calls);
    this.#pinned = false;
  }

  /** Tells it of a turn the model answered in this attempt (step from 1). */
  noteTurn(step: number, answer: TurnAnswer): void {
    noteCalls(this.#calls, step, answer);
  }

  /** The call's stable idempotency key (the same in every attempt), once its turn is known. */
  key(step: number, callId: string): string | undefined {
    const call = this.#calls.get(callKey(step, callId));
    return call ? idempotencyKey(this.#o.runId, call) : undefined;
  }

  /**
   * Before `call` leaves: the journal so far (the turn that asked for it) is written,
   * only while this worker holds the run — one write per step, whatever its number of calls.
   * A call that is not safe to repeat waits for that write, and is not made when it throws (the
   * run is no longer held); a call that is safe to repeat does not wait: should the write not
   * land, the worst is the call made again.
   */
  act(call: AskedCall): Promise<void> {
    if (this.#o.writes === false) return Promise.resolve();
    const written = this.#stepWrite(call.step);
    if (!this.#o.policy(call).safe) return written;
    // Its failure is kept by the recorder and thrown by the next act or flush.
    written.catch(() => undefined);
    return Promise.resolve();
  }

  /** The fenced write of `step`'s journal, started once. */
  #stepWrite(step: number): Promise<void> {
    if (this.#acting?.step === step) return this.#acting.written;
    const pinned = this.#pinned ? undefined : this.#o.pin();
    this.#pinned = true;
    const written = this.#o.recorder
      .act({ workerId: this.#o.workerId, ...(pinned ? { pinned } : {}) })
      .then((held) => {
        if (!held) {
          throw new Error(
            `run ${this.#o.runId} is no longer held by this worker; the call was not made`,
          );
        }
      });
    this.#acting = { step, written };
    return written;
  }

  /** Tells it a call of this attempt ended (its outcome is recorded, not yet written). */
  noteOutcome(call: AskedCall): void {
    if (!this.#o.policy(call).safe) this.#unsafeOutcome = true;
  }

  /**
   * Before the model is asked again: the outcomes of the step's calls are written — when one of
   * them is not safe to repeat. Outcomes of calls that are safe to repeat ride with the next
   * write: lost in a crash, they cost a repeated read-only call, never a repeated effect.
   *
   * The write is started here, in order with the run's other writes, and not waited for: it
   * commits while the model works on its answer (a model call has no effect outside Junction),
   * and the next step's fence waits for it. A write that fails stops the run at that fence.
   */
  boundary(): Promise<void> {
    if (this.#o.writes === false) return Promise.resolve();
    if (this.#unsafeOutcome) {
      this.#unsafeOutcome = false;
      // Its failure is kept by the recorder and thrown by the next act or flush.
      this.#o.recorder.journal().catch(() => undefined);
    }
    // The step's own fence write (a call safe to repeat did not wait for it) has landed: the
    // model is not asked while the journal cannot be written, or once the run is not held.
    return this.#acting?.written ?? Promise.resolve();
  }

  /** What `call` becomes in this attempt; undefined when it is simply called. */
  decide(call: AskedCall): ResumeDecision | undefined {
    const { journal } = this.#o;
    const key = callKey(call.step, call.id);
    const outcome = journal.outcomes.get(key);
    if (outcome) return { kind: 'replay', outcome };
    // Not asked for by a journaled turn: a call of this attempt.
    const journaled = journal.calls.get(key);
    if (!journaled) return undefined;
    // Its turn was journaled before it left, but no outcome was: it may have run, or not.
    const policy = this.#o.policy(call);
    if (policy.safe || policy.action === 'retry') {
      if (!journaled.redacted) return undefined;
      // Made again, it would be made with [REDACTED] where its secret was: a different call.
      return {
        kind: 'stop',
        error: new AgentCoreError(
          'TOOL_OUTCOME_UNKNOWN',
          `The outcome of tool call ${call.tool} (server "${call.server}") is unknown, and it cannot be made again: ` +
            "its arguments held a secret, which the run's journal never keeps. " +
            'Check whether the call took effect, then run the task again.',
          { tool: call.tool, server: call.server, call_id: call.id },
        ),
      };
    }
    if (policy.action === 'skip') {
      return {
        kind: 'skip',
        text:
          `The outcome of this ${call.tool} call is unknown: the process running it stopped while it ran, ` +
          'and it was not called again. Check its effect before calling it again.',
      };
    }
    const args = JSON.stringify(this.#o.redactor.value(call.args));
    return {
      kind: 'stop',
      error: new AgentCoreError(
        'TOOL_OUTCOME_UNKNOWN',
        `The outcome of tool call ${call.tool} ${args} (server "${call.server}") is unknown: the process running the run ` +
          'stopped while the call ran, and the tool is not marked safe to repeat, so the run was not resumed past it. ' +
          'Check whether the call took effect, then run the task again; or mark the tool in runs.tools ' +
          '(retry: safe, or on_unknown_outcome: retry or skip) in config.yaml.',
        { tool: call.tool, server: call.server, call_id: call.id },
      ),
    };
  }
}
