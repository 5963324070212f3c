// An agent step's timeout is its run's, and a run may take at most a day: a longer one is a
// problem when the file is read (sync, `workflow validate`), not a failure of every run that
// reaches the step (found in review: `timeout: 2d` synced, then every run of it failed).
import { describe, expect, it } from '@jest/globals';
import { parseWorkflow } from '../src/definition.js';
import { isWorkflowError } from '../src/errors.js';

function flow(timeout: string): string {
  return `id: slow
start: think
states:
  - {id: think, type: agent, agent: writer, task: "think", timeout: ${timeout}, end: true}
`;
}

function problemsOf(text: string): unknown[] {
  try {
    parseWorkflow(text, 'slow.workflow.yaml');
  } catch (err) {
    if (isWorkflowError(err, 'WORKFLOW_INVALID')) return err.details.problems as unknown[];
    throw err;
  }
  return [];
}

describe("an agent step's timeout", () => {
  it('past a day is a problem naming the step, the field and the limit', () => {
    expect(problemsOf(flow('2d'))).toEqual([
      expect.objectContaining({
        state: 'think',
        field: 'timeout',
        message: expect.stringContaining('at most 24h (86400 s)'),
      }),
    ]);
  });

  it('of a day exactly, or less, is the step run’s timeout', () => {
    expect(problemsOf(flow('24h'))).toEqual([]);
    expect(problemsOf(flow('30m'))).toEqual([]);
  });

  it('past a day on a state that runs no agent is not limited by it', () => {
    const text = `id: waits
start: gate
states:
  - {id: gate, type: human_approval, message: "Ship it?", timeout: 2d, end: true}
`;
    expect(problemsOf(text)).toEqual([]);
  });
});
