// `workflow reject` said the run "goes on" when it fails, its step having no onRejected
// (issue 31): what a decision makes the run do is said by one function, for every surface.
import { describe, expect, it } from '@jest/globals';
import { decisionOutcome } from '../src/index.js';

const definition = {
  id: 'gate',
  start: 'ask',
  states: [
    { id: 'ask', type: 'human_approval', message: 'Go?', onRejected: 'undo', transition: 'more' },
    {
      id: 'more',
      type: 'parallel',
      branches: [
        {
          name: 'b',
          start: 'inner',
          states: [{ id: 'inner', type: 'human_approval', message: 'And?', end: true }],
        },
      ],
      end: true,
    },
    { id: 'undo', type: 'inject', data: {}, end: true },
  ],
};
const run = { id: 7, status: 'waiting_approval' as const, definition, workflowKey: 'gate' };

describe('what a decision makes the run do', () => {
  it('goes on after an approval', () => {
    expect(decisionOutcome({ status: 'approved', stepName: 'ask', workflowRunId: 7 }, run)).toBe(
      'Workflow run 7 goes on.',
    );
  });

  it("goes on at the step's onRejected after a rejection", () => {
    expect(decisionOutcome({ status: 'rejected', stepName: 'ask', workflowRunId: 7 }, run)).toBe(
      'Workflow run 7 goes on at step "undo" (the onRejected of step "ask").',
    );
  });

  it('fails after a rejection of a step without onRejected, nested ones too', () => {
    expect(decisionOutcome({ status: 'rejected', stepName: 'inner', workflowRunId: 7 }, run)).toBe(
      'Workflow run 7 fails: step "inner" has no onRejected to go on at.',
    );
  });

  it('says both paths when the step cannot be found in the definition', () => {
    expect(
      decisionOutcome(
        { status: 'rejected', stepName: 'gone', workflowRunId: 7 },
        { ...run, definition: { id: 'broken' } },
      ),
    ).toBe('Workflow run 7 goes on at the onRejected of step "gone", or fails if it has none.');
  });

  it('says so when the run has already ended', () => {
    expect(
      decisionOutcome(
        { status: 'approved', stepName: 'ask', workflowRunId: 7 },
        { ...run, status: 'cancelled' },
      ),
    ).toBe('Workflow run 7 has already ended cancelled.');
  });
});
