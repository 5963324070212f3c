// The callbacks given to page.evaluate run in the browser: they see the DOM.
/// <reference lib="dom" />
// The built UI in Debian's Chromium (playwright-core) against a fake Junction on 127.0.0.1:
// the live runs list, a run's tool calls and trace link, the waterfall by keyboard, an approval,
// sign-in on 401, dark mode, the trace viewer mode; nothing is fetched from anywhere else.
// Screenshots go to reports/screenshots/<page>.png.
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chromium, type Browser, type Page } from 'playwright-core';
import { buildUi, PACKAGE_ROOT } from './fixtures/build-ui.js';
import { API_KEY, FakeJunction, TRACE_ID } from './fixtures/fake-junction.js';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = path.join(PACKAGE_ROOT, 'reports', 'screenshots');
const haveChromium = existsSync(CHROMIUM);

if (!haveChromium) {
  console.warn(
    `\n\n!!!!!!!! web-ui browser smoke test SKIPPED: ${CHROMIUM} is missing (apt-get install chromium) !!!!!!!!\n\n`,
  );
}

const describeInBrowser = haveChromium ? describe : describe.skip;

describeInBrowser('the dashboard and trace viewer in Chromium', () => {
  let uiDir: string;
  let browser: Browser;
  let dashboard: FakeJunction;
  let viewer: FakeJunction;
  const requested: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    uiDir = buildUi();
    dashboard = new FakeJunction(
      uiDir,
      () => ({
        mode: 'dashboard',
        viewer_url: viewer.origin,
        dashboard_url: null,
        version: '0.1.0-test',
      }),
      '/ui',
    );
    viewer = new FakeJunction(
      uiDir,
      () => ({
        mode: 'viewer',
        viewer_url: null,
        dashboard_url: dashboard.origin,
        version: '0.1.0-test',
      }),
      '/',
    );
    await dashboard.start();
    await viewer.start();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox'],
    });
    mkdirSync(SHOTS, { recursive: true });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await dashboard?.stop();
    await viewer?.stop();
    if (uiDir) rmSync(uiDir, { recursive: true, force: true });
  });

  async function openPage(colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 720 },
      colorScheme,
      locale: 'en-GB',
      timezoneId: 'UTC',
    });
    const page = await context.newPage();
    page.setDefaultTimeout(5000);
    page.on('request', (request) => requested.push(request.url()));
    page.on('pageerror', (error) => pageErrors.push(error.message));
    return page;
  }

  async function shot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  }

  /** Waits for the page's h1 to read `text` and for its loading placeholders to go. */
  async function heading(page: Page, text: string): Promise<void> {
    await page.locator('h1', { hasText: text }).waitFor();
    await page.locator('.loading').first().waitFor({ state: 'detached' });
    expect(await page.locator('h1').textContent()).toBe(text);
  }

  async function expectNoSideScroll(page: Page): Promise<void> {
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
  }

  const ui = (hash = ''): string => `${dashboard.origin}/ui/${hash}`;

  it('lists runs from the stream and adds the run a second message brings', async () => {
    const page = await openPage();
    await page.goto(ui());
    await heading(page, 'Runs');
    await page.locator('[data-live="on"]').waitFor();
    expect(
      await page
        .locator('tr[data-run-id]')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run-id'))),
    ).toEqual(['12', '11', '10']);
    expect(await page.locator('tr[data-run-id="11"]').getAttribute('data-status')).toBe('error');
    expect(await page.locator('tr[data-run-id="12"]').textContent()).toContain('$0.0012');
    expect(await page.locator('nav a[aria-current="page"]').textContent()).toBe('Runs');

    await dashboard.pushNewRun();
    await page.locator('tr[data-run-id="13"][data-status="queued"]').waitFor();
    expect(await page.locator('tr[data-run-id]').count()).toBe(4);
    expect(await page.locator('[data-live]').getAttribute('data-live')).toBe('on');
    await expectNoSideScroll(page);
    await shot(page, 'runs');

    // Filters go into the hash and the stream is asked again with them.
    await page.getByLabel('Status').selectOption('error');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/#\/runs\?status=error$/);
    await page.locator('[data-live="on"]').waitFor();
    expect(dashboard.requests.some((r) => r.url === '/api/v1/runs/stream?status=error')).toBe(true);
    await page.close();
  });

  it('shows a run with its tool calls, as text, and links its trace', async () => {
    const page = await openPage();
    await page.goto(ui('#/runs'));
    await page.locator('tr[data-run-id="12"] a').click();
    await heading(page, 'Run 12');
    const read = page.locator('[data-tool-call="read_file"]');
    expect(await read.textContent()).toContain('/srv/notes/answer.txt');
    expect(await read.textContent()).toContain('"content": "The answer is 42."');
    const search = page.locator('[data-tool-call="search"]');
    expect(await search.textContent()).toContain('timed out after 5 s');
    // Markup from the API is shown as text, never run.
    expect(await search.textContent()).toContain('<script>alert(1)</script>');
    expect(await page.locator('main script').count()).toBe(0);
    expect(await page.locator('[data-trace-link]').getAttribute('href')).toBe(
      `#/traces/${TRACE_ID}`,
    );
    expect(
      await page.getByRole('link', { name: 'Open in trace viewer' }).getAttribute('href'),
    ).toBe(`${viewer.origin}/#/traces/${TRACE_ID}`);
    expect(await page.locator('.facts').first().textContent()).toContain('$0.0012');
    // What started it: a workflow run's step, linked.
    expect(await page.getByRole('link', { name: 'Run 5, step ask#1' }).getAttribute('href')).toBe(
      '#/workflow-runs/5',
    );
    // Its attempts: which worker ran which steps, and why the first one ended.
    expect(await page.getByRole('heading', { name: 'Attempts (2)' }).count()).toBe(1);
    const attempt = async (n: number): Promise<string[]> =>
      page.locator(`tr[data-attempt="${n}"] > *`).allTextContents();
    expect(await attempt(1)).toEqual([
      '1',
      'host-a:4242:ab12',
      'from the start',
      expect.any(String),
      expect.any(String),
      'process lost',
    ]);
    expect(await attempt(2)).toEqual([
      '2',
      'host-b:77:cd34',
      'from step 2',
      expect.any(String),
      '—',
      'completed',
    ]);
    expect(await page.getByRole('button', { name: 'Cancel run' }).count()).toBe(0);
    await expectNoSideScroll(page);
    await shot(page, 'run');

    await page.locator('[data-trace-link]').click();
    await heading(page, 'Trace a1b2c3d4…');
    expect(await page.locator('nav a[aria-current="page"]').textContent()).toBe('Traces');

    // A running run can be cancelled; the page keeps reading it until it has ended.
    await page.goto(ui('#/runs/10'));
    await heading(page, 'Run 10');
    // A run of one attempt has no attempts section.
    expect(await page.getByRole('heading', { name: /^Attempts/ }).count()).toBe(0);
    expect(await page.locator('[data-run-status]').textContent()).toBe('running');
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await page.locator('[data-run-status="cancelled"]').waitFor();
    expect(await page.getByRole('button', { name: 'Cancel run' }).count()).toBe(0);
    expect(
      dashboard.requests.some((r) => r.method === 'POST' && r.url === '/api/v1/runs/10/cancel'),
    ).toBe(true);
    await page.close();
  });

  it('draws the trace as a nested waterfall that opens rows with Enter and Space', async () => {
    const page = await openPage();
    await page.goto(ui(`#/traces/${TRACE_ID}`));
    await heading(page, 'Trace a1b2c3d4…');
    const rows = await page
      .locator('[data-span-name]')
      .evaluateAll((els) =>
        els.map((el) => [
          el.getAttribute('data-span-name'),
          el.getAttribute('data-depth'),
          el.getAttribute('data-status'),
        ]),
      );
    expect(rows).toEqual([
      ['agent.execute', '0', 'ok'],
      ['llm.generate', '1', 'ok'],
      ['tool.call read_file', '1', 'ok'],
      ['tool.call search', '1', 'error'],
      ['http.request', '2', 'error'],
      ['llm.generate', '1', 'unset'],
    ]);
    const rootBar = page.locator('[data-span-name="agent.execute"] .wf-bar');
    expect(
      await rootBar.evaluate((el) => [
        (el as HTMLElement).style.left,
        (el as HTMLElement).style.width,
      ]),
    ).toEqual(['0%', '100%']);
    // Error rows say so in words, not only in red.
    expect(await page.locator('[data-span-name="http.request"]').textContent()).toContain('error');

    const search = page.locator('[data-span-name="tool.call search"]');
    await search.focus();
    expect(await search.getAttribute('aria-expanded')).toBe('false');
    await page.keyboard.press('Enter');
    expect(await search.getAttribute('aria-expanded')).toBe('true');
    const panel = page.locator(`#${await search.getAttribute('aria-controls')}`);
    expect(await panel.isVisible()).toBe(true);
    expect(await panel.textContent()).toContain('timed out after 5 s');
    expect(await panel.textContent()).toContain('tool.name');

    const http = page.locator('[data-span-name="http.request"]');
    await http.focus();
    await page.keyboard.press('Space');
    expect(await http.getAttribute('aria-expanded')).toBe('true');
    await page.keyboard.press('Enter');
    expect(await http.getAttribute('aria-expanded')).toBe('false');

    await page.locator('[data-span-name="agent.execute"]').click();
    expect(await page.getByRole('link', { name: 'Run 12' }).first().getAttribute('href')).toBe(
      '#/runs/12',
    );
    await expectNoSideScroll(page);
    await search.scrollIntoViewIfNeeded();
    await shot(page, 'trace');
    await page.close();
  });

  it('is usable from the keyboard: Tab reaches the navigation with a visible focus ring', async () => {
    const page = await openPage();
    await page.goto(ui('#/runs'));
    await heading(page, 'Runs');
    const focused: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      await page.keyboard.press('Tab');
      const where = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        return el?.closest('nav') ? `nav:${el.textContent}` : (el?.id ?? el?.tagName ?? '');
      });
      focused.push(where);
      if (where.startsWith('nav:')) break;
    }
    expect(focused[0]).toBe('skip-link');
    expect(focused.at(-1)).toBe('nav:Runs');
    const outline = await page.evaluate(
      () => getComputedStyle(document.activeElement as Element).outlineStyle,
    );
    expect(outline).toBe('solid');
    await page.close();
  });

  it('approves an approval with a comment and shows its new status', async () => {
    const page = await openPage();
    await page.goto(ui('#/approvals/3'));
    await heading(page, 'Approval 3');
    expect(await page.locator('[data-approval-status]').textContent()).toBe('pending');
    await page.getByLabel('Comment').fill('Severity is high: page them.');
    await expectNoSideScroll(page);
    await shot(page, 'approval');
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    await page.locator('[data-approval-status]', { hasText: 'approved' }).waitFor();
    expect(dashboard.decisions).toEqual([
      { approvalId: '3', decision: 'approve', body: { comment: 'Severity is high: page them.' } },
    ]);
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await page.locator('#status', { hasText: 'approved' }).waitFor();
    await shot(page, 'approval-decided');
    await page.close();
  });

  it('shows every other page, and starts a run from the form', async () => {
    const page = await openPage();
    const pages: Array<[string, string, string]> = [
      ['#/agents', 'Agents', 'agents'],
      ['#/agents/1', 'Agent assistant', 'agent'],
      ['#/workflows', 'Workflows', 'workflows'],
      ['#/workflows/1', 'Workflow Incident triage', 'workflow'],
      ['#/workflow-runs/5', 'Workflow run 5', 'workflow-run'],
      ['#/approvals', 'Approvals', 'approvals'],
      ['#/schedules', 'Schedules', 'schedules'],
      ['#/environments', 'Environments', 'environments'],
      ['#/traces', 'Traces', 'traces'],
    ];
    for (const [hash, title, name] of pages) {
      await page.goto(ui(hash));
      await heading(page, title);
      await expectNoSideScroll(page);
      await shot(page, name);
      switch (name) {
        case 'agents':
          expect(
            await page.getByRole('link', { name: 'Run assistant (default)' }).getAttribute('href'),
          ).toBe('#/new-run?agent=assistant&environment=default');
          break;
        case 'agent':
          expect(await page.locator('main').textContent()).toContain('read_file');
          expect(await page.locator('tr[data-run-id]').count()).toBe(2);
          break;
        case 'workflow':
          expect(await page.locator('svg.diagram g.node').count()).toBe(5);
          expect(await page.locator('svg.diagram .node-start').getAttribute('data-state')).toBe(
            'classify',
          );
          expect(await page.locator('svg.diagram .node-approval').getAttribute('data-state')).toBe(
            'approve',
          );
          break;
        case 'workflow-run':
          expect(await page.locator('.timeline-table .bar').count()).toBe(3);
          break;
        case 'environments':
          expect(await page.locator('[data-mcp-server="fs"]').getAttribute('data-status')).toBe(
            'connected',
          );
          expect(await page.locator('[data-mcp-server="web"]').textContent()).toContain(
            'ECONNREFUSED',
          );
          break;
        case 'traces':
          expect(await page.locator('tr[data-trace-id]').count()).toBe(2);
          expect(
            await page.locator(`tr[data-trace-id="${TRACE_ID}"] a[href="#/runs/12"]`).count(),
          ).toBe(1);
          await page.getByLabel('Service').selectOption('mcp-fs');
          expect(await page.getByLabel('Operation').locator('option').allTextContents()).toEqual([
            'Any operation',
            'fs.read',
          ]);
          break;
        default:
          break;
      }
    }

    // An API error is shown in the alert region with the server's message.
    await page.goto(ui('#/runs/999'));
    await page
      .locator('[role="alert"]', { hasText: 'No run has id 999. (RUN_NOT_FOUND)' })
      .waitFor();

    await page.goto(ui('#/new-run?agent=triage&environment=ops'));
    await heading(page, 'New run');
    expect(await page.getByLabel('Agent').inputValue()).toBe('triage');
    expect(await page.getByLabel('Environment').inputValue()).toBe('ops');
    await page.getByLabel('Task').fill('Summarise the incident');
    await page.getByLabel('Variables').fill('city=Paris\nmode=fast');
    await shot(page, 'new-run');
    await page.getByRole('button', { name: 'Start run' }).click();
    await heading(page, 'Run 14');
    expect(dashboard.submitted).toEqual([
      {
        agent_name: 'triage',
        environment: 'ops',
        task: 'Summarise the incident',
        variables: { city: 'Paris', mode: 'fast' },
      },
    ]);
    await page.close();
  });

  it('says a trace was never kept instead of an error and Loading… forever', async () => {
    const page = await openPage();
    const never = 'f'.repeat(32);
    await page.goto(ui(`#/traces/${never}`));
    await page.locator('[data-no-trace]').waitFor();
    expect(await page.locator('[data-no-trace] p').first().textContent()).toBe(
      'No trace kept for this run.',
    );
    expect(await page.locator('.loading').count()).toBe(0);
    expect((await page.locator('#alert').textContent())?.trim()).toBe('');
    await shot(page, 'trace-not-kept');
    await page.close();
  });

  it('breaks tool names and paths only after their separators in narrow columns', async () => {
    const page = await openPage();
    await page.setViewportSize({ width: 360, height: 720 });
    await page.goto(ui('#/agents/1'));
    await heading(page, 'Agent assistant');
    const long = page.locator('[data-tool="filesystem_read_multiple_files_with_metadata"]');
    await long.waitFor();
    // Each part between separators is on one line (an inline box split over lines has more
    // than one rect); the name as a whole does break (the column is narrow).
    const lines = await page.evaluate(() => {
      const code = document.querySelector(
        '[data-tool="filesystem_read_multiple_files_with_metadata"]',
      ) as HTMLElement;
      const parts = Array.from(code.querySelectorAll('.token-part'), (part) => ({
        text: part.textContent,
        lines: part.getClientRects().length,
      }));
      return { parts, whole: new Set(Array.from(code.getClientRects(), (r) => r.top)).size };
    });
    expect(lines.whole).toBeGreaterThan(1);
    expect(lines.parts.filter((p) => p.lines !== 1)).toEqual([]);
    expect(lines.parts.map((p) => p.text)).toEqual([
      'filesystem',
      'read',
      'multiple',
      'files',
      'with',
      'metadata',
    ]);
    expect(await long.getAttribute('title')).toBe('filesystem_read_multiple_files_with_metadata');
    await shot(page, 'agent-narrow');
    await page.close();
  });

  it('switches to dark mode with the toggle and remembers it', async () => {
    const page = await openPage('light');
    await page.goto(ui('#/runs'));
    await heading(page, 'Runs');
    const background = (): Promise<string> =>
      page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(await background()).toBe('rgb(255, 255, 255)');
    expect(await page.locator('#theme-toggle').textContent()).toBe('Dark mode');
    await page.locator('#theme-toggle').click();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    // The control names the theme it switches to (it said "Dark mode" in dark mode too).
    expect(await page.locator('#theme-toggle').textContent()).toBe('Light mode');
    expect(await background()).toBe('rgb(13, 17, 23)');
    await page.reload();
    await heading(page, 'Runs');
    expect(await page.evaluate(() => localStorage.getItem('junction.theme'))).toBe('dark');
    expect(await background()).toBe('rgb(13, 17, 23)');
    await page.locator('tr[data-run-id]').first().waitFor();
    await shot(page, 'runs-dark');
    for (const [hash, title, name] of [
      ['#/runs/12', 'Run 12', 'run-dark'],
      [`#/traces/${TRACE_ID}`, 'Trace a1b2c3d4…', 'trace-dark'],
      ['#/workflows/1', 'Workflow Incident triage', 'workflow-dark'],
      ['#/environments', 'Environments', 'environments-dark'],
      ['#/approvals', 'Approvals', 'approvals-dark'],
    ] as const) {
      await page.goto(ui(hash));
      await heading(page, title);
      if (name === 'trace-dark') await page.locator('[data-span-name="tool.call search"]').click();
      await shot(page, name);
    }
    await page.close();

    // Without a choice, the system's dark preference applies.
    const darkSystem = await openPage('dark');
    await darkSystem.goto(ui('#/agents'));
    await heading(darkSystem, 'Agents');
    expect(await darkSystem.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(
      'rgb(13, 17, 23)',
    );
    expect(await darkSystem.locator('#theme-toggle').textContent()).toBe('Light mode');
    await shot(darkSystem, 'agents-dark');
    await darkSystem.close();
  });

  it('asks for the API key on a 401, then retries every request with the Bearer key', async () => {
    dashboard.requireKey = API_KEY;
    try {
      const page = await openPage();
      await page.goto(ui('#/runs'));
      await heading(page, 'Sign in');
      const input = page.getByLabel('API key');
      expect(await input.getAttribute('type')).toBe('password');
      await shot(page, 'sign-in');

      await input.fill('sk-wrong');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByText('The server refused the API key').waitFor();

      const before = dashboard.requests.length;
      await page.getByLabel('API key').fill(API_KEY);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await heading(page, 'Runs');
      await page.locator('tr[data-run-id]').first().waitFor();
      const stream = dashboard.requests
        .slice(before)
        .find((r) => r.url.startsWith('/api/v1/runs/stream'));
      expect(stream?.authorization).toBe(`Bearer ${API_KEY}`);
      expect(await page.evaluate(() => sessionStorage.getItem('junction.apiKey'))).toBe(API_KEY);
      expect(await page.evaluate(() => Object.keys(localStorage))).not.toContain('junction.apiKey');

      await page.goto(ui('#/agents'));
      await heading(page, 'Agents');
      await page.getByRole('button', { name: 'Sign out' }).click();
      await heading(page, 'Sign in');
      expect(await page.evaluate(() => sessionStorage.getItem('junction.apiKey'))).toBeNull();
      expect(requested.filter((url) => url.includes(API_KEY))).toEqual([]);
      await page.close();
    } finally {
      dashboard.requireKey = null;
    }
  });

  it('has only the trace pages in viewer mode, and links runs to the dashboard', async () => {
    const page = await openPage();
    await page.goto(`${viewer.origin}/`);
    await heading(page, 'Traces');
    expect(await page.locator('nav a').allTextContents()).toEqual(['Traces']);
    expect(await page.getByRole('link', { name: 'Dashboard' }).getAttribute('href')).toBe(
      `${dashboard.origin}/ui/`,
    );
    expect(
      await page
        .locator(`tr[data-trace-id="${TRACE_ID}"] a`, { hasText: '12' })
        .getAttribute('href'),
    ).toBe(`${dashboard.origin}/ui/#/runs/12`);
    await shot(page, 'viewer-traces');
    await page.locator(`tr[data-trace-id="${TRACE_ID}"] a`).first().click();
    await heading(page, 'Trace a1b2c3d4…');
    await page.locator('[data-span-name="agent.execute"]').press('Enter');
    expect(await page.getByRole('link', { name: 'Run 12' }).first().getAttribute('href')).toBe(
      `${dashboard.origin}/ui/#/runs/12`,
    );
    await shot(page, 'viewer-trace');
    await page.goto(`${viewer.origin}/#/runs/12`);
    await heading(page, 'Page not found');
    await page.close();
  });

  it('never requested anything outside 127.0.0.1 and raised no page errors', () => {
    expect(requested.length).toBeGreaterThan(50);
    expect(requested.filter((url) => !url.startsWith('http://127.0.0.1:'))).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
