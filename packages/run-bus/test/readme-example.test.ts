import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { createModelCheck } from '@junction/agent-core/models';
import {
  createRunDoor,
  RunWorkers,
  type RunExecutor,
  type RunStateMessage,
} from '@junction/agent-core/runs';
import { openStore } from '@junction/store';
import { createLogger } from '@junction/telemetry';
import { eventually } from '@junction/tooling/fixtures/eventually.mjs';
import { findNats, NATS_MISSING, startNats } from '@junction/tooling/fixtures/nats.mjs';
import { NatsRunBus } from '../src/index.js';
import { openRunBus } from '../src/nats-run-bus.js';
import { readmeExample } from '@junction/tooling/fixtures/readme-example.mjs';

const haveNats = findNats() !== undefined;
if (!haveNats) console.warn(`*** SKIPPING run-bus README example: ${NATS_MISSING} ***`);
const maybe = haveNats ? describe : describe.skip;

maybe('README example', () => {
  it('is the code below, verbatim, and the run it submits is told of over the bus', async () => {
    const nats = await startNats();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'junction-run-bus-readme-'));
    const databaseUrl = path.join(dir, 'junction.db');
    const natsUrl = nats.url;
    const seed = await openStore({ url: databaseUrl });
    await seed.agents.create((await seed.environments.ensure('default')).id, { name: 'assistant' });
    // The id the example's storeId() finds (getOrSet keeps the first one).
    await seed.settings.set('store_id', 'readme0store');
    await seed.close();
    const checkModel = createModelCheck(
      { ai_model: 'openai/gpt-4o-mini' },
      { OPENAI_API_KEY: 'sk-test' },
    );
    // Another host of the same store, listening to run states on the same server.
    const quiet = createLogger({ level: 'error' });
    const other = await openRunBus({
      url: natsUrl,
      logger: quiet,
      storeId: async () => 'readme0store',
    });
    const heard: RunStateMessage[] = [];
    other.onState('*', (message) => heard.push(message));
    await eventually('the other host listening', async () => {
      other.publishState({ runId: 0, status: 'queued' });
      await new Promise((resolve) => setTimeout(resolve, 50));
      return heard.length > 0;
    });
    const log = console.log;
    const printed: unknown[][] = [];
    console.log = (...args: unknown[]): void => void printed.push(args);
    try {
      // Stands in for the AgentRunner: answers at once.
      const runner: RunExecutor = {
        execute: (run, { workerId }) =>
          store.runs.markCompleted(run.id, { finalResponse: `done: ${run.task}`, workerId }),
      };
      // README-EXAMPLE-START
      const store = await openStore({ url: databaseUrl }); // the store every host shares
      const logger = createLogger({ level: 'info' });
      const bus = new NatsRunBus({
        url: natsUrl, // queue.nats.url, e.g. nats://nats:4222
        logger,
        // The store's own id, as service-kit's storeIdOf makes it: the subjects carry it.
        storeId: async () =>
          String(await store.settings.getOrSet('store_id', randomBytes(6).toString('hex'))),
      });
      const workers = new RunWorkers({ store, runner, logger, bus, busPollMs: 5_000 });
      const runs = createRunDoor({
        store,
        checkModel,
        dispatch: workers,
        endings: workers,
        canceller: workers,
        bus,
      });
      await bus.open(); // before the workers; a server that is not there yet is retried in the background
      await workers.start();

      const unlisten = bus.onState('*', (m) => console.log(`run ${m.runId}: ${m.status}`));
      const { run } = await runs.submit({ agent_name: 'assistant', task: 'Say hi', source: 'cli' });
      const ended = await runs.waitFor(run.id, { timeoutMs: 60_000 });
      console.log(ended.status, bus.connected());

      unlisten();
      await workers.stop({ drainMs: 10_000 });
      await bus.close();
      await store.close();
      // README-EXAMPLE-END

      console.log = log;
      expect(printed.at(-1)).toEqual(['completed', true]);
      for (const line of printed.slice(0, -1)) {
        expect(line).toEqual([expect.stringMatching(new RegExp(`^run ${run.id}: \\w+$`))]);
      }
      // The other host heard the run end, on the subjects of the store's id.
      await eventually('the run state on the bus', () =>
        heard.some((m) => m.runId === run.id && m.status === 'completed'),
      );
      expect(ended.finalResponse).toBe('done: Say hi');
      await logger.close();
    } finally {
      console.log = log;
      await other.close();
      await quiet.close();
      await nats.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }

    const { example, readme } = readmeExample(import.meta.url);
    expect(example.split('\n').length).toBeGreaterThan(10);
    expect(readme).toContain(example);
  });
});
