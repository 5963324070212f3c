// `junction workflow run --wait` printed every step line again about twice a second while it
// waited for an approval (60 copies in 30 s), and the `workflow approvals` table had no link
// column although its help promised one (issue 31). Each change is printed once; the table
// links each pending approval's page; the decision says what the run does next.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { runCliAsync, syncedWorkspace } from './run-cli.js';
import { follow } from './workflow-follow.js';

const GATE = `id: gate
start: draft
states:
  - {id: draft, type: agent, agent: assistant, task: "Write a line", transition: ask}
  - {id: ask, type: human_approval, message: "Ship it?", transition: ship}
  - {id: ship, type: inject, data: {shipped: true}, end: true}
`;

let fake: FakeOpenAI;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  fake = await startFakeOpenAI({});
  env = await syncedWorkspace({
    modelUrl: fake.url,
    env: { OPENAI_API_KEY: 'sk-wait-test-1234567' },
  });
  const dir = path.join(String(env.XDG_CONFIG_HOME), 'junction/environments/default/workflows');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'gate.workflow.yaml'), GATE);
  const sync = await runCliAsync(['sync', 'default'], env);
  expect(sync.status).toBe(0);
}, 180_000);

afterAll(async () => {
  await fake.close();
  rmSync(String(env.XDG_CONFIG_HOME), { recursive: true, force: true });
});

describe('workflow run --wait through an approval', () => {
  it('prints each step change once, however long it waits', async () => {
    fake.script([{ text: 'A line.' }]);
    const waiting = follow(['workflow', 'run', 'gate', '--wait'], env);
    await waiting.printed(/waiting for approval (appr-\S+)/);
    const approvalId = /waiting for approval (appr-\S+):/.exec(waiting.stdout())![1]!;

    // While it waits: the table of pending approvals, with the link to each one's page.
    const table = await runCliAsync(['workflow', 'approvals'], env);
    expect(table.status).toBe(0);
    const [header, row] = table.stdout.trim().split('\n');
    expect(header).toMatch(/APPROVAL\s+RUN\s+STEP\s+STATUS\s+EXPIRES\s+MESSAGE\s+LINK/);
    expect(row).toContain(approvalId);
    expect(row).toMatch(
      new RegExp(`http://127\\.0\\.0\\.1:8587/workflow-approvals/${approvalId}\\?token=\\S+$`),
    );
    // A second look at the run while it still waits (the old loop printed again meanwhile).
    expect(
      (
        await runCliAsync(
          ['workflow', 'inspect', /workflow run (\d+)/.exec(waiting.stdout())![1]!],
          env,
        )
      ).status,
    ).toBe(0);

    const approved = await runCliAsync(['workflow', 'approve', approvalId], env);
    expect(approved.status).toBe(0);
    expect(approved.stdout).toMatch(
      new RegExp(
        `Approval ${approvalId} approved\\. Workflow run \\d+ (goes on|has already ended completed)\\.`,
      ),
    );
    expect(await waiting.exit).toBe(0);

    const lines = waiting
      .stdout()
      .split('\n')
      .filter((l) => /^\s+step /.test(l));
    const counts = new Map<string, number>();
    for (const line of lines) counts.set(line.trim(), (counts.get(line.trim()) ?? 0) + 1);
    const repeated = [...counts].filter(([, n]) => n > 1);
    expect({ repeated, output: waiting.stdout() }).toEqual({
      repeated: [],
      output: waiting.stdout(),
    });
    // An agent step's start may be written with its end (then there is no `running` line).
    const shown = [...counts.keys()].map((l) => l.split(/\s+/).slice(1, 4).join(' '));
    expect(shown.filter((l) => !l.endsWith(' running'))).toEqual([
      'draft agent completed',
      'ask human_approval waiting_approval',
      'ask human_approval approved',
      'ship inject completed',
    ]);
    expect(waiting.stdout().match(/waiting for approval/g)).toHaveLength(1);
  }, 120_000);
});
