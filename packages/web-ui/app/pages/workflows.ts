// Workflows: the synced workflows and the latest workflow runs.
import { badge, dataTable, time, token, type Column } from '../components.js';
import { h } from '../dom.js';
import { formatDuration } from '../format.js';
import { guarded, pageHeading, type PageContext } from '../page.js';
import { idPath, routeHash } from '../router.js';
import type { Workflow, WorkflowList, WorkflowRun, WorkflowRunList } from '../types.js';

/** Milliseconds between two ISO times, or null when either is missing. */
export function between(start: string | null, end: string | null): number | null {
  if (!start || !end) return null;
  return new Date(end).getTime() - new Date(start).getTime();
}

/** The columns of a workflow runs table. */
export function workflowRunColumns(): Array<Column<WorkflowRun>> {
  return [
    {
      header: 'Run',
      cell: (r) => h('a', { href: routeHash(idPath('workflow-runs', r.id)) }, String(r.id)),
      numeric: true,
    },
    { header: 'Workflow', cell: (r) => r.workflow_name },
    { header: 'Status', cell: (r) => badge(r.status) },
    {
      header: 'Current step',
      cell: (r) => (r.current_step ? token(r.current_step) : '—'),
    },
    { header: 'Source', cell: (r) => r.source ?? '—' },
    { header: 'Created', cell: (r) => time(r.created_at) },
    {
      header: 'Duration',
      cell: (r) => formatDuration(between(r.started_at, r.completed_at)),
      numeric: true,
    },
  ];
}

export async function renderWorkflows(ctx: PageContext, root: HTMLElement): Promise<void> {
  const body = h('div', null, h('p', { class: 'muted loading' }, 'Loading…'));
  root.append(h('div', { class: 'page-head' }, pageHeading('Workflows')), body);
  await guarded(ctx, async () => {
    const [workflows, runs] = await Promise.all([
      ctx.api.get<WorkflowList>('/api/v1/workflows', { limit: 1000 }, ctx.signal),
      ctx.api.get<WorkflowRunList>('/api/v1/workflow-runs', { limit: 20 }, ctx.signal),
    ]);
    body.replaceChildren(
      dataTable<Workflow>({
        caption: 'Workflows',
        columns: [
          {
            header: 'Workflow',
            cell: (w) => h('a', { href: routeHash(idPath('workflows', w.id)) }, w.name),
          },
          { header: 'ID', cell: (w) => token(w.workflow_id) },
          { header: 'Environment', cell: (w) => w.environment ?? '—' },
          { header: 'Enabled', cell: (w) => badge(w.enabled ? 'enabled' : 'disabled') },
          { header: 'States', cell: (w) => String(w.states), numeric: true },
          { header: 'Version', cell: (w) => w.version ?? '—' },
          { header: 'Updated', cell: (w) => time(w.updated_at) },
        ],
        rows: workflows.workflows,
        empty: 'No workflows yet: add workflow files to an environment and sync it.',
      }).wrap,
      h('h2', null, 'Latest workflow runs'),
      dataTable<WorkflowRun>({
        caption: 'Latest workflow runs',
        columns: workflowRunColumns(),
        rows: runs.workflow_runs,
        empty: 'No workflow runs yet.',
      }).wrap,
    );
  });
}
