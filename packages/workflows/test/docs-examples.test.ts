// Every example of docs/workflows.md runs end to end: the comment before each YAML block gives
// the input, the fake model's answers (none: it echoes the task), an approver when it waits for
// one, and the output the run must end with.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decideApproval } from '../src/approvals.js';
import { parseWorkflow, startWorkflowRun } from '../src/index.js';
import { createHarness, type Harness } from './harness.js';

const page = readFileSync(
  path.join(path.dirname(fileURLToPath(import.meta.url)), '../../../docs/workflows.md'),
  'utf8',
);

interface Example {
  name: string;
  input: unknown;
  answers: string[];
  approve?: string;
  output: unknown;
  yaml: string;
}

const examples: Example[] = [];
for (const m of page.matchAll(/<!-- example: ([^>]*?) -->\n```yaml\n([\s\S]*?)```/g)) {
  const fields = new Map<string, string>();
  for (const part of (m[1] as string).split(/;\s*(?=[a-z_]+: )/)) {
    const at = part.indexOf(': ');
    fields.set(
      at < 0 ? 'name' : part.slice(0, at).trim(),
      at < 0 ? part.trim() : part.slice(at + 2).trim(),
    );
  }
  const name = (m[1] as string).split(';')[0]!.trim();
  examples.push({
    name,
    input: JSON.parse(fields.get('input') ?? '{}'),
    answers: JSON.parse(fields.get('answers') ?? '[]') as string[],
    ...(fields.has('approve') ? { approve: fields.get('approve')! } : {}),
    output: JSON.parse(fields.get('output') ?? 'null'),
    yaml: m[2] as string,
  });
}

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
  h.agent('assistant');
  for (const e of examples) h.workflow(`${e.name}.workflow.yaml`, e.yaml);
  await h.sync();
}, 180_000);
afterAll(async () => {
  await h.close();
});

describe('docs/workflows.md', () => {
  it('has one example per state type', () => {
    expect(examples.map((e) => e.name).sort()).toEqual(
      [
        'agent',
        'cron',
        'foreach',
        'human_approval',
        'inject',
        'parallel',
        'switch',
        'timer',
        'transform',
        'try',
      ].sort(),
    );
  });

  it.each(examples.map((e) => [e.name, e] as const))(
    'runs the %s example to the output it shows',
    async (_, e) => {
      const model = parseWorkflow(e.yaml, `${e.name}.workflow.yaml`);
      h.fake.script(e.answers.map((text) => ({ text })));
      const { run } = await startWorkflowRun(
        { store: h.store, due: () => h.workers.due() },
        { workflow_id: model.id, input: e.input, source: 'api' },
      );
      if (e.approve !== undefined) {
        await h.waitFor(run.id, ['waiting_approval']);
        const [approval] = await h.store.approvals.list({ workflowRunId: run.id });
        await decideApproval({ store: h.store, due: () => h.workers.due() }, approval!.approvalId, {
          decision: 'approved',
          approver: e.approve,
          source: 'cli',
        });
      }
      const ended = await h.waitFor(run.id);
      expect(ended.error).toBeNull();
      expect(ended).toMatchObject({ status: 'completed', output: e.output });
    },
  );
});
