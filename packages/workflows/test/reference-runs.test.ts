// Example workflow files of the reference implementation, verbatim, run end to end on the real
// engine with fake agents (one per agent name the file uses; the fake model echoes the task).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decideApproval } from '../src/approvals.js';
import { parseWorkflow, startWorkflowRun } from '../src/index.js';
import type { Graph, State } from '../src/model.js';
import { createHarness, type Harness } from './harness.js';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'reference');

/** The files run here, with an input that fits each one's inputSchema. */
const RUNS: Array<[string, Record<string, unknown>]> = [
  ['e2e-switch-routing', {}],
  ['e2e-parallel-diagnostics', {}],
  ['e2e-foreach-services', {}],
  ['incident-response-pipeline', {}],
  ['harness-pipeline', { project_name: 'demo' }],
  ['dataflow-simple', { task: 'check the pods', namespace: 'prod' }],
  ['sandbox-env-injection-test', {}],
  ['daily-infrastructure-health', {}],
];

function agentsOf(graph: Graph, into = new Set<string>()): Set<string> {
  for (const state of graph.states.values()) {
    const s = state as State;
    if (s.type === 'agent') into.add(s.agent.split('@')[0] as string);
    if (s.type === 'parallel') for (const b of s.branches) agentsOf(b, into);
    if (s.type === 'foreach') agentsOf(s.iterator, into);
    if (s.type === 'try') for (const b of [s.try, s.catch, s.finally]) if (b) agentsOf(b, into);
  }
  return into;
}

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
  const names = new Set<string>();
  for (const [file] of RUNS) {
    const text = readFileSync(path.join(dir, `${file}.workflow.yaml`), 'utf8');
    agentsOf(parseWorkflow(text, file).graph, names);
    h.workflow(`${file}.workflow.yaml`, text);
  }
  for (const name of names) h.agent(name);
  await h.sync();
}, 180_000);
afterAll(async () => {
  await h.close();
});

describe('reference example workflows, run end to end', () => {
  it.each(RUNS)(
    '%s completes',
    async (file, input) => {
      const model = parseWorkflow(
        readFileSync(path.join(dir, `${file}.workflow.yaml`), 'utf8'),
        file,
      );
      const { run } = await startWorkflowRun(
        { store: h.store, due: () => h.workers.due() },
        { workflow_id: model.id, input, source: 'api' },
      );
      let ended = await h.waitFor(
        run.id,
        ['completed', 'failed', 'cancelled', 'timed_out', 'waiting_approval'],
        30_000,
      );
      while (ended.status === 'waiting_approval') {
        for (const a of await h.store.approvals.list({
          workflowRunId: run.id,
          status: 'pending',
        })) {
          await decideApproval({ store: h.store, due: () => h.workers.due() }, a.approvalId, {
            decision: 'approved',
            ...(a.approvers[0] ? { approver: a.approvers[0] } : {}),
            source: 'cli',
          });
        }
        ended = await h.waitFor(
          run.id,
          ['completed', 'failed', 'cancelled', 'timed_out', 'waiting_approval'],
          30_000,
        );
      }
      expect(ended.error).toBeNull();
      expect(ended.status).toBe('completed');
      const steps = await h.store.workflowSteps.list(run.id);
      expect(steps.length).toBeGreaterThan(1);
      expect(steps.every((s) => s.status !== 'failed')).toBe(true);
    },
    60_000,
  );
});
