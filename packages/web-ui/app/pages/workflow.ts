// One workflow: what it is, its definition as a diagram, and its recent runs.
import { badge, codeBlock, dataTable, facts, section, time, token } from '../components.js';
import { h } from '../dom.js';
import { guarded, pageHeading, type PageContext } from '../page.js';
import type { WorkflowDetail, WorkflowRun, WorkflowRunList } from '../types.js';
import { renderWorkflowDiagram } from '../workflow-diagram.js';
import { workflowRunColumns } from './workflows.js';

export async function renderWorkflow(ctx: PageContext, root: HTMLElement): Promise<void> {
  const heading = pageHeading(`Workflow ${ctx.route.id ?? ''}`);
  const body = h('div', null, h('p', { class: 'muted loading' }, 'Loading…'));
  root.append(h('div', { class: 'page-head' }, heading), body);
  await guarded(ctx, async () => {
    const key = encodeURIComponent(ctx.route.id ?? '');
    const query = ctx.route.query.environment ? { environment: ctx.route.query.environment } : {};
    const { workflow } = await ctx.api.get<WorkflowDetail>(
      `/api/v1/workflows/${key}`,
      query,
      ctx.signal,
    );
    heading.textContent = `Workflow ${workflow.name}`;
    document.title = `Workflow ${workflow.name} · Junction`;
    const runs = await ctx.api.get<WorkflowRunList>(
      '/api/v1/workflow-runs',
      { workflow_id: workflow.workflow_id, environment: workflow.environment, limit: 10 },
      ctx.signal,
    );
    body.replaceChildren(
      section(
        'About',
        facts([
          ['ID', token(workflow.workflow_id)],
          ['Environment', workflow.environment ?? '—'],
          ['Enabled', badge(workflow.enabled ? 'enabled' : 'disabled')],
          ['Description', workflow.description || '—'],
          ['Version', workflow.version ?? '—'],
          ['File', workflow.path ? token(workflow.path) : '—'],
          ['Updated', time(workflow.updated_at)],
        ]),
      ),
      section('Definition', renderWorkflowDiagram(workflow.definition, workflow.name)),
      section(
        'Recent runs',
        dataTable<WorkflowRun>({
          caption: `Recent runs of ${workflow.name}`,
          columns: workflowRunColumns(),
          rows: runs.workflow_runs,
          empty: 'No runs yet.',
        }).wrap,
      ),
      h(
        'details',
        { class: 'raw' },
        h('summary', null, 'Definition as JSON'),
        codeBlock(workflow.definition),
      ),
    );
  });
}
