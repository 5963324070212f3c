// Regression (issue 31): a run's report to the management platform carried its task verbatim,
// a secret pasted into it included. The record keeps the task as sent; the report, which leaves
// Junction, is cleaned by the station's redactor and the run's secret-named variables.
import { afterEach, beforeEach, expect, it } from '@jest/globals';
import { secretRedactor } from '@junction/agent-core/models';
import { runData } from '../src/run-report.js';
import { harness, type Harness } from './harness.js';

const PROCESS_SECRET = 'ghp_stationSecret0123456789';
const VARIABLE_SECRET = 'tok-variable-secret-98765';

let h: Harness;

beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

it('reports the task with pasted secrets redacted; the record keeps it as sent', async () => {
  const task = `Use ${PROCESS_SECRET}, ${VARIABLE_SECRET} and sk-live-abcdef0123456789 to deploy.`;
  const agent = (await h.store.agents.list())[0]!;
  const created = await h.store.runs.create({
    agentId: agent.id,
    agentName: agent.name,
    task,
    variables: { API_TOKEN: VARIABLE_SECRET },
    source: 'api',
  });
  await h.store.runs.claim(created.id, 'w1', 60_000);
  const run = await h.store.runs.markCompleted(created.id, {
    finalResponse: 'done',
    inputTokens: 1,
    outputTokens: 1,
    stepsTaken: 1,
    model: 'gpt-4o-mini',
  });

  const report = runData(run, [], '9.9.9-test', secretRedactor([PROCESS_SECRET]));
  expect(report.task).toBe('Use [REDACTED], [REDACTED] and [REDACTED] to deploy.');
  expect((await h.store.runs.get(run.id))?.task).toBe(task);
});
