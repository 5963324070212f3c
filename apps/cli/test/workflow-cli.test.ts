// `junction workflow …` as a user runs it: validate a file, sync it, run it with --wait through
// an approval decided from a second terminal, inspect it, and the errors of each command.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { runCliAsync, syncedWorkspace, tempConfigHome } from './run-cli.js';

const KEY = 'sk-workflow-cli-key-1234567';

const REVIEW = `id: review
name: Review and ship
start: draft
inputSchema:
  type: object
  properties: {topic: {type: string}}
  required: [topic]
states:
  - id: draft
    type: agent
    agent: assistant
    task: "Write one line about {{ topic }}"
    resultPath: draft
    transition: approve
  - id: approve
    type: human_approval
    message: "Ship the line about {{ topic }}?"
    timeout_seconds: 600
    transition: ship
  - id: ship
    type: transform
    expression: '{"shipped": draft.response, "by": approve.approver}'
    end: true
`;

let fake: FakeOpenAI;
let env: NodeJS.ProcessEnv;
let workflowsDir: string;

beforeAll(async () => {
  fake = await startFakeOpenAI({});
  env = await syncedWorkspace({ modelUrl: fake.url, env: { OPENAI_API_KEY: KEY } });
  workflowsDir = path.join(
    String(env.XDG_CONFIG_HOME),
    'junction',
    'environments',
    'default',
    'workflows',
  );
  const { mkdirSync } = await import('node:fs');
  mkdirSync(workflowsDir, { recursive: true });
}, 180_000);

afterAll(async () => {
  await fake.close();
});

describe('junction workflow', () => {
  it('validate checks one file without a workspace: valid, or exit 3 naming state and field', async () => {
    const dir = tempConfigHome();
    const good = path.join(dir, 'good.workflow.yaml');
    writeFileSync(good, REVIEW);
    const ok = await runCliAsync(['workflow', 'validate', good], { XDG_CONFIG_HOME: dir });
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain('valid — workflow "review"');
    const bad = path.join(dir, 'bad.workflow.yaml');
    writeFileSync(
      bad,
      'id: bad\nstart: a\nstates:\n  - {id: a, type: switch, conditions: [{if: "x >", next: b}]}\n  - {id: b, type: teleport}\n',
    );
    const refused = await runCliAsync(['workflow', 'validate', bad, '--json'], {
      XDG_CONFIG_HOME: dir,
    });
    expect(refused.status).toBe(3);
    const error = JSON.parse(refused.stdout) as {
      error: { code: string; details: { problems: Array<{ state: string; field: string }> } };
    };
    expect(error.error.code).toBe('WORKFLOW_INVALID');
    expect(error.error.details.problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ state: 'a', field: 'conditions[0].if' }),
        expect.objectContaining({ state: 'b', field: 'type' }),
      ]),
    );
    const missing = await runCliAsync(['workflow', 'validate', path.join(dir, 'nope.yaml')], {
      XDG_CONFIG_HOME: dir,
    });
    expect(missing.status).toBe(3);
    expect(missing.stderr).toContain('Cannot read');
  });

  it('syncs, runs with --wait through an approval decided elsewhere, and inspects the run', async () => {
    writeFileSync(path.join(workflowsDir, 'review.workflow.yaml'), REVIEW);
    const sync = await runCliAsync(['sync', 'default'], env);
    expect(sync.status).toBe(0);
    expect(sync.stdout).toContain('workflow review  synced  (added)');
    const list = JSON.parse(
      (await runCliAsync(['workflow', 'list', '--json'], env)).stdout,
    ) as Array<{ workflow_id: string }>;
    expect(list.map((w) => w.workflow_id)).toContain('review');

    const badInput = await runCliAsync(
      ['workflow', 'run', 'review', '--input', '{"nope": 1}'],
      env,
    );
    expect(badInput.status).toBe(2);
    expect(badInput.stderr).toContain('input.topic is required');

    fake.script([{ text: 'Junction ships workflows.' }]);
    const running = runCliAsync(
      ['workflow', 'run', 'review', '--input', '{"topic": "workflows"}', '--wait'],
      env,
    );
    let approvalId: string | undefined;
    for (let i = 0; i < 200 && approvalId === undefined; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const pending = await runCliAsync(['workflow', 'approvals', '--json'], env);
      const rows =
        pending.status === 0
          ? (JSON.parse(pending.stdout) as Array<{
              approval_id: string;
              view_url: string;
              message: string;
            }>)
          : [];
      if (rows[0]) {
        approvalId = rows[0].approval_id;
        expect(rows[0].message).toBe('Ship the line about workflows?');
        expect(rows[0].view_url).toMatch(/\/workflow-approvals\/appr-\d+-approve\?token=/);
      }
    }
    expect(approvalId).toBeDefined();
    const approved = await runCliAsync(
      ['workflow', 'approve', approvalId!, '--approver', 'alice', '--comment', 'fine'],
      env,
    );
    expect(approved.status).toBe(0);
    const twice = await runCliAsync(['workflow', 'approvals', 'approve', approvalId!], env);
    expect(twice.status).toBe(5);
    expect(twice.stderr).toContain('already approved by alice');

    const done = await running;
    expect(done.status).toBe(0);
    expect(done.stdout).toMatch(/step draft\s+agent\s+completed/);
    expect(done.stdout).toContain(`waiting for approval ${approvalId}`);
    expect(done.stdout).toContain('"shipped": "Junction ships workflows."');
    expect(done.stdout).toContain('"by": "alice"');

    const runId = /workflow run (\d+)/.exec(done.stdout)![1]!;
    const inspected = JSON.parse(
      (await runCliAsync(['workflow', 'inspect', runId, '--json'], env)).stdout,
    ) as {
      workflow_run: { status: string };
      steps: Array<{ name: string; status: string }>;
    };
    expect(inspected.workflow_run.status).toBe('completed');
    expect(inspected.steps.map((s) => [s.name, s.status])).toEqual([
      ['draft', 'completed'],
      ['approve', 'approved'],
      ['ship', 'completed'],
    ]);
    const cancel = await runCliAsync(['workflow', 'cancel', runId], env);
    expect(cancel.status).toBe(5);
    expect((await runCliAsync(['workflow', 'inspect', 'x7'], env)).status).toBe(2);
    expect((await runCliAsync(['workflow', 'inspect', '99999'], env)).status).toBe(4);
    expect((await runCliAsync(['workflow', 'run', 'nope'], env)).status).toBe(4);
  }, 120_000);
});
