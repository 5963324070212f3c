// One workflow run: its status, input and output, a timeline of its step attempts (bars from
// start to end), and its approvals. Re-read every two seconds until it ends.
import { ApiError } from '../api.js';
import {
  badge,
  codeBlock,
  dataTable,
  facts,
  link,
  section,
  time,
  token,
  toneOf,
} from '../components.js';
import { h } from '../dom.js';
import { formatDuration } from '../format.js';
import { pageHeading, renderIfChanged, type PageContext } from '../page.js';
import { wait } from '../wait.js';
import { idPath, routeHash } from '../router.js';
import { layoutTimeline, type Bar } from '../timeline.js';
import type { Approval, WorkflowRunDetail, WorkflowStep } from '../types.js';
import { between } from './workflows.js';

const POLL_MS = 2000;
const ENDED = new Set(['completed', 'failed', 'cancelled', 'timed_out']);

const ms = (iso: string | null): number | null => (iso ? new Date(iso).getTime() : null);

function timeline(ctx: PageContext, steps: readonly WorkflowStep[]): HTMLElement {
  const now = Date.now();
  const { bars, axisLength } = layoutTimeline(
    steps.map((st) => ({ start: ms(st.started_at), end: ms(st.completed_at) })),
    now,
  );
  const rows = steps.map((step, i) => ({ step, bar: bars[i] ?? null }));
  const barCell = (bar: Bar | null, status: string): HTMLElement =>
    h(
      'div',
      { class: 'track' },
      bar
        ? h('span', {
            class: `bar bar-${toneOf(status)}`,
            style: { left: `${bar.offsetPct}%`, width: `${bar.widthPct}%` },
          })
        : h('span', { class: 'muted small' }, 'not started'),
    );
  return dataTable<{ step: WorkflowStep; bar: Bar | null }>({
    caption: 'Step attempts in the order they began',
    columns: [
      { header: 'Step', cell: ({ step }) => token(step.name, { title: step.path }) },
      { header: 'Type', cell: ({ step }) => step.type },
      { header: 'Try', cell: ({ step }) => String(step.attempt), numeric: true },
      { header: 'Status', cell: ({ step }) => badge(step.status) },
      { header: 'Started', cell: ({ step }) => time(step.started_at) },
      {
        header: 'Duration',
        cell: ({ step }) => formatDuration(between(step.started_at, step.completed_at)),
        numeric: true,
      },
      {
        header: axisLength > 0 ? `Timeline (${formatDuration(axisLength)})` : 'Timeline',
        cell: ({ bar, step }) => barCell(bar, step.status),
      },
      {
        header: 'Links',
        cell: ({ step }) =>
          h(
            'span',
            { class: 'inline-list' },
            step.run_id !== null ? link(ctx.links.run(step.run_id), `Run ${step.run_id}`) : null,
            step.approval_id !== null
              ? h('a', { href: routeHash(idPath('approvals', step.approval_id)) }, 'Approval')
              : null,
          ),
      },
    ],
    rows,
    empty: 'No step has started yet.',
    attrs: { class: 'timeline-table' },
  }).wrap;
}

function view(ctx: PageContext, detail: WorkflowRunDetail): Node {
  const run = detail.workflow_run;
  return h(
    'div',
    null,
    section(
      'Summary',
      facts([
        ['Status', badge(run.status)],
        [
          'Workflow',
          h('a', { href: routeHash(idPath('workflows', run.workflow_id)) }, run.workflow_name),
        ],
        ['Current step', run.current_step ? token(run.current_step) : '—'],
        ['Source', run.source ?? '—'],
        ['Created', time(run.created_at)],
        ['Started', time(run.started_at)],
        ['Completed', time(run.completed_at)],
        ['Duration', formatDuration(between(run.started_at, run.completed_at))],
      ]),
      run.error ? h('p', { class: 'error-text' }, h('strong', null, 'Error: '), run.error) : null,
    ),
    section('Steps', timeline(ctx, detail.steps)),
    detail.approvals.length > 0
      ? section(
          'Approvals',
          dataTable<Approval>({
            caption: 'Approvals of this run',
            columns: [
              {
                header: 'Approval',
                cell: (a) =>
                  h('a', { href: routeHash(idPath('approvals', a.approval_id)) }, a.approval_id),
              },
              { header: 'Step', cell: (a) => a.step_name },
              { header: 'Status', cell: (a) => badge(a.status) },
              { header: 'Decided by', cell: (a) => a.decided_by ?? '—' },
              { header: 'Created', cell: (a) => time(a.created_at) },
            ],
            rows: detail.approvals,
            empty: 'None',
          }).wrap,
        )
      : null,
    section('Input', codeBlock(run.input)),
    run.output !== null && run.output !== undefined
      ? section('Output', codeBlock(run.output))
      : null,
  );
}

export async function renderWorkflowRun(ctx: PageContext, root: HTMLElement): Promise<void> {
  const id = Number(ctx.route.id);
  const body = h('div', null, h('p', { class: 'muted loading' }, 'Loading…'));
  root.append(h('div', { class: 'page-head' }, pageHeading(`Workflow run ${id}`)), body);
  const previous: { json: string | undefined } = { json: undefined };
  while (!ctx.signal.aborted) {
    let detail: WorkflowRunDetail;
    try {
      detail = await ctx.api.get<WorkflowRunDetail>(
        `/api/v1/workflow-runs/${id}`,
        undefined,
        ctx.signal,
      );
    } catch (err) {
      if (ctx.signal.aborted) return;
      ctx.showError(err);
      if (err instanceof ApiError && err.status >= 400 && err.status < 500) {
        body.replaceChildren();
        return;
      }
      await wait(POLL_MS * 2, ctx.signal);
      continue;
    }
    renderIfChanged(body, detail, previous, () => view(ctx, detail));
    if (ENDED.has(detail.workflow_run.status)) return;
    await wait(POLL_MS, ctx.signal);
  }
}
