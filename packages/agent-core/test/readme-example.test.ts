import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { openStore, type Run } from '@junction/store';
import { createLogger } from '@junction/telemetry';
import { readmeExample } from '@junction/tooling/fixtures/readme-example.mjs';
import { createModelCheck } from '../src/models/index.js';
import { RunWorkers, submitRun, type RunExecutor } from '../src/runs/index.js';

describe('README example', () => {
  it('is the code below, verbatim, and it starts and works a run', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'junction-core-readme-'));
    const databaseFile = path.join(dir, 'junction.db');
    const seed = await openStore({ url: databaseFile });
    await seed.agents.create((await seed.environments.ensure('default')).id, { name: 'assistant' });
    await seed.close();
    const key = 'sk-readme-example-key';
    const ended: Run[] = [];
    // Stands in for the AgentRunner: answers at once.
    const runner: RunExecutor = {
      execute: (run, { workerId }) =>
        store.runs.markCompleted(run.id, { finalResponse: `done: ${run.task}`, workerId }),
    };
    const log = console.log;
    const printed: unknown[][] = [];
    console.log = (...args: unknown[]): void => void printed.push(args);
    // README-EXAMPLE-START
    const store = await openStore({ url: databaseFile });
    const logger = createLogger({ level: 'warn' });
    const workers = new RunWorkers({
      store,
      runner,
      logger,
      onFinished: (run) => void ended.push(run),
    });
    const checkModel = createModelCheck(
      { ai_model: 'openai/gpt-4o-mini' },
      { OPENAI_API_KEY: key },
    );

    const { run, agent } = await submitRun(
      { store, checkModel },
      { agent_name: 'assistant', task: 'List the files you can see', source: 'cli' },
      { claimedBy: workers.callerClaim() },
    );
    const finished = await workers.execute(run);
    console.log(agent.name, finished.status, finished.finalResponse);
    await store.close();
    // README-EXAMPLE-END
    await logger.close();
    console.log = log;
    expect(printed).toEqual([['assistant', 'completed', 'done: List the files you can see']]);
    // The notifier's hook saw the run end, as it does for every worker's run.
    expect(ended.map((r) => r.status)).toEqual(['completed']);
    fs.rmSync(dir, { recursive: true, force: true });

    const { example, readme } = readmeExample(import.meta.url);
    expect(readme).toContain(example);
  });
});
