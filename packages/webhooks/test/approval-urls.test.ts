// The approval URLs of the webhook port, over real HTTP, on a real store and a real WorkflowDoor:
// the links the door signs are the links these routes answer.
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { Approval, ApprovalCreateInput } from '@junction/store';
import { approvalView, createWorkflowDoor, type WorkflowDoor } from '@junction/workflows';
import { openFixture, post, startWebhookApp, type Fixture, type Listening } from './helpers.js';

const PUBLIC_URL = 'https://hooks.example.test:8587';
const KEY = 'whk_approval_key_123';

let fx: Fixture;
let app: Listening | undefined;
let door: WorkflowDoor;

beforeEach(async () => {
  fx = await openFixture();
  door = createWorkflowDoor({ store: fx.store, publicUrl: PUBLIC_URL });
  app = undefined;
});
afterEach(async () => {
  await app?.close();
  await fx.close();
});

/** The webhook app with the workflow door, and the webhook key when given. */
async function start(options: { apiKey?: string } = {}): Promise<Listening> {
  app = await startWebhookApp(fx, { workflows: door, ...options });
  return app;
}

/** A workflow run waiting on one approval, written straight into the store. */
async function pendingApproval(
  approvalId: string,
  input: Partial<Omit<ApprovalCreateInput, 'approvalId' | 'workflowRunId'>> = {},
): Promise<Approval> {
  const run = await fx.store.workflowRuns.create({
    workflowKey: 'deploy-checks',
    workflowName: 'Deploy checks',
    source: 'cli',
    status: 'waiting_approval',
  });
  return fx.store.approvals.create({
    approvalId,
    workflowRunId: run.id,
    stepName: 'confirm_release',
    message: 'Ship release 1.4 to production?',
    timeoutSeconds: 3600,
    ...input,
  });
}

/** The signed links of an approval, pointed at the test server instead of the public address. */
async function linksOf(
  approvalId: string,
): Promise<{ view: string; approve: string; reject: string; token: string }> {
  const links = await door.links(approvalId);
  const local = (link: string): string => {
    const url = new URL(link);
    return `${app!.url}${url.pathname}${url.search}`;
  };
  return {
    view: local(links.view_url),
    approve: local(links.approve_url),
    reject: local(links.reject_url),
    token: new URL(links.view_url).searchParams.get('token') ?? '',
  };
}

function url(approvalId: string, action = ''): string {
  return `${app!.url}/workflow-approvals/${encodeURIComponent(approvalId)}${action}`;
}

async function errorOf(
  res: Response,
): Promise<{ code: string; message: string; details?: Record<string, unknown> }> {
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return ((await res.json()) as { error: { code: string; message: string } }).error;
}

async function approvalOf(res: Response): Promise<Record<string, unknown>> {
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return ((await res.json()) as { approval: Record<string, unknown> }).approval;
}

async function stored(approvalId: string): Promise<Approval> {
  const approval = await fx.store.approvals.get(approvalId);
  if (!approval) throw new Error(`approval ${approvalId} is gone`);
  return approval;
}

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

function unescapeHtml(text: string): string {
  return text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
}

/** Where the page's form posts: its action (Approve) and the Reject button's formaction. */
function formTargets(html: string): { approve: string; reject: string } {
  const approve = /<form method="post" action="([^"]*)">/.exec(html)?.[1];
  const reject = /formaction="([^"]*)"/.exec(html)?.[1];
  if (approve === undefined || reject === undefined) throw new Error('the page has no form');
  return { approve: unescapeHtml(approve), reject: unescapeHtml(reject) };
}

function postForm(target: string, fields: Record<string, string>): Promise<Response> {
  return fetch(target, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: BROWSER_ACCEPT },
    body: new URLSearchParams(fields).toString(),
  });
}

