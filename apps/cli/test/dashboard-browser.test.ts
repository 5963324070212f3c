// The dashboard and trace viewer in a real browser (issue 19): Debian's chromium driven by
// playwright-core against a real `junction serve` with the fake model and the fixture MCP server.
// A run appears live on the runs page; its page shows its tool call and links to its trace; the
// trace page shows the nested spans; an approval is approved from its page and the workflow
// goes on; the viewer on its own port shows the same trace. A screenshot of each page is kept in
// apps/cli/reports/screenshots/.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { startFakeOpenAI, type FakeOpenAI } from '@junction/tooling/fixtures/fake-openai.mjs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { runCliAsync, syncedWorkspace } from './run-cli.js';
import { startServe, until, type ServeProcess } from './serve-process.js';

const CHROMIUM = '/usr/bin/chromium';
const KEY = 'sk-dashboard-browser-key-12345';
const API_KEY = 'dashboard-api-key-0123456789';
const SHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../reports/screenshots');

const REVIEW = `id: review
name: Review and ship
start: draft
states:
  - id: draft
    type: agent
    agent: assistant
    task: "Write one line"
    resultPath: draft
    transition: approve
  - id: approve
    type: human_approval
    message: "Ship the line?"
    timeout_seconds: 600
    transition: ship
  - id: ship
    type: transform
    expression: '{"shipped": draft.response}'
    end: true
`;

const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) {
  console.warn(
    `\n*** dashboard browser tests SKIPPED: ${CHROMIUM} is missing. Install Debian's chromium (apt-get install chromium); scripts/test.sh does this itself. ***\n`,
  );
}
const describeBrowser = haveChromium ? describe : describe.skip;

let fake: FakeOpenAI;
let env: NodeJS.ProcessEnv;
let serve: ServeProcess;
let browser: Browser;
let page: Page;
let api: string;
const outside: string[] = [];

async function rest<T>(
  pathname: string,
  init: RequestInit = {},
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${api}${pathname}`, {
    ...init,
    headers: {
      authorization: `Bearer ${API_KEY}`,
      ...(init.body ? { 'content-type': 'application/json' } : {}),
    },
  });
  return { status: res.status, body: (await res.json()) as T };
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

beforeAll(async () => {
  if (!haveChromium) return;
  mkdirSync(SHOTS, { recursive: true });
  fake = await startFakeOpenAI({});
  env = await syncedWorkspace({
    modelUrl: fake.url,
    env: { OPENAI_API_KEY: KEY, JUNCTION_API_KEY: API_KEY },
  });
  const workflows = path.join(
    String(env.XDG_CONFIG_HOME),
    'junction/environments/default/workflows',
  );
  mkdirSync(workflows, { recursive: true });
  writeFileSync(path.join(workflows, 'review.workflow.yaml'), REVIEW);
  const synced = await runCliAsync(['sync', 'default'], env);
  if (synced.status !== 0) throw new Error(`sync failed: ${synced.stderr}`);
  serve = await startServe(env);
  await serve.ready;
  api = `http://127.0.0.1:${serve.ports.api}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu'],
  });
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  page = await context.newPage();
  // Nothing the pages load may leave this machine.
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.hostname !== '127.0.0.1' && url.protocol !== 'data:') outside.push(request.url());
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (serve) {
    serve.child.kill('SIGTERM');
    await serve.exit;
  }
  await fake?.close();
});

/** Signs in on the dashboard's key form (the API has keys). */
async function signIn(): Promise<void> {
  const key = page.getByLabel('API key');
  await key.waitFor({ timeout: 10_000 });
  await key.fill(API_KEY);
  await key.press('Enter');
}

jest.setTimeout(90_000);

