// Cancelling a workflow run left its approval pending, and its link still approved it and said
// the run goes on (issue 31). On the webhook port: the signed link shows the approval as
// cancelled with no form, and a decision answers 409 APPROVAL_WITHDRAWN (JSON, or the page).
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createWorkflowDoor, type WorkflowDoor } from '@junction/workflows';
import { openFixture, startWebhookApp, type Fixture, type Listening } from './helpers.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

let fx: Fixture;
let app: Listening;
let door: WorkflowDoor;

beforeEach(async () => {
  fx = await openFixture();
  door = createWorkflowDoor({ store: fx.store, publicUrl: 'http://127.0.0.1:8587' });
  app = await startWebhookApp(fx, { workflows: door });
});
afterEach(async () => {
  await app.close();
  await fx.close();
});

/** A signed link of the approval, on the test server. */
async function local(approvalId: string, which: 'view_url' | 'approve_url'): Promise<string> {
  const link = new URL((await door.links(approvalId))[which]);
  return `${app.url}${link.pathname}${link.search}`;
}

describe('the link of an approval whose run was cancelled', () => {
  it('shows it withdrawn and refuses a decision with 409 APPROVAL_WITHDRAWN', async () => {
    const run = await fx.store.workflowRuns.create({
      workflowKey: 'deploy-checks',
      workflowName: 'Deploy checks',
      status: 'waiting_approval',
    });
    const approvalId = `appr-${run.id}-confirm`;
    await fx.store.approvals.create({
      approvalId,
      workflowRunId: run.id,
      stepName: 'confirm',
      message: 'Ship?',
    });
    await door.cancel(run.id);

    const json = await fetch(await local(approvalId, 'approve_url'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: '{}',
    });
    expect(json.status).toBe(409);
    const { error } = (await json.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('APPROVAL_WITHDRAWN');
    expect(error.message).toContain(`workflow run ${run.id} was cancelled`);

    const page = await fetch(await local(approvalId, 'view_url'), {
      headers: { accept: BROWSER_ACCEPT },
    });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<dt>Status</dt><dd>withdrawn (its workflow run was cancelled)</dd>');
    expect(html).not.toContain('<form');
    expect((await fx.store.approvals.get(approvalId))?.status).toBe('cancelled');
  });
});
