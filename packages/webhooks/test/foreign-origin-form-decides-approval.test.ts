// With no webhook key, a page served from any other localhost port could approve a workflow step
// by making the browser POST the approval form (Origin http://localhost:9999 was accepted). A
// browser's decision is now taken only from the server's own origin — host and port.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { Approval } from '@junction/store';
import { createWorkflowDoor } from '@junction/workflows';
import { openFixture, startWebhookApp, type Fixture, type Listening } from './helpers.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

let fx: Fixture;
let app: Listening;

beforeEach(async () => {
  fx = await openFixture();
  const door = createWorkflowDoor({ store: fx.store, publicUrl: 'http://127.0.0.1:8587' });
  app = await startWebhookApp(fx, { workflows: door }); // no webhook key: the port is open
});
afterEach(async () => {
  await app.close();
  await fx.close();
});

async function pending(approvalId: string): Promise<Approval> {
  const run = await fx.store.workflowRuns.create({
    workflowKey: 'release',
    workflowName: 'Release',
    source: 'cli',
    status: 'waiting_approval',
  });
  return fx.store.approvals.create({
    approvalId,
    workflowRunId: run.id,
    stepName: 'confirm_release',
    message: 'Ship it?',
    timeoutSeconds: 3600,
  });
}

/** The Approve button's target on the approval page, as a browser would resolve it. */
async function approveTarget(approvalId: string): Promise<string> {
  const page = await fetch(`${app.url}/workflow-approvals/${approvalId}`, {
    headers: { accept: BROWSER_ACCEPT },
  });
  const action = /<form method="post" action="([^"]*)">/.exec(await page.text())?.[1];
  if (action === undefined) throw new Error('the approval page has no form');
  return new URL(
    action.replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c))),
    app.url,
  ).href;
}

/** The form POST a browser makes, with the Origin (and Sec-Fetch-Site) it sends. */
function browserPost(
  target: string,
  headers: Record<string, string>,
  accept = BROWSER_ACCEPT,
): Promise<Response> {
  return fetch(target, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept, ...headers },
    body: new URLSearchParams({ comment: 'looks fine' }).toString(),
  });
}

async function statusOf(approvalId: string): Promise<string | undefined> {
  return (await fx.store.approvals.get(approvalId))?.status;
}

describe('the approval form only decides from its own origin', () => {
  const foreign: Array<[string, Record<string, string>]> = [
    ['another localhost port', { origin: 'http://localhost:9999', 'sec-fetch-site': 'same-site' }],
    ['another localhost port, no Sec-Fetch-Site', { origin: 'http://localhost:9999' }],
    ['another site', { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }],
    ['an opaque origin', { origin: 'null' }],
  ];

  it.each(foreign)(
    'refuses a POST from %s with a 403 page and decides nothing',
    async (_, headers) => {
      await pending('appr-1-gate');
      const res = await browserPost(await approveTarget('appr-1-gate'), headers);
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await res.text();
      expect(html).toContain('Approval link refused');
      expect(html).toContain('not from this server&#39;s own approval page; nothing was decided');
      expect(html).not.toContain('<form');
      expect(await statusOf('appr-1-gate')).toBe('pending');
    },
  );

  it('refuses another port of this machine, and answers JSON to a JSON client', async () => {
    await pending('appr-2-gate');
    const port = new URL(app.url).port;
    const res = await browserPost(
      await approveTarget('appr-2-gate'),
      { origin: `http://localhost:${Number(port) + 1}` },
      'application/json',
    );
    expect(res.status).toBe(403);
    const body = (await res.json()) as {
      error: { code: string; message: string; details: unknown };
    };
    expect(body.error.code).toBe('ORIGIN_NOT_ALLOWED');
    expect(body.error.message).toContain(
      `This decision was sent from a page at http://localhost:${Number(port) + 1}`,
    );
    expect(body.error.details).toEqual({ origin: `http://localhost:${Number(port) + 1}` });
    expect(await statusOf('appr-2-gate')).toBe('pending');
  });

  it("accepts the form's own POST (same host and port)", async () => {
    await pending('appr-3-gate');
    const res = await browserPost(await approveTarget('appr-3-gate'), {
      origin: app.url,
      'sec-fetch-site': 'same-origin',
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/Approved\. Workflow run \d+ goes on\./);
    expect(await statusOf('appr-3-gate')).toBe('approved');
  });

  it('accepts a decision without Origin (curl, a bot), as before', async () => {
    await pending('appr-4-gate');
    const res = await fetch(`${app.url}/workflow-approvals/appr-4-gate/approve`, {
      method: 'POST',
    });
    expect(res.status).toBe(200);
    expect(await statusOf('appr-4-gate')).toBe('approved');
  });
});
