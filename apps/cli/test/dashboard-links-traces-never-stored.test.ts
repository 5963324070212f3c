// The dashboard against a real `junction serve` in Debian's chromium (issue 31): a run made by
// `agent run` before any serve links to a trace that was never stored, and its page showed an
// error and "Loading…" forever (it says no trace was kept); the Environments page showed
// "Last synced —" for servers a sync had connected (it shows the time).
import { existsSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { runCliAsync, syncedWorkspace } from './run-cli.js';
import { startServe, type ServeProcess } from './serve-process.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) {
  console.warn(
    `\n*** dashboard browser test SKIPPED: ${CHROMIUM} is missing (apt-get install chromium). ***\n`,
  );
}
const describeBrowser = haveChromium ? describe : describe.skip;

let fake: FakeOpenAI;
let env: NodeJS.ProcessEnv;
let serve: ServeProcess | undefined;
let browser: Browser | undefined;
let page: Page;
let api: string;
let runId: number;

beforeAll(async () => {
  if (!haveChromium) return;
  fake = await startFakeOpenAI({});
  env = await syncedWorkspace({
    modelUrl: fake.url,
    env: { OPENAI_API_KEY: 'sk-no-trace-1234567' },
  });
  // A run before any serve: nothing keeps its spans.
  fake.script([{ text: 'Hello.' }]);
  const ran = await runCliAsync(['agent', 'run', 'assistant', 'Say hello', '--json'], env);
  expect(ran.status).toBe(0);
  runId = (JSON.parse(ran.stdout) as { run_id: number }).run_id;
  serve = await startServe(env);
  await serve.ready;
  api = `http://127.0.0.1:${serve.ports.api}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu'],
  });
  page = await (await browser.newContext({ viewport: { width: 1280, height: 720 } })).newPage();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  if (serve) {
    serve.child.kill('SIGTERM');
    await serve.exit;
  }
  await fake?.close();
  if (env?.XDG_CONFIG_HOME) rmSync(String(env.XDG_CONFIG_HOME), { recursive: true, force: true });
});

describeBrowser('the dashboard of a workspace used before serve', () => {
  it('says no trace was kept for a run whose spans were never stored', async () => {
    const run = (await (await fetch(`${api}/api/v1/runs/${runId}`)).json()) as {
      trace_id: string | null;
    };
    expect(run.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect((await fetch(`${api}/api/v1/traces/${run.trace_id}`)).status).toBe(404);

    await page.goto(`${api}/ui/#/runs/${runId}`);
    await page.locator('[data-trace-link]').click();
    await page.locator('[data-no-trace]').waitFor();
    expect(await page.locator('[data-no-trace] p').first().textContent()).toBe(
      'No trace kept for this run.',
    );
    expect(await page.locator('.loading').count()).toBe(0);
    expect((await page.locator('#alert').textContent())?.trim()).toBe('');
  });

  it('shows when each server a sync connected was last synced', async () => {
    const servers = (await (await fetch(`${api}/api/v1/mcp-servers`)).json()) as {
      mcp_servers: Array<{ name: string; status: string; last_synced_at: string | null }>;
    };
    const calc = servers.mcp_servers.find((s) => s.name === 'calc');
    expect(calc).toMatchObject({
      status: 'connected',
      last_synced_at: expect.stringMatching(/^\d{4}-/),
    });

    await page.goto(`${api}/ui/#/environments`);
    const row = page.locator('tr[data-mcp-server="calc"]');
    await row.waitFor();
    const table = page.locator('table', { has: row });
    const headers = await table.locator('thead th').allTextContents();
    const cells = await row.locator('th, td').allTextContents();
    const cell = (name: string): string | undefined => cells[headers.indexOf(name)];
    expect(cell('Status')).toContain('connected');
    expect(cell('Last synced')).not.toBe('—');
    expect(cell('Last synced')).toMatch(/\d{4}/);
  });
});
