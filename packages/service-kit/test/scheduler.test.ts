// The scheduler of a composed process, end to end on real parts: prompt and workflow files
// synced into a store file, a fake OpenAI-compatible model over HTTP, the scheduler firing on
// a real 6-field every-2-seconds cron, the runs executed by the process's workers, and a fire
// that cannot start a run reaching the alert webhook as scheduler.error.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from '@jest/globals';
import { McpClientPool } from '@junction/agent-core/mcp';
import { syncEnvironment } from '@junction/agent-core/sync';
import { loadConfig, resolvePaths, Workspace } from '@junction/config-templates';
import { openStore, type Store } from '@junction/store';
import { createLogger } from '@junction/telemetry';
import { syncWorkflows } from '@junction/workflows';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { composeService, type Composition } from '../src/index.js';
import { eventually } from '@junction/tooling/fixtures/eventually.mjs';

const KEY = 'sk-scheduler-test-key-000000';
let home: string;
let store: Store;
let service: Composition | undefined;
let fake: FakeOpenAI;
let sink: http.Server | undefined;
const alerts: Array<Record<string, unknown>> = [];

async function startSink(): Promise<string> {
  alerts.length = 0;
  sink = http.createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8').on('data', (d: string) => (text += d));
    req.on('end', () => {
      alerts.push(JSON.parse(text) as Record<string, unknown>);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => sink!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(sink.address() as AddressInfo).port}/alerts`;
}

/** A workspace with `files` in its default environment, synced, and a process composed on it. */
async function compose(files: Record<string, string>): Promise<void> {
  home = mkdtempSync(path.join(os.tmpdir(), 'junction-sched-kit-'));
  fake = await startFakeOpenAI();
  const sinkUrl = await startSink();
  const env = { XDG_CONFIG_HOME: home, OPENAI_API_KEY: KEY };
  const paths = resolvePaths(env);
  const workspace = new Workspace(paths);
  await workspace.init();
  const envDir = workspace.environmentDir('default');
  for (const f of readdirSync(path.join(envDir, 'agents'))) rmSync(path.join(envDir, 'agents', f));
  rmSync(path.join(envDir, 'filesystem.json'));
  mkdirSync(path.join(envDir, 'workflows'), { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(envDir, file), text);
  writeFileSync(
    paths.configFile,
    [
      `ai_base_url: ${fake.url}`,
      'notifications:',
      `  webhook_url: ${sinkUrl}`,
      '  webhook_events: [scheduler.error]',
      '',
    ].join('\n'),
  );
  store = await openStore({ url: path.join(home, 'junction.db') });
  const pool = new McpClientPool({});
  const report = await syncEnvironment({
    workspace,
    store,
    pool,
    environment: 'default',
    processEnv: {},
  });
  await pool.closeAll();
  if (!report.ok) throw new Error(`sync failed: ${JSON.stringify(report)}`);
  await syncWorkflows({ workspace, store, environment: 'default' });
  service = composeService({
    config: loadConfig({ paths, env }),
    store,
    logger: createLogger({
      level: 'error',
      format: 'json',
      env: {},
      stream: new Writable({ write: (_c, _e, done): void => done() }),
    }),
    env,
    version: '0.0.0-test',
    executes: true,
  });
  await service.start();
}

afterEach(async () => {
  await service?.stop(0);
  service = undefined;
  sink?.closeAllConnections();
  await new Promise((resolve) => sink?.close(resolve));
  await fake?.close();
  await store?.close();
  rmSync(home, { recursive: true, force: true });
});

const until = eventually;

describe('the scheduler of a composed process', () => {
  it("fires a prompt file's 6-field every-2-seconds schedule on time; the workers complete each run", async () => {
    await compose({
      'agents/ticker.prompt':
        '---\nmodel: openai/gpt-test\nschedule:\n  cron: "*/2 * * * * *"\n  task: Tick once\n---\n{{role "system"}}\nYou tick.\n{{role "user"}}\n{{userInput}}\n',
    });
    expect(service!.executor?.scheduler.status()).toBe('running');
    const runs = await until('two completed scheduled runs', async () => {
      const done = (await store.runs.list({ status: 'completed' })).filter(
        (r) => r.source === 'cron_scheduler',
      );
      return done.length >= 2 ? done : undefined;
    });
    for (const run of runs) {
      expect(run.task).toBe('Tick once');
      const scheduled = new Date(run.variables.scheduled_at ?? '').getTime();
      expect(scheduled % 2000).toBe(0); // an even second, as the cron says
      // Written within a second of its time.
      expect(run.queuedAt.getTime() - scheduled).toBeLessThan(1000);
      expect(run.queuedAt.getTime()).toBeGreaterThanOrEqual(scheduled);
    }
    const [schedule] = await store.schedules.list();
    expect(schedule).toMatchObject({ kind: 'agent', target: 'ticker', lastOutcome: 'started' });
  });

  it("starts a workflow whose cron trigger state is due, with the trigger's input", async () => {
    await compose({
      'workflows/nightly.workflow.yaml': `id: nightly
start: schedule
states:
  - name: schedule
    type: cron
    cron: "*/2 * * * * *"
    timezone: UTC
    input: {namespace: production}
    next: wrap
  - {id: wrap, type: transform, expression: '{"ns": namespace}', end: true}
`,
    });
    const run = await until('a scheduled workflow run completed', async () => {
      const [done] = await store.workflowRuns.list({ status: 'completed' });
      return done;
    });
    expect(run).toMatchObject({
      workflowKey: 'nightly',
      source: 'cron_scheduler',
      input: { namespace: 'production' },
      output: { ns: 'production' },
    });
  });

  it('sends scheduler.error to the alert webhook when a fire cannot start its run', async () => {
    await compose({
      'agents/keyless.prompt':
        '---\nmodel: anthropic/claude-3-5-haiku-latest\nschedule:\n  cron: "* * * * * *"\n---\n{{role "user"}}\n{{userInput}}\n',
    });
    const alert = await until('a scheduler.error alert', async () =>
      alerts.find((a) => a.event === 'scheduler.error'),
    );
    expect(alert).toMatchObject({
      event: 'scheduler.error',
      agent: { name: 'keyless' },
      schedule: { cron: '* * * * * *' },
    });
    expect(String(alert.error)).toContain('ANTHROPIC_API_KEY');
    expect(await store.runs.count()).toBe(0);
    const [schedule] = await store.schedules.list();
    expect(schedule).toMatchObject({ lastOutcome: 'failed' });
  });
});
