import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import express from 'express';
import { createModelCheck } from '@junction/agent-core/models';
import { createRunDoor, RunWorkers } from '@junction/agent-core/runs';
import { keyRing } from '@junction/tooling/fixtures/key-ring.mjs';
import { openStore, type Run } from '@junction/store';
import { createLogger } from '@junction/telemetry';
import {
  createNotifier,
  createWebhookRouter,
  webhookErrorHandler,
  webhookNotFoundHandler,
} from '../src/index.js';
import { startSink } from './helpers.js';
import { readmeExample } from '@junction/tooling/fixtures/readme-example.mjs';

describe('README example', () => {
  it('is the code below, verbatim, and it runs', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'junction-webhooks-readme-'));
    const databaseFile = path.join(dir, 'junction.db');
    const seed = await openStore({ url: databaseFile });
    const env = await seed.environments.ensure('default');
    await seed.agents.create(env.id, { name: 'assistant' });
    await seed.close();
    const sink = await startSink(() => 200);
    const config = {
      webhook: { enabled: true, api_key: 'whk_readme_example_key', max_body_bytes: 1024 * 1024 },
      notifications: { webhook_url: `${sink.url}/alerts`, webhook_events: ['agent.failed'] },
    };
    const [host, port] = ['127.0.0.1', 0];
    // Stands in for the AgentRunner: every run fails, so agent.failed is sent.
    const runner = {
      execute: (run: Run) => store.runs.markFailed(run.id, { error: 'model unreachable' }),
    };

    // README-EXAMPLE-START
    const store = await openStore({ url: databaseFile });
    const logger = createLogger({ level: 'warn', format: 'json' });
    const notifier = createNotifier({
      store,
      logger,
      url: config.notifications.webhook_url,
      events: config.notifications.webhook_events,
      version: '0.1.0',
    });
    const workers = new RunWorkers({
      store,
      logger,
      runner,
      onFinished: (run) => notifier.runFinished(run),
    });
    // The one door for runs, with the model check every app uses (here: a key in the environment).
    const checkModel = createModelCheck(
      { ai_model: 'openai/gpt-4o-mini' },
      { OPENAI_API_KEY: 'sk-test' },
    );
    const runs = createRunDoor({ store, checkModel, dispatch: workers, endings: workers });

    const app = express();
    app.use(
      createWebhookRouter({
        store,
        runs,
        logger,
        enabled: config.webhook.enabled,
        keys: keyRing([config.webhook.api_key], { xApiKey: false }),
        maxBodyBytes: config.webhook.max_body_bytes,
      }),
    );
    app.use(webhookNotFoundHandler()); // unknown paths: JSON 404
    app.use(webhookErrorHandler(logger)); // anything else: JSON, never an HTML page
    await workers.start();
    const server = app.listen(port, host);

    async function shutdown(): Promise<void> {
      await new Promise((resolve) => server.close(resolve));
      await workers.stop({ drainMs: 10_000 });
      await notifier.close(); // waits (bounded) for deliveries in flight
      await store.close();
      await logger.close();
    }
    // README-EXAMPLE-END

    try {
      await new Promise((resolve) => server.once('listening', resolve));
      const { port: bound } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${bound}/execute`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: 'Bearer whk_readme_example_key',
          'idempotency-key': 'evt-123',
        },
        body: JSON.stringify({ agent_name: 'assistant', task: 'Open a ticket' }),
      });
      expect(res.status).toBe(202);
      const accepted = (await res.json()) as { run_id: number; status: string };
      expect(accepted.status).toBe('running');
      await runs.waitFor(accepted.run_id, { timeoutMs: 5000 });
    } finally {
      await shutdown();
      await sink.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(sink.requests.map((r) => JSON.parse(r.body).event)).toEqual(['agent.failed']);

    const { example, readme } = readmeExample(import.meta.url);
    expect(example.split('\n').length).toBeGreaterThan(10);
    expect(readme).toContain(example);
  });
});
