// Cancelling a workflow run left its approval `pending`, and approving it afterwards said the
// run "goes on" while it stayed cancelled; `workflow reject` said the run "goes on" when it
// failed; `workflow runs` showed a completed run at the step before its last (issue 31).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runCliAsync, tempConfigHome } from './run-cli.js';
import { follow } from './workflow-follow.js';

const GATE = `id: gate
start: ask
states:
  - {id: ask, type: human_approval, message: "Ship it?", transition: ship}
  - {id: ship, type: inject, data: {shipped: true}, end: true}
`;

let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  env = { XDG_CONFIG_HOME: tempConfigHome() };
  expect((await runCliAsync(['init'], env)).status).toBe(0);
  const dir = path.join(String(env.XDG_CONFIG_HOME), 'junction/environments/default/workflows');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'gate.workflow.yaml'), GATE);
  expect((await runCliAsync(['sync', 'default'], env)).status).toBe(0);
}, 120_000);

afterAll(() => {
  rmSync(String(env.XDG_CONFIG_HOME), { recursive: true, force: true });
});

/** Starts `workflow run gate --wait` and waits until it waits for its approval. */
async function waitingRun(): Promise<{
  waiting: ReturnType<typeof follow>;
  runId: string;
  approvalId: string;
}> {
  const waiting = follow(['workflow', 'run', 'gate', '--wait'], env);
  const out = await waiting.printed(/waiting for approval appr-\S+:/);
  return {
    waiting,
    runId: /workflow run (\d+)/.exec(out)![1]!,
    approvalId: /waiting for approval (appr-\S+):/.exec(out)![1]!,
  };
}

describe('the approval of a cancelled workflow run', () => {
  it('is withdrawn, and deciding it is refused with exit 5 and APPROVAL_WITHDRAWN', async () => {
    const { waiting, runId, approvalId } = await waitingRun();
    const cancel = await runCliAsync(['workflow', 'cancel', runId], env);
    expect(cancel.status).toBe(0);
    expect(await waiting.exit).toBe(8);

    const pending = await runCliAsync(['workflow', 'approvals', '--json'], env);
    expect(JSON.parse(pending.stdout)).toEqual([]);
    const withdrawn = JSON.parse(
      (await runCliAsync(['workflow', 'approvals', '--status', 'cancelled', '--json'], env)).stdout,
    ) as Array<{ approval_id: string; status: string }>;
    expect(withdrawn).toEqual([
      expect.objectContaining({ approval_id: approvalId, status: 'cancelled' }),
    ]);

    const approve = await runCliAsync(['workflow', 'approve', approvalId], env);
    expect(approve.status).toBe(5);
    expect(approve.stdout).not.toContain('goes on');
    expect(approve.stderr).toContain(`Approval "${approvalId}" was withdrawn`);
    expect(approve.stderr).toContain(`workflow run ${runId} was cancelled`);
    const reject = await runCliAsync(['workflow', 'reject', approvalId, '--json'], env);
    expect(reject.status).toBe(5);
    expect(JSON.parse(reject.stdout)).toMatchObject({ error: { code: 'APPROVAL_WITHDRAWN' } });
    const run = JSON.parse(
      (await runCliAsync(['workflow', 'inspect', runId, '--json'], env)).stdout,
    ) as { workflow_run: { status: string }; approvals: Array<{ status: string }> };
    expect(run.workflow_run.status).toBe('cancelled');
    expect(run.approvals.map((a) => a.status)).toEqual(['cancelled']);
  }, 120_000);
});

describe('deciding an approval says what the run does next', () => {
  it('a rejection of a step without onRejected: the run fails', async () => {
    const { waiting, runId, approvalId } = await waitingRun();
    const reject = await runCliAsync(['workflow', 'reject', approvalId, '--reason', 'no'], env);
    expect(reject.status).toBe(0);
    expect(reject.stdout).toContain(`Approval ${approvalId} rejected.`);
    expect(reject.stdout).toMatch(
      new RegExp(
        `Workflow run ${runId} (fails: step "ask" has no onRejected to go on at|has already ended failed)\\.`,
      ),
    );
    expect(reject.stdout).not.toContain('goes on.');
    expect(await waiting.exit).toBe(8);
  }, 120_000);

  it('an approval: the run goes on, and ends at its last step', async () => {
    const { waiting, runId, approvalId } = await waitingRun();
    const approve = await runCliAsync(['workflow', 'approve', approvalId], env);
    expect(approve.status).toBe(0);
    expect(await waiting.exit).toBe(0);
    const runs = JSON.parse(
      (await runCliAsync(['workflow', 'runs', '--json'], env)).stdout,
    ) as Array<{ id: number; status: string; current_step: string }>;
    expect(runs.find((r) => String(r.id) === runId)).toMatchObject({
      status: 'completed',
      current_step: 'ship',
    });
    const inspected = await runCliAsync(['workflow', 'inspect', runId], env);
    expect(inspected.stdout).toMatch(/^ {2}step {6}ship$/m);
    const table = await runCliAsync(['workflow', 'runs'], env);
    expect(table.stdout).toMatch(new RegExp(`^${runId}\\s+gate\\s+completed\\s+ship\\s`, 'm'));
  }, 120_000);
});
