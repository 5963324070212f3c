import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { createModelCheck } from '@junction/agent-core/models';
import { keyRing } from '@junction/tooling/fixtures/key-ring.mjs';
import { createRunDoor, RunWorkers } from '@junction/agent-core/runs';
import type { RunExecutor } from '@junction/agent-core/runs';
import { openStore } from '@junction/store';
import { createLogger, createMetrics } from '@junction/telemetry';
import express from 'express';
import { createRestRouter } from '../src/index.js';
import { readmeExample } from '@junction/tooling/fixtures/readme-example.mjs';

describe('README example', () => {
  it('is the code below, verbatim, and it serves', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'junction-rest-readme-'));
    const databaseFile = path.join(dir, 'junction.db');
    const runner: RunExecutor = { execute: async (run) => run };
    const port = 0;
    process.env.JUNCTION_API_KEY = 'jk_readme_0123456789';
    try {
      // README-EXAMPLE-START
      const startedAt = new Date();
      const store = await openStore({ url: databaseFile });
      const logger = createLogger({ level: 'warn' });
      const metrics = createMetrics({ startTime: startedAt, logger });
      const workers = new RunWorkers({ store, runner, logger });
      const checkModel = createModelCheck({ ai_model: 'ollama/llama3.2' }, process.env);
      const runs = createRunDoor({ store, checkModel, dispatch: workers, endings: workers });
      const keys = keyRing([process.env.JUNCTION_API_KEY ?? '']);
      const version = '0.1.0';

      const app = express();
      app.disable('x-powered-by');
      app.use(createRestRouter({ store, runs, logger, metrics, version, startedAt, keys }));
      const server = app.listen(port, '127.0.0.1');
      // README-EXAMPLE-END
      await new Promise<void>((resolve) => server.once('listening', () => resolve()));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

      const health = await fetch(`${url}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'healthy', database: 'ok', agents: 0 });
      expect((await fetch(`${url}/api/v1/agents`)).status).toBe(401);
      const agents = await fetch(`${url}/api/v1/agents`, {
        headers: { authorization: 'Bearer jk_readme_0123456789' },
      });
      expect(await agents.json()).toEqual({ items: [], total: 0, limit: 50, offset: 0 });

      await new Promise<void>((resolve) => server.close(() => resolve()));
      await metrics.shutdown();
      await logger.close();
      await store.close();
    } finally {
      delete process.env.JUNCTION_API_KEY;
      fs.rmSync(dir, { recursive: true, force: true });
    }

    const { example, readme } = readmeExample(import.meta.url);
    expect(example.split('\n').length).toBeGreaterThan(10);
    expect(readme).toContain(example);
  });
});
