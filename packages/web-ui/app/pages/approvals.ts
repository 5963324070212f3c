// Approvals: human approvals of workflow runs, newest first, filtered by status.
import { badge, dataTable, field, select, time, token } from '../components.js';
import { h } from '../dom.js';
import { truncate } from '../format.js';
import { guarded, pageHeading, type PageContext } from '../page.js';
import { idPath, routeHash } from '../router.js';
import type { Approval, ApprovalList } from '../types.js';

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'timed_out', 'cancelled'];

export async function renderApprovals(ctx: PageContext, root: HTMLElement): Promise<void> {
  const status = select(
    { name: 'status', id: 'filter-approval-status' },
    [{ value: '', label: 'Any status' }, ...APPROVAL_STATUSES.map((s) => ({ value: s, label: s }))],
    ctx.route.query.status,
  );
  const form = h(
    'form',
    {
      class: 'filters',
      role: 'search',
      'aria-label': 'Filter approvals',
      onsubmit: (event: Event) => {
        event.preventDefault();
        ctx.navigate(routeHash('/approvals', { status: status.value }));
      },
    },
    field('Status', status),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Apply')),
  );
  const body = h('div', null, h('p', { class: 'muted loading' }, 'Loading…'));
  root.append(h('div', { class: 'page-head' }, pageHeading('Approvals')), form, body);
  await guarded(ctx, async () => {
    const list = await ctx.api.get<ApprovalList>(
      '/api/v1/workflow-approvals',
      { status: ctx.route.query.status, limit: 200 },
      ctx.signal,
    );
    body.replaceChildren(
      dataTable<Approval>({
        caption: 'Approvals, newest first',
        columns: [
          {
            header: 'Approval',
            cell: (a) =>
              h('a', { href: routeHash(idPath('approvals', a.approval_id)) }, a.approval_id),
          },
          { header: 'Status', cell: (a) => badge(a.status) },
          {
            header: 'Message',
            cell: (a) => h('span', { title: a.message }, truncate(a.message, 90)),
          },
          { header: 'Step', cell: (a) => token(a.step_name) },
          {
            header: 'Workflow run',
            cell: (a) =>
              h(
                'a',
                { href: routeHash(idPath('workflow-runs', a.workflow_run_id)) },
                String(a.workflow_run_id),
              ),
            numeric: true,
          },
          {
            header: 'Approvers',
            cell: (a) => (a.approvers.length > 0 ? a.approvers.join(', ') : 'anyone'),
          },
          { header: 'Created', cell: (a) => time(a.created_at) },
          { header: 'Expires', cell: (a) => time(a.expires_at) },
        ],
        rows: list.approvals,
        rowAttrs: (a) => ({ 'data-approval-id': a.approval_id, 'data-status': a.status }),
        empty: ctx.route.query.status
          ? `No ${ctx.route.query.status} approvals.`
          : 'No approvals yet.',
      }).wrap,
    );
  });
}
