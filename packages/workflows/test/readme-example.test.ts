import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { resolvePaths, Workspace } from '@junction/config-templates';
import { createModelCheck } from '@junction/agent-core/models';
import { createRunDoor, RunWorkers, type RunExecutor } from '@junction/agent-core/runs';
import { openStore } from '@junction/store';
import { createLogger } from '@junction/telemetry';
import { createWorkflowDoor, syncWorkflows, WorkflowWorkers } from '../src/index.js';
import { readmeExample } from '@junction/tooling/fixtures/readme-example.mjs';

const TRIAGE = `id: triage
start: rate
states:
  - id: rate
    type: agent
    agent: assistant
    task: "Rate ticket {{ ticket }}: low or high?"
    resultPath: rating
    transition: approve
  - id: approve
    type: human_approval
    message: "Close ticket {{ ticket }}?"
    transition: close
  - {id: close, type: inject, data: {closed: true}, resultPath: result, end: true}
`;

describe('README example', () => {
  it('is the code below, verbatim, and it runs a workflow through its approval', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'junction-workflows-readme-'));
    const workspace = new Workspace(resolvePaths({ XDG_CONFIG_HOME: home }));
    await workspace.init();
    fs.writeFileSync(
      path.join(workspace.environmentDir('default'), 'workflows', 'triage.workflow.yaml'),
      TRIAGE,
    );
    const store = await openStore({ url: path.join(home, 'junction.db') });
    await store.agents.create((await store.environments.ensure('default')).id, {
      name: 'assistant',
    });
    const logger = createLogger({ level: 'warn' });
    // Stands in for the AgentRunner: every agent step's run answers at once.
    const runner: RunExecutor = {
      execute: (run, { workerId }) =>
        store.runs.markCompleted(run.id, { finalResponse: 'low', workerId }),
    };
    const runWorkers = new RunWorkers({ store, runner, logger });
    await runWorkers.start();
    const checkModel = createModelCheck(
      { ai_model: 'openai/gpt-4o-mini' },
      { OPENAI_API_KEY: 'sk-test' },
    );
    const log = console.log;
    const printed: unknown[][] = [];
    console.log = (...args: unknown[]): void => void printed.push(args);
    try {
      // README-EXAMPLE-START
      // Store the environment's workflow files, as `junction sync default` does.
      const synced = await syncWorkflows({ workspace, store, environment: 'default' });
      for (const file of synced.workflows) {
        console.log(file.workflowId, file.status, file.error ?? '');
      }

      const runs = createRunDoor({
        store,
        checkModel,
        dispatch: runWorkers,
        endings: runWorkers,
        canceller: runWorkers,
      });
      const workers = new WorkflowWorkers({ store, runs, logger });
      const workflows = createWorkflowDoor({
        store,
        publicUrl: 'http://127.0.0.1:8587', // where approval links point: the webhook port
        due: () => workers.due(),
        reserve: () => workers.reserve(),
        cancelRun: (runId, options) => runs.cancel(runId, options),
      });
      workers.start();

      const { run } = await workflows.start({
        workflow_id: 'triage',
        input: { ticket: 'T-1' },
        source: 'cli',
      });
      let current = await workflows.follow(run.id, {
        timeoutMs: 60_000,
        onStep: (step) => console.log(step.stepName, step.status),
      });
      if (current.status === 'waiting_approval') {
        const { approvals } = await workflows.inspect(run.id);
        const pending = approvals.find((approval) => approval.status === 'pending')!;
        console.log((await workflows.links(pending.approvalId)).approve_url); // signed, for a browser
        await workflows.decide(pending.approvalId, {
          decision: 'approved',
          approver: 'alice',
          source: 'cli',
        });
        current = await workflows.follow(run.id, { timeoutMs: 60_000 });
      }
      console.log(current.status, current.output);
      await workers.stop({ drainMs: 2_000 });
      // README-EXAMPLE-END

      console.log = log;
      // Steps are told as they change: rate may be seen running before it completed.
      expect(printed).toEqual(
        expect.arrayContaining([
          ['triage', 'synced', ''],
          ['rate', 'completed'],
          ['approve', 'waiting_approval'],
          [
            expect.stringMatching(
              new RegExp(
                `^http://127\\.0\\.0\\.1:8587/workflow-approvals/appr-${run.id}-approve/approve\\?token=`,
              ),
            ),
          ],
        ]),
      );
      expect(printed[0]).toEqual(['triage', 'synced', '']);
      expect(printed.at(-1)).toEqual(['completed', { closed: true }]);
      const { steps, approvals } = await workflows.inspect(run.id);
      expect(steps.map((s) => [s.stepName, s.status])).toEqual([
        ['rate', 'completed'],
        ['approve', 'approved'],
        ['close', 'completed'],
      ]);
      expect(approvals).toEqual([
        expect.objectContaining({ status: 'approved', decidedBy: 'alice' }),
      ]);
      // The agent step's run went through the run door and ran on the run workers.
      expect(await store.runs.list()).toEqual([
        expect.objectContaining({
          agentName: 'assistant',
          source: 'workflow',
          status: 'completed',
        }),
      ]);
    } finally {
      console.log = log;
      await runWorkers.stop({ drainMs: 1_000 });
      await logger.close();
      await store.close();
      fs.rmSync(home, { recursive: true, force: true });
    }

    const { example, readme } = readmeExample(import.meta.url);
    expect(example.split('\n').length).toBeGreaterThan(10);
    expect(readme).toContain(example);
  });
});
