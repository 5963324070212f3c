import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { createModelCheck } from '@junction/agent-core/models';
import { createRunDoor, RunWorkers, type RunExecutor } from '@junction/agent-core/runs';
import { loadConfig, resolvePaths } from '@junction/config-templates';
import { openStore } from '@junction/store';
import { createLogger, createRedactor } from '@junction/telemetry';
import { eventually } from '@junction/tooling/fixtures/eventually.mjs';
import { startFakePlatform, TLS_FILES } from '@junction/tooling/fixtures/fake-platform.mjs';
import { createStation, ManagementChannel, managementSettings, RunReporter } from '../src/index.js';
import { readmeExample } from '@junction/tooling/fixtures/readme-example.mjs';

describe('README example', () => {
  it('is the code below, verbatim, and the station registers, runs and reports', async () => {
    const platform = await startFakePlatform();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'junction-mgmt-readme-'));
    const paths = resolvePaths({ XDG_CONFIG_HOME: dir });
    const configHome = paths.configHome;
    fs.mkdirSync(configHome, { recursive: true });
    fs.writeFileSync(
      paths.configFile,
      [
        'management:',
        '  enabled: true',
        `  endpoint: ${platform.address}`,
        `  ca_file: ${TLS_FILES.ca}`,
        '  registration_key: reg-good-key-0001',
        '  name: station-readme',
        '',
      ].join('\n'),
    );
    const config = loadConfig({ env: { XDG_CONFIG_HOME: dir }, paths });
    const store = await openStore({ url: paths.databaseFile });
    const agent = await store.agents.create((await store.environments.ensure('default')).id, {
      name: 'assistant',
    });
    const logger = createLogger({ level: 'warn' });
    // Stands in for the AgentRunner: answers at once.
    const runner: RunExecutor = {
      execute: (run, { workerId }) =>
        store.runs.markCompleted(run.id, { finalResponse: `done: ${run.task}`, workerId }),
    };
    const workers = new RunWorkers({ store, runner, logger });
    await workers.start();
    const checkModel = createModelCheck(
      { ai_model: 'openai/gpt-4o-mini' },
      { OPENAI_API_KEY: 'sk-test' },
    );
    const runs = createRunDoor({ store, checkModel, dispatch: workers, endings: workers });
    try {
      // README-EXAMPLE-START
      // management.endpoint, use_tls, ca_file, name, tags; the key from config or `junction auth login`.
      const settings = managementSettings(config, { configHome }); // or ManagementClientError
      const redactor = createRedactor(settings.key !== undefined ? [settings.key] : []);
      const channel = new ManagementChannel({
        settings,
        station: createStation({ store, runs, logger, redactor }),
        logger,
        version: '0.1.0',
      });
      const reporter = new RunReporter({
        store,
        channel,
        logger,
        version: '0.1.0',
        stationName: settings.name,
        environment: settings.environment,
        mode: 'DEPLOYMENT_MODE_SERVE',
        redactor,
      });
      reporter.start();
      channel.start(); // connects in the background, and reconnects until stopped
      // … later: channel.status() → { state: 'connected', stationId, orgId, lastSyncAt, … }

      async function shutdown(): Promise<void> {
        await reporter.stop();
        await channel.stop(); // the platform sees the station go
      }
      // README-EXAMPLE-END

      try {
        await eventually('registration', () => channel.status().state === 'connected');
        expect(channel.status()).toMatchObject({
          platform: platform.address,
          stationName: 'station-readme',
          stationId: expect.stringMatching(/^station-/),
          orgId: 'org-test',
          lastSyncAt: expect.any(Date),
        });
        expect(platform.auths[0]?.auth).toMatchObject({
          registration_key: 'reg-good-key-0001',
          name: 'station-readme',
          version: '0.1.0',
          agents: [expect.objectContaining({ name: 'assistant' })],
        });
        // Reporting starts from the first connection (the reporter woke on it).
        await reporter.idle();

        // The platform has the station run its agent, through the run door.
        const done = (r: { execute_agent_response?: { status?: string } }): boolean =>
          r.execute_agent_response?.status === 'EXECUTION_COMPLETED';
        const task = { agent_id: String(agent.id), task: 'Say hi', run_id: 'plat-run-1' };
        const reply = await platform.request('execute_agent_request', task, {
          until: done,
          timeoutMs: 30_000,
        });
        expect(reply.execute_agent_response).toMatchObject({ status: 'EXECUTION_COMPLETED' });
        const [run] = await store.runs.list();
        expect(run).toMatchObject({ source: 'management', status: 'completed' });

        // A run that finished is reported once (here woken at once, else within pollMs).
        reporter.wake();
        await eventually('the run report', () => platform.runReports.length === 1);
        expect(platform.runReports[0]).toMatchObject({ via: 'unary', accepted: true });
      } finally {
        await shutdown();
      }
      await eventually('the station gone', () => platform.stations().length === 0);
      expect(channel.status().state).toBe('error');
    } finally {
      await workers.stop({ drainMs: 5_000 });
      await logger.close();
      await store.close();
      await platform.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }

    const { example, readme } = readmeExample(import.meta.url);
    expect(example.split('\n').length).toBeGreaterThan(10);
    expect(readme).toContain(example);
  });
});