describeBrowser('the dashboard in Chromium against a real serve', () => {
  it('serves its page without a key, asks for one, and shows a run appearing live', async () => {
    await page.goto(`${api}/ui/#/runs`);
    await signIn();
    await page.getByRole('heading', { level: 1, name: 'Runs' }).waitFor();
    await page.locator('[data-live="on"]').waitFor({ timeout: 10_000 });

    fake.script([
      { toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }] },
      { text: 'The sum is 5.' },
    ]);
    const queued = await rest<{ run_id: number }>('/api/v1/runs', {
      method: 'POST',
      body: JSON.stringify({ agent_name: 'assistant', task: 'Add 2 and 3' }),
    });
    expect(queued.status).toBe(202);
    const runId = queued.body.run_id;
    // The row comes from the stream: the page is never reloaded.
    await page.locator(`[data-run-id="${runId}"][data-status="completed"]`).waitFor({
      timeout: 20_000,
    });
    await shot('runs');
    expect(outside).toEqual([]);
  });

  it('shows a run with its tool call and cost, and links to its trace with nested spans', async () => {
    page.setDefaultTimeout(15_000);
    const runs = await rest<{ items: Array<{ run_id: number; trace_id: string | null }> }>(
      '/api/v1/runs?limit=1',
    );
    const run = runs.body.items[0]!;
    await page.goto(`${api}/ui/#/runs/${run.run_id}`);
    await page.getByRole('heading', { level: 1, name: `Run ${run.run_id}` }).waitFor();
    await page.locator('[data-tool-call="add"]').waitFor();
    await expect(page.locator('[data-tool-call="add"]').innerText()).resolves.toContain('5');
    await shot('run');

    // Junction's own spans reach the store in batches, and the root span ends (so is sent)
    // last: wait until the whole trace is there, root included, before the page reads it.
    await until('the run trace stored with its root span', async () => {
      const trace = await rest<{ spans: Array<{ name: string; parent_span_id: string | null }> }>(
        `/api/v1/traces/${run.trace_id}`,
      );
      const names = trace.status === 200 ? trace.body.spans.map((s) => s.name) : [];
      return names.includes('agent.execute') &&
        names.includes('tool.call') &&
        names.includes('llm.generate')
        ? true
        : undefined;
    });
    await page.locator('[data-trace-link]').click();
    await page.getByRole('heading', { level: 1, name: /^Trace / }).waitFor();
    const root = page.locator('[data-span-name="agent.execute"][data-depth="0"]');
    await root.waitFor();
    await page.locator('[data-span-name="tool.call"][data-depth="1"]').waitFor();
    await expect(
      page.locator('[data-span-name="llm.generate"][data-depth="1"]').count(),
    ).resolves.toBe(2);
    // Keyboard: a focused row opens its attributes with Enter.
    await root.focus();
    await root.press('Enter');
    await page.getByText('gen_ai.operation.name').first().waitFor();
    await shot('trace');
    expect(outside).toEqual([]);
  });

  it('approves an approval from its page with a comment, and the workflow goes on', async () => {
    fake.script([{ text: 'Junction ships dashboards.' }]);
    const started = await rest<{ workflow_run: { id: number } }>('/api/v1/workflows/review/runs', {
      method: 'POST',
      body: JSON.stringify({}),
    });
    expect([201, 202]).toContain(started.status);
    const workflowRunId = started.body.workflow_run.id;
    const approval = await until('the approval', async () => {
      const list = await rest<{
        approvals: Array<{ approval_id: string; workflow_run_id: number }>;
      }>('/api/v1/workflow-approvals?status=pending');
      return list.body.approvals.find((a) => a.workflow_run_id === workflowRunId);
    });
    await page.goto(`${api}/ui/#/approvals/${approval.approval_id}`);
    await page
      .getByRole('heading', { level: 1, name: `Approval ${approval.approval_id}` })
      .waitFor();
    await page.getByLabel('Comment').fill('Looks good from the browser');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.locator('[data-approval-status]', { hasText: 'approved' }).waitFor();
    await shot('approval');
    const done = await until('the workflow run completed', async () => {
      const run = await rest<{ workflow_run: { status: string; output: unknown } }>(
        `/api/v1/workflow-runs/${workflowRunId}`,
      );
      return run.body.workflow_run.status === 'completed' ? run.body.workflow_run : undefined;
    });
    expect(done.output).toEqual({ shipped: 'Junction ships dashboards.' });
    const decided = await rest<{ approval: { status: string; comment: string | null } }>(
      `/api/v1/workflow-approvals/${approval.approval_id}`,
    );
    expect(decided.body.approval).toMatchObject({
      status: 'approved',
      comment: 'Looks good from the browser',
    });
  });

  it('shows the other pages, and the viewer on its own port', async () => {
    for (const [hash, heading, name] of [
      ['#/agents', 'Agents', 'agents'],
      ['#/workflows', 'Workflows', 'workflows'],
      ['#/schedules', 'Schedules', 'schedules'],
      ['#/environments', 'Environments', 'environments'],
      ['#/new-run', 'New run', 'new-run'],
      ['#/traces', 'Traces', 'traces'],
    ] as const) {
      await page.goto(`${api}/ui/${hash}`);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      await shot(name);
    }
    await page.goto(`${api}/ui/#/environments`);
    await page.getByText('calc').first().waitFor();
    // The MCP server with its status and its tool.
    await expect(page.locator('main').innerText()).resolves.toMatch(/calc[\s\S]*connected/);
    await expect(page.locator('main').textContent()).resolves.toContain('add');

    const viewer = `http://127.0.0.1:${serve.ports.viewer}`;
    await page.goto(`${viewer}/#/traces`);
    await signIn();
    await page.getByRole('heading', { level: 1, name: 'Traces' }).waitFor();
    await page.locator('[data-trace-id]').first().waitFor({ timeout: 10_000 });
    await page.getByRole('link', { name: 'agent.execute' }).first().waitFor();
    await shot('viewer');
    // The viewer serves the trace routes only.
    const runsThere = await fetch(`${viewer}/api/v1/runs`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    expect(runsThere.status).toBe(404);
    expect(outside).toEqual([]);
  });
});
