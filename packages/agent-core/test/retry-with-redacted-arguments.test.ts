// Issue 32: a journaled tool call whose arguments held a secret is kept with [REDACTED] in its
// place. Its recorded result can be given back; but when its outcome is unknown, making it again
// — even for a tool safe to repeat — would make a different call, so the resumed run stops.
import { describe, expect, it } from '@jest/globals';
import { createRedactor } from '@junction/telemetry';
import { AttemptJournal, type ToolResumePolicy } from '../src/runs/attempt-journal.js';
import { readJournal, redactedAnswer, type TurnAnswer } from '../src/runs/run-journal.js';
import type { RunRecorder } from '../src/runs/run-recorder.js';

const SECRET = 'ghp_journalSecret0123456789';
const redactor = createRedactor([SECRET]);

/** A turn that asked for one call of `tool` with `input`, as the journal keeps it (redacted). */
function turn(tool: string, input: Record<string, unknown>): TurnAnswer {
  const answer = {
    content: [
      { type: 'tool-call', toolCallId: 'call_1', toolName: tool, input: JSON.stringify(input) },
    ],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage: {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    },
  } as TurnAnswer;
  return redactedAnswer(answer, redactor);
}

function attempt(answer: TurnAnswer, policy: ToolResumePolicy, outcome?: string): AttemptJournal {
  const journal = readJournal([
    { seq: 1, type: 'model_turn', journal: answer },
    ...(outcome !== undefined
      ? [{ seq: 2, type: 'tool_call', journal: { id: 'call_1', step: 1, text: outcome } }]
      : []),
  ]);
  return new AttemptJournal({
    runId: 7,
    workerId: 'w',
    recorder: {} as RunRecorder,
    journal,
    pin: () => ({ prompt: '', model: 'm', tools: [] }),
    policy: () => policy,
    redactor,
  });
}

const SAFE: ToolResumePolicy = { safe: true, action: 'error' };
const asked = (args: unknown) => ({ id: 'call_1', step: 1, tool: 'lookup', server: 'api', args });

describe('a journaled call whose arguments held a secret', () => {
  it('is not made again with [REDACTED] when its outcome is unknown, even for a tool safe to repeat', () => {
    const answer = turn('lookup', { token: `Bearer ${SECRET}`, q: 'x' });
    expect(JSON.stringify(answer)).not.toContain(SECRET);
    const decision = attempt(answer, SAFE).decide(asked({ token: '[REDACTED]', q: 'x' }));
    expect(decision).toMatchObject({ kind: 'stop' });
    const error = (decision as { error: Error & { code: string } }).error;
    expect(error.code).toBe('TOOL_OUTCOME_UNKNOWN');
    expect(error.message).toBe(
      'The outcome of tool call lookup (server "api") is unknown, and it cannot be made again: ' +
        "its arguments held a secret, which the run's journal never keeps. " +
        'Check whether the call took effect, then run the task again.',
    );
    // `retry` set by the operator stops it the same way; `skip` still tells the model.
    expect(attempt(answer, { safe: false, action: 'retry' }).decide(asked({}))).toMatchObject({
      kind: 'stop',
    });
    expect(attempt(answer, { safe: false, action: 'skip' }).decide(asked({}))).toMatchObject({
      kind: 'skip',
    });
  });

  it('is given its recorded result back when it has one', () => {
    const answer = turn('lookup', { token: SECRET });
    expect(attempt(answer, SAFE, 'found').decide(asked({}))).toEqual({
      kind: 'replay',
      outcome: { id: 'call_1', step: 1, text: 'found' },
    });
  });

  it('is made again, as before, when its arguments held no secret and the tool is safe to repeat', () => {
    expect(attempt(turn('lookup', { q: 'x' }), SAFE).decide(asked({ q: 'x' }))).toBeUndefined();
    // Arguments that merely say [REDACTED] (the model echoing a redacted result) held no secret.
    const echoed = turn('lookup', { q: '[REDACTED]' });
    expect(echoed.redactedCalls).toBeUndefined();
    expect(attempt(echoed, SAFE).decide(asked({ q: '[REDACTED]' }))).toBeUndefined();
  });
});