describe('GET /workflow-approvals/:approval_id', () => {
  it('answers the approval as JSON by default, uncached', async () => {
    await start();
    const created = await pendingApproval('appr-1-confirm', { approvers: ['alice', 'bob'] });
    const res = await fetch(url('appr-1-confirm'));
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('vary')).toMatch(/Accept/);
    expect(await approvalOf(res)).toEqual(approvalView(created));
    expect(approvalView(created)).toMatchObject({
      approval_id: 'appr-1-confirm',
      step_name: 'confirm_release',
      status: 'pending',
      approvers: ['alice', 'bob'],
      decided_by: null,
    });
  });

  it('shows a self-contained HTML page, every value escaped, to a browser', async () => {
    await start();
    const hostile = `Deploy <b>1.4</b> to "prod" & 'eu'?\n<script>alert(1)</script>`;
    const created = await pendingApproval('appr-2-confirm', {
      message: hostile,
      approvers: ['<img src=x onerror=alert(2)>'],
    });
    const links = await linksOf('appr-2-confirm');
    const res = await fetch(links.view, { headers: { accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html; charset=utf-8/);
    expect(res.headers.get('content-security-policy')).toMatch(
      /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'$/,
    );
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const html = await res.text();
    // The page's one style block is the one the policy allows; nothing else may run or load.
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
    expect(res.headers.get('content-security-policy')).toContain(
      `style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`,
    );

    // Nothing the approval says becomes markup.
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<b>');
    expect(html).not.toContain('<img');
    expect(html).toContain(
      'Deploy &#60;b&#62;1.4&#60;/b&#62; to &#34;prod&#34; &#38; &#39;eu&#39;?\n&#60;script&#62;alert(1)&#60;/script&#62;',
    );
    expect(html).toContain('&#60;img src=x onerror=alert(2)&#62;');
    // Self-contained: no tag loads anything, and nothing points anywhere else.
    const tags = html.match(/<[a-z][^>]*>/gi) ?? [];
    expect(tags.filter((tag) => /\s(?:src|href)=/i.test(tag))).toEqual([]);
    expect(html).not.toMatch(/<link|<iframe|@import|url\(|https?:\/\//i);
    // The facts: workflow run, step, status, approvers, expiry.
    expect(html).toContain(`#${created.workflowRunId} — Deploy checks (deploy-checks)`);
    expect(html).toContain('<dt>Step</dt><dd>confirm_release</dd>');
    expect(html).toContain('<dt>Status</dt><dd>pending</dd>');
    expect(html).toContain(`<dt>Expires</dt><dd>${created.expiresAt!.toISOString()}</dd>`);
    // While pending, the form posts to …/approve and …/reject with the same token.
    const targets = formTargets(html);
    const token = `?token=${encodeURIComponent(links.token)}`;
    expect(targets).toEqual({
      approve: `/workflow-approvals/appr-2-confirm/approve${token}`,
      reject: `/workflow-approvals/appr-2-confirm/reject${token}`,
    });
    expect(html).toContain('<textarea id="comment" name="comment" maxlength="2000"');
    expect(html).toMatch(/<input id="approver" name="approver" [^>]*required>/);
  });

  it('never decides: the view and the decision links answer GET with the approval, still pending', async () => {
    await start();
    await pendingApproval('appr-3-confirm');
    const links = await linksOf('appr-3-confirm');
    for (const link of [links.view, links.approve, links.reject]) {
      const asJson = await fetch(link);
      expect(asJson.status).toBe(200);
      expect(await approvalOf(asJson)).toMatchObject({ status: 'pending' });
      const asPage = await fetch(link, { headers: { accept: BROWSER_ACCEPT } });
      expect(asPage.status).toBe(200);
      expect(await asPage.text()).toContain('<form method="post"');
      const head = await fetch(link, { method: 'HEAD' });
      expect(head.status).toBe(200);
    }
    expect(await stored('appr-3-confirm')).toMatchObject({
      status: 'pending',
      decidedAt: null,
      decidedBy: null,
    });
  });

  it('shows no form once the approval is decided or past its expiry', async () => {
    await start();
    await pendingApproval('appr-4-confirm');
    await door.decide('appr-4-confirm', {
      decision: 'rejected',
      approver: 'carol',
      comment: 'Not on a Friday',
      source: 'cli',
    });
    const decided = await (
      await fetch(url('appr-4-confirm'), { headers: { accept: 'text/html' } })
    ).text();
    expect(decided).not.toContain('<form');
    expect(decided).toContain('<dt>Status</dt><dd>rejected</dd>');
    expect(decided).toContain('<dt>Decided by</dt><dd>carol</dd>');
    expect(decided).toContain('<dt>Reason</dt><dd>Not on a Friday</dd>');

    await pendingApproval('appr-5-confirm', { expiresAt: new Date(Date.now() - 60_000) });
    const expired = await (
      await fetch(url('appr-5-confirm'), { headers: { accept: 'text/html' } })
    ).text();
    expect(expired).not.toContain('<form');
    expect(expired).toContain('<dt>Status</dt><dd>expired (it can no longer be decided)</dd>');
  });

  it('answers 404 APPROVAL_NOT_FOUND for an unknown approval, as JSON or as a page', async () => {
    await start();
    const res = await fetch(url('appr-404-nope'));
    expect(res.status).toBe(404);
    expect(await errorOf(res)).toEqual({
      code: 'APPROVAL_NOT_FOUND',
      message:
        'No approval has id "appr-404-nope"; list pending ones with `junction workflow approvals`.',
      details: { approval_id: 'appr-404-nope' },
    });
    const page = await fetch(url('appr-404-nope'), { headers: { accept: BROWSER_ACCEPT } });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('<h1>Approval not found</h1>');
  });

  it('refuses an approval id with control characters or over 200 characters (400)', async () => {
    await start();
    for (const bad of ['appr%0A1', 'a'.repeat(201)]) {
      const res = await fetch(`${app!.url}/workflow-approvals/${bad}`);
      expect(res.status).toBe(400);
      expect(await errorOf(res)).toMatchObject({
        code: 'INVALID_REQUEST',
        details: { field: 'approval_id' },
      });
    }
  });

  it('answers 405 with Allow for other methods', async () => {
    await start();
    await pendingApproval('appr-6-confirm');
    const view = await fetch(url('appr-6-confirm'), { method: 'DELETE' });
    expect(view.status).toBe(405);
    expect(view.headers.get('allow')).toBe('GET, HEAD');
    const approve = await fetch(url('appr-6-confirm', '/approve'), { method: 'PUT' });
    expect(approve.status).toBe(405);
    expect(approve.headers.get('allow')).toBe('POST, GET, HEAD');
  });

  it('is not served without a workflow door: 404 like any unknown route', async () => {
    app = await startWebhookApp(fx);
    await pendingApproval('appr-7-confirm');
    for (const res of [
      await fetch(url('appr-7-confirm')),
      await post(url('appr-7-confirm', '/approve'), {}),
    ]) {
      expect(res.status).toBe(404);
      expect((await errorOf(res)).code).toBe('ROUTE_NOT_FOUND');
    }
    expect((await stored('appr-7-confirm')).status).toBe('pending');
  });
});

describe('POST /workflow-approvals/:approval_id/approve and /reject', () => {
  it('approves once, with comment and approver, and audits it as a webhook decision', async () => {
    await start();
    const created = await pendingApproval('appr-10-confirm');
    const res = await post(url('appr-10-confirm', '/approve'), {
      comment: 'Checked the canary',
      approver: 'alice',
    });
    expect(res.status).toBe(200);
    const approval = await approvalOf(res);
    expect(approval).toMatchObject({
      approval_id: 'appr-10-confirm',
      workflow_run_id: created.workflowRunId,
      status: 'approved',
      decided_by: 'alice',
      comment: 'Checked the canary',
      decided_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(approval).toEqual(approvalView(await stored('appr-10-confirm')));
    const [entry] = await fx.store.auditLog.list({ action: 'approve_workflow_step' });
    expect(entry).toMatchObject({
      source: 'webhook',
      actor: 'alice',
      outcome: 'success',
      details: expect.objectContaining({ via_token: false }),
    });
  });

  it('rejects with a reason; an empty body is a decision without comment', async () => {
    await start();
    await pendingApproval('appr-11-confirm');
    const res = await post(url('appr-11-confirm', '/reject'), {
      reason: 'Error budget spent',
      approver: 'bob',
    });
    expect(res.status).toBe(200);
    expect(await approvalOf(res)).toMatchObject({
      status: 'rejected',
      decided_by: 'bob',
      comment: 'Error budget spent',
    });

    await pendingApproval('appr-12-confirm');
    const bare = await fetch(url('appr-12-confirm', '/approve'), { method: 'POST' });
    expect(bare.status).toBe(200);
    expect(await approvalOf(bare)).toMatchObject({
      status: 'approved',
      decided_by: null,
      comment: null,
    });
  });

  it('answers 409 APPROVAL_DECIDED with the first decision to a second one', async () => {
    await start();
    await pendingApproval('appr-13-confirm');
    expect(
      (await post(url('appr-13-confirm', '/approve'), { approver: 'alice', comment: 'go' })).status,
    ).toBe(200);
    for (const action of ['/approve', '/reject']) {
      const again = await post(url('appr-13-confirm', action), { approver: 'mallory' });
      expect(again.status).toBe(409);
      const error = await errorOf(again);
      expect(error).toMatchObject({
        code: 'APPROVAL_DECIDED',
        message:
          'Approval "appr-13-confirm" was already approved by alice; it can be decided only once.',
      });
      expect(error.details?.approval).toMatchObject({
        approval_id: 'appr-13-confirm',
        status: 'approved',
        decided_by: 'alice',
        comment: 'go',
      });
    }
    expect(await stored('appr-13-confirm')).toMatchObject({
      status: 'approved',
      decidedBy: 'alice',
    });
  });

  it('answers 404 APPROVAL_NOT_FOUND for an unknown approval', async () => {
    await start();
    const res = await post(url('appr-404-nope', '/reject'), { reason: 'x' });
    expect(res.status).toBe(404);
    expect(await errorOf(res)).toEqual({
      code: 'APPROVAL_NOT_FOUND',
      message:
        'No approval has id "appr-404-nope"; list pending ones with `junction workflow approvals`.',
      details: { approval_id: 'appr-404-nope' },
    });
  });

  it('answers 410 APPROVAL_EXPIRED past the expiry, and the approval stays timed out', async () => {
    await start();
    const expiresAt = new Date(Date.now() - 60_000);
    await pendingApproval('appr-14-confirm', { expiresAt });
    const res = await post(url('appr-14-confirm', '/approve'), { approver: 'alice' });
    expect(res.status).toBe(410);
    const error = await errorOf(res);
    expect(error).toMatchObject({
      code: 'APPROVAL_EXPIRED',
      message: `Approval "appr-14-confirm" timed out at ${expiresAt.toISOString()}; it can no longer be decided.`,
    });
    expect(error.details?.approval).toMatchObject({ status: 'timed_out' });
    expect((await stored('appr-14-confirm')).status).toBe('timed_out');
    expect((await post(url('appr-14-confirm', '/reject'), {})).status).toBe(410);
  });

  it('enforces the approvers list: 403 APPROVER_NOT_ALLOWED, then 200 for a listed approver in any case', async () => {
    await start();
    await pendingApproval('appr-15-confirm', { approvers: ['Alice', 'team:platform'] });
    const nobody = await post(url('appr-15-confirm', '/approve'), {});
    expect(nobody.status).toBe(403);
    expect(await errorOf(nobody)).toEqual({
      code: 'APPROVER_NOT_ALLOWED',
      message:
        'Approval "appr-15-confirm" may be decided only by Alice, team:platform; say who you are (approver).',
      details: { approval_id: 'appr-15-confirm', approvers: ['Alice', 'team:platform'] },
    });
    const stranger = await post(url('appr-15-confirm', '/approve'), { approver: 'mallory' });
    expect(stranger.status).toBe(403);
    expect((await errorOf(stranger)).message).toBe(
      '"mallory" may not decide approval "appr-15-confirm"; its approvers are Alice, team:platform.',
    );
    expect((await stored('appr-15-confirm')).status).toBe('pending');

    const listed = await post(url('appr-15-confirm', '/approve'), { approver: ' ALICE ' });
    expect(listed.status).toBe(200);
    expect(await approvalOf(listed)).toMatchObject({ status: 'approved', decided_by: 'ALICE' });
  });

  it('refuses a bad body with 400 (strings only, at most 2000 characters, no control characters in approver) and decides nothing', async () => {
    await start();
    await pendingApproval('appr-16-confirm');
    const cases: Array<[string, unknown, string, RegExp]> = [
      ['/approve', { approver: 42 }, 'approver', /approver must be a string/],
      ['/approve', { comment: ['a'] }, 'comment', /comment must be a string/],
      ['/approve', { comment: null }, 'comment', /comment must be a string/],
      ['/reject', { reason: { text: 'no' } }, 'reason', /reason must be a string/],
      ['/approve', { comment: 'x'.repeat(2001) }, 'comment', /at most 2000 characters/],
      ['/reject', { reason: 'x'.repeat(2001) }, 'reason', /at most 2000 characters/],
      ['/approve', { approver: 'a'.repeat(2001) }, 'approver', /at most 2000 characters/],
      ['/approve', { approver: 'alice\nadmin' }, 'approver', /control characters/],
      ['/approve', { approver: 'alice\u001b[31m' }, 'approver', /control characters/],
      ['/reject', { reason: 'a', comment: 'b' }, 'comment', /send the reason once/],
    ];
    for (const [action, body, field, message] of cases) {
      const res = await post(url('appr-16-confirm', action), body);
      expect(res.status).toBe(400);
      const error = await errorOf(res);
      expect(error.code).toBe('INVALID_REQUEST');
      expect(error.details?.field).toBe(field);
      expect(error.message).toMatch(message);
    }
    for (const body of [[], 'yes', 7]) {
      const res = await post(url('appr-16-confirm', '/approve'), JSON.stringify(body));
      expect(res.status).toBe(400);
      expect((await errorOf(res)).message).toMatch(/^Invalid request body: The body must be/);
    }
    const notJson = await post(url('appr-16-confirm', '/approve'), '{"approver":');
    expect(notJson.status).toBe(400);
    expect((await errorOf(notJson)).code).toBe('INVALID_JSON');
    const text = await post(url('appr-16-confirm', '/approve'), 'ok', {
      'content-type': 'text/plain',
    });
    expect(text.status).toBe(415);
    expect(await errorOf(text)).toMatchObject({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      details: { content_type: 'text/plain' },
    });
    const huge = await post(url('appr-16-confirm', '/approve'), {
      comment: 'x'.repeat(70 * 1024),
    });
    expect(huge.status).toBe(413);
    expect((await errorOf(huge)).code).toBe('PAYLOAD_TOO_LARGE');
    // A comment may span lines: only the approver's name must be one plain line.
    expect((await stored('appr-16-confirm')).status).toBe('pending');
    const multiline = await post(url('appr-16-confirm', '/approve'), {
      comment: 'Looks good.\nShip it.',
    });
    expect(multiline.status).toBe(200);
    expect(await approvalOf(multiline)).toMatchObject({ comment: 'Looks good.\nShip it.' });
  });
});

describe('authentication of the approval URLs', () => {
  it('needs the webhook key when one is set, for viewing and deciding', async () => {
    await start({ apiKey: KEY });
    await pendingApproval('appr-20-confirm');
    const without = await fetch(url('appr-20-confirm'));
    expect(without.status).toBe(401);
    expect(without.headers.get('www-authenticate')).toBe('Bearer realm="junction-webhook"');
    expect((await errorOf(without)).code).toBe('BEARER_TOKEN_REQUIRED');
    const wrong = await post(
      url('appr-20-confirm', '/approve'),
      {},
      { authorization: 'Bearer nope' },
    );
    expect(wrong.status).toBe(401);
    expect((await errorOf(wrong)).code).toBe('INVALID_API_KEY');
    // An unauthenticated browser sees the refusal, never the approval.
    const page = await fetch(url('appr-20-confirm'), { headers: { accept: BROWSER_ACCEPT } });
    expect(page.status).toBe(401);
    const html = await page.text();
    expect(html).toContain('bearer token required');
    expect(html).not.toContain('Ship release 1.4');
    expect((await stored('appr-20-confirm')).status).toBe('pending');

    const auth = { authorization: `Bearer ${KEY}` };
    expect((await fetch(url('appr-20-confirm'), { headers: auth })).status).toBe(200);
    const approved = await post(url('appr-20-confirm', '/approve'), { approver: 'ops' }, auth);
    expect(approved.status).toBe(200);
    expect(await approvalOf(approved)).toMatchObject({ status: 'approved', decided_by: 'ops' });
  });

  it('lets the signed token of an approval in without the key, for that approval only', async () => {
    await start({ apiKey: KEY });
    await pendingApproval('appr-21-confirm');
    await pendingApproval('appr-22-confirm');
    const a = await linksOf('appr-21-confirm');
    const b = await linksOf('appr-22-confirm');
    expect(a.token).not.toBe(b.token);

    const view = await fetch(a.view);
    expect(view.status).toBe(200);
    expect(await approvalOf(view)).toMatchObject({ approval_id: 'appr-21-confirm' });

    // A's token on B, and a made-up token, are refused — with or without the key.
    const crossed = [
      await fetch(url('appr-22-confirm', `?token=${encodeURIComponent(a.token)}`)),
      await post(url('appr-22-confirm', `/approve?token=${encodeURIComponent(a.token)}`), {}),
      await post(url('appr-22-confirm', `/reject?token=${encodeURIComponent(a.token)}`), {}),
      await post(url('appr-22-confirm', '/approve?token=forged'), {}),
      await post(
        url('appr-22-confirm', `/approve?token=${encodeURIComponent(a.token)}`),
        {},
        { authorization: `Bearer ${KEY}` },
      ),
    ];
    for (const res of crossed) {
      expect(res.status).toBe(403);
      expect(await errorOf(res)).toMatchObject({
        code: 'APPROVAL_TOKEN_INVALID',
        message: expect.stringMatching(/^The token of this link is not valid for this approval/),
      });
    }
    expect((await stored('appr-22-confirm')).status).toBe('pending');
    const twice = await fetch(`${b.view}&token=${encodeURIComponent(b.token)}`);
    expect(twice.status).toBe(400);
    expect((await errorOf(twice)).details).toEqual({ field: 'token' });

    const approved = await post(a.approve, { approver: 'dana', comment: 'from chat' });
    expect(approved.status).toBe(200);
    expect(await approvalOf(approved)).toMatchObject({ status: 'approved', decided_by: 'dana' });
    const rejected = await post(b.reject, { reason: 'not now' });
    expect(rejected.status).toBe(200);
    expect(await approvalOf(rejected)).toMatchObject({ status: 'rejected', comment: 'not now' });
    const entries = await fx.store.auditLog.list({ source: 'webhook', outcome: 'success' });
    expect(entries.map((e) => (e.details as { via_token?: boolean }).via_token)).toEqual([
      true,
      true,
    ]);
  });

  it('is open without a key, but a token that is given must be the approval’s own (403)', async () => {
    await start();
    await pendingApproval('appr-23-confirm');
    await pendingApproval('appr-24-confirm');
    const other = await linksOf('appr-24-confirm');
    expect((await fetch(url('appr-23-confirm'))).status).toBe(200);
    const wrong = await post(
      url('appr-23-confirm', `/approve?token=${encodeURIComponent(other.token)}`),
      {},
    );
    expect(wrong.status).toBe(403);
    expect((await errorOf(wrong)).code).toBe('APPROVAL_TOKEN_INVALID');
    const empty = await fetch(url('appr-23-confirm', '?token='));
    expect(empty.status).toBe(403);
    expect((await stored('appr-23-confirm')).status).toBe('pending');
    const own = await linksOf('appr-23-confirm');
    expect((await post(own.approve, {})).status).toBe(200);
  });
});

describe('the HTML form', () => {
  it('approves from the page with a form POST and shows the outcome', async () => {
    await start({ apiKey: KEY });
    await pendingApproval('appr-30-confirm', { approvers: ['alice'] });
    const links = await linksOf('appr-30-confirm');
    const page = await (await fetch(links.view, { headers: { accept: BROWSER_ACCEPT } })).text();
    const targets = formTargets(page);

    const res = await postForm(`${app!.url}${targets.approve}`, {
      approver: 'Alice',
      comment: 'Canary is green',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const outcome = await res.text();
    expect(outcome).toMatch(/role="status">Approved by Alice\. Workflow run \d+ goes on\.<\/p>/);
    expect(outcome).toContain('<dt>Status</dt><dd>approved</dd>');
    expect(outcome).toContain('<dt>Comment</dt><dd>Canary is green</dd>');
    expect(outcome).not.toContain('<form');
    expect(await stored('appr-30-confirm')).toMatchObject({
      status: 'approved',
      decidedBy: 'Alice',
      comment: 'Canary is green',
    });

    // Sent again (a double click, the back button): the page says it was decided, 409.
    const again = await postForm(`${app!.url}${targets.reject}`, { approver: 'alice' });
    expect(again.status).toBe(409);
    const refused = await again.text();
    expect(refused).toContain(
      'role="alert">Approval &#34;appr-30-confirm&#34; was already approved by Alice; it can be decided only once.</p>',
    );
    expect(refused).toContain('<dt>Status</dt><dd>approved</dd>');
  });

  it('rejects with the Reject button, the text box being the reason; blank fields count as absent', async () => {
    await start();
    await pendingApproval('appr-31-confirm');
    const page = await (
      await fetch(url('appr-31-confirm'), { headers: { accept: BROWSER_ACCEPT } })
    ).text();
    const targets = formTargets(page);
    expect(targets.reject).toBe('/workflow-approvals/appr-31-confirm/reject');
    const res = await postForm(`${app!.url}${targets.reject}`, {
      approver: '',
      comment: 'Wait for the freeze to end',
    });
    expect(res.status).toBe(200);
    const outcome = await res.text();
    // Its run's definition is not stored here: the page says both paths the engine may take.
    expect(outcome).toMatch(
      /Rejected\. Workflow run \d+ goes on at the onRejected of step &#34;confirm_release&#34;, or fails if it has none\./,
    );
    expect(outcome).toContain('<dt>Reason</dt><dd>Wait for the freeze to end</dd>');
    expect(await stored('appr-31-confirm')).toMatchObject({
      status: 'rejected',
      decidedBy: null,
      comment: 'Wait for the freeze to end',
    });
  });

  it('shows a refused form POST on the page, form still there while the approval is pending', async () => {
    await start();
    await pendingApproval('appr-32-confirm', { approvers: ['alice'] });
    const links = await linksOf('appr-32-confirm');
    const res = await postForm(links.approve, { approver: 'mallory', comment: '' });
    expect(res.status).toBe(403);
    const html = await res.text();
    expect(html).toContain(
      'role="alert">&#34;mallory&#34; may not decide approval &#34;appr-32-confirm&#34;; its approvers are alice.</p>',
    );
    expect(formTargets(html).approve).toBe(
      `/workflow-approvals/appr-32-confirm/approve?token=${encodeURIComponent(links.token)}`,
    );
    const bad = await postForm(links.approve, { approver: 'alice\r\nBcc: x' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('approver must not contain control characters');
    expect((await stored('appr-32-confirm')).status).toBe('pending');
    // A client that asks for JSON gets JSON, form body or not.
    const json = await fetch(links.approve, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: 'approver=alice',
    });
    expect(json.status).toBe(200);
    expect(await approvalOf(json)).toMatchObject({ status: 'approved', decided_by: 'alice' });
  });
});
