// One approval, decided right here: Approve (with an optional comment) or Reject (the comment
// is sent as the reason); the page then shows the new status.
import { ApiError } from '../api.js';
import { badge, facts, field, section, select, time, token } from '../components.js';
import { h, replace } from '../dom.js';
import { guarded, pageHeading, type PageContext } from '../page.js';
import { idPath, routeHash } from '../router.js';
import type { Approval, ApprovalAnswer } from '../types.js';

type Decision = 'approve' | 'reject';

function decisionForm(
  ctx: PageContext,
  approval: Approval,
  decided: (approval: Approval) => void,
): HTMLElement {
  const comment = h('textarea', {
    id: 'approval-comment',
    name: 'comment',
    rows: 3,
    maxlength: 4000,
  });
  // When the approval names its approvers the server needs one of them; otherwise it is optional.
  const approver =
    approval.approvers.length > 0
      ? select(
          { id: 'approval-approver', name: 'approver' },
          approval.approvers.map((a) => ({ value: a, label: a })),
          approval.approvers[0],
        )
      : h('input', {
          id: 'approval-approver',
          name: 'approver',
          type: 'text',
          autocomplete: 'username',
        });
  const buttons: HTMLButtonElement[] = [];
  const decide = async (decision: Decision): Promise<void> => {
    for (const b of buttons) b.disabled = true;
    ctx.clearError();
    const text = comment.value.trim();
    const who = approver.value.trim();
    const body: Record<string, string> = {};
    if (text) body[decision === 'approve' ? 'comment' : 'reason'] = text;
    if (who) body.approver = who;
    try {
      const answer = await ctx.api.post<ApprovalAnswer>(
        `/api/v1/workflow-approvals/${encodeURIComponent(approval.approval_id)}/${decision}`,
        body,
        ctx.signal,
      );
      decided(answer.approval);
    } catch (err) {
      ctx.showError(err);
      // Decided elsewhere meanwhile, or expired: show the approval as it is now.
      if (err instanceof ApiError && (err.status === 409 || err.status === 410)) {
        try {
          const now = await ctx.api.get<ApprovalAnswer>(
            `/api/v1/workflow-approvals/${encodeURIComponent(approval.approval_id)}`,
            undefined,
            ctx.signal,
          );
          decided(now.approval);
          return;
        } catch {
          // The error above is already shown.
        }
      }
      for (const b of buttons) b.disabled = false;
    }
  };
  buttons.push(
    h(
      'button',
      { type: 'button', class: 'primary', onclick: () => void decide('approve') },
      'Approve',
    ),
    h(
      'button',
      { type: 'button', class: 'danger', onclick: () => void decide('reject') },
      'Reject',
    ),
  );
  return h(
    'form',
    { class: 'card decision', 'aria-label': 'Decide', onsubmit: (e: Event) => e.preventDefault() },
    field(approval.approvers.length > 0 ? 'Approver' : 'Approver (optional)', approver),
    field(
      'Comment',
      comment,
      'Optional. Sent as the comment when approving, as the reason when rejecting.',
    ),
    h('div', { class: 'actions' }, buttons),
  );
}

function view(ctx: PageContext, approval: Approval, root: HTMLElement): void {
  const status = badge(approval.status, { 'data-approval-status': '', tabindex: -1 });
  const rerender = (next: Approval): void => {
    view(ctx, next, root);
    ctx.announce(`Approval ${next.approval_id} is ${next.status}.`);
    root.querySelector<HTMLElement>('[data-approval-status]')?.focus();
  };
  replace(
    root,
    section(
      'Request',
      h('div', { class: 'prose' }, approval.message || '(no message)'),
      facts([
        ['Status', status],
        [
          'Workflow run',
          h(
            'a',
            { href: routeHash(idPath('workflow-runs', approval.workflow_run_id)) },
            `Workflow run ${approval.workflow_run_id}`,
          ),
        ],
        ['Step', token(approval.step_name)],
        [
          'Approvers',
          approval.approvers.length > 0 ? approval.approvers.join(', ') : 'anyone with an API key',
        ],
        ['Created', time(approval.created_at)],
        ['Expires', time(approval.expires_at)],
        approval.decided_at !== null && ['Decided', time(approval.decided_at)],
        approval.decided_by !== null && ['Decided by', approval.decided_by],
        approval.comment !== null && ['Comment', h('span', { class: 'prose' }, approval.comment)],
      ]),
    ),
    approval.status === 'pending'
      ? section('Decision', decisionForm(ctx, approval, rerender))
      : null,
  );
}

export async function renderApproval(ctx: PageContext, root: HTMLElement): Promise<void> {
  const id = ctx.route.id ?? '';
  const body = h('div', null, h('p', { class: 'muted loading' }, 'Loading…'));
  root.append(
    h(
      'div',
      { class: 'page-head' },
      pageHeading(`Approval ${id}`),
      h('a', { href: routeHash('/approvals') }, 'All approvals'),
    ),
    body,
  );
  await guarded(ctx, async () => {
    const { approval } = await ctx.api.get<ApprovalAnswer>(
      `/api/v1/workflow-approvals/${encodeURIComponent(id)}`,
      undefined,
      ctx.signal,
    );
    view(ctx, approval, body);
  });
}
