// Regression (issue 31): a secret pasted into a task was copied verbatim into the run's trace
// (`task` attribute of `agent.execute`), which is exported to collectors and kept by the trace
// viewer. The rule now: the run record keeps the task as sent and the model gets it as sent;
// every copy that leaves the record is cleaned by the redactor of the run's records — known
// secret values (secret-named environment variables, model keys), the run's secret-named
// variables, bearer tokens.
import { afterEach, beforeEach, expect, it } from '@jest/globals';
import { SPAN_AGENT_EXECUTE } from '@junction/telemetry';
import { runView } from '../src/runs/run-view.js';
import { API_KEY, createHarness, type Harness } from './run-harness.js';

const DEPLOY_TOKEN = 'ghp_pastedDeployToken0123456789';
const VARIABLE_SECRET = 'tok-variable-secret-98765';
const TASK =
  `Deploy with ${DEPLOY_TOKEN}, then call the API with ${VARIABLE_SECRET}, ` +
  `the model key ${API_KEY} and the header "Authorization: Bearer abcdef0123456789xyz".`;

let h: Harness;

beforeEach(async () => {
  h = await createHarness({ env: { OPENAI_API_KEY: API_KEY, DEPLOY_TOKEN } });
  h.agent('deployer', 'model: openai/gpt-test');
  await h.sync();
});
afterEach(async () => {
  await h.close();
});

it('keeps the task as sent in the record and for the model, and redacts it in the trace and logs', async () => {
  h.fake.script([{ text: 'deployed' }]);
  const run = await h.claimed('deployer', TASK, { API_TOKEN: VARIABLE_SECRET, region: 'eu' });
  const done = await h.runner.execute(run, { workerId: 'test-worker' });
  expect(done.status).toBe('completed');

  // The record and the model: as sent.
  expect((await h.store.runs.get(run.id))?.task).toBe(TASK);
  expect(runView(done).task).toBe(TASK);
  const userMessages = JSON.stringify(h.fake.requests[0]?.body.messages);
  expect(userMessages).toContain(DEPLOY_TOKEN);

  // The trace: cleaned.
  const root = h.tracing
    .memoryExporter!.getFinishedSpans()
    .find((span) => span.name === SPAN_AGENT_EXECUTE);
  expect(root?.attributes.task).toBe(
    'Deploy with [REDACTED], then call the API with [REDACTED], the model key [REDACTED] ' +
      'and the header "Authorization: Bearer [REDACTED]".',
  );
  const everySpan = JSON.stringify(
    h.tracing.memoryExporter!.getFinishedSpans().map((span) => span.attributes),
  );
  for (const secret of [DEPLOY_TOKEN, VARIABLE_SECRET, API_KEY]) {
    expect(everySpan).not.toContain(secret);
    expect(h.logLines.join('')).not.toContain(secret);
  }
});
