// One run: status, task, answer or error, counts and times, its attempts (when it was resumed),
// its turns and tool calls, a link to its trace, and Cancel while it is queued or running. Re-read every second until it ends.
import { ApiError } from '../api.js';
import { badge, codeBlock, dataTable, facts, link, section, time } from '../components.js';
import { h, type Child } from '../dom.js';
import { formatCost, formatCount, formatDuration } from '../format.js';
import { pageHeading, renderIfChanged, type PageContext } from '../page.js';
import { wait } from '../wait.js';
import { idPath, routeHash } from '../router.js';
import { renderRunEvents } from '../run-events.js';
import type { Run, RunAttempt, RunDetail, RunOrigin } from '../types.js';

const POLL_MS = 1000;
const ENDED = new Set(['completed', 'error', 'timeout', 'cancelled']);

function actions(ctx: PageContext, run: RunDetail): HTMLElement {
  const items: HTMLElement[] = [];
  if (!ENDED.has(run.status)) {
    const asked = run.cancel_requested_at !== null;
    const button = h(
      'button',
      {
        type: 'button',
        class: 'danger',
        'data-focus-key': 'cancel',
        disabled: asked,
        onclick: () => void cancel(ctx, run, button),
      },
      asked ? 'Cancelling…' : 'Cancel run',
    );
    items.push(button);
  }
  if (run.trace_id) {
    items.push(
      h(
        'a',
        { href: ctx.links.trace(run.trace_id), class: 'button', 'data-trace-link': '' },
        'Trace',
      ),
    );
    const viewer = ctx.links.viewerTrace(run.trace_id);
    if (viewer) items.push(h('a', { href: viewer }, 'Open in trace viewer'));
  }
  return h('div', { class: 'actions' }, items);
}

async function cancel(ctx: PageContext, run: Run, button: HTMLButtonElement): Promise<void> {
  button.disabled = true;
  button.textContent = 'Cancelling…';
  try {
    const answer = await ctx.api.post<Run>(
      `/api/v1/runs/${run.run_id}/cancel`,
      undefined,
      ctx.signal,
    );
    ctx.announce(
      answer.status === 'cancelled'
        ? `Run ${run.run_id} cancelled.`
        : `Run ${run.run_id} is stopping; it ends cancelled shortly.`,
    );
  } catch (err) {
    ctx.showError(err);
    button.disabled = false;
    button.textContent = 'Cancel run';
  }
}

function view(ctx: PageContext, run: RunDetail): Node {
  const variables = Object.entries(run.variables ?? {});
  return h(
    'div',
    null,
    actions(ctx, run),
    section(
      'Summary',
      facts([
        ['Status', badge(run.status, { 'data-run-status': run.status })],
        [
          'Agent',
          link(
            run.agent_id !== null ? routeHash(idPath('agents', run.agent_id)) : null,
            run.agent_name,
          ),
        ],
        ['Source', run.source],
        ...originFacts(run.origin ?? null),
        ['Model', run.model ?? '—'],
        run.parent_run_id !== null && [
          'Parent run',
          link(ctx.links.run(run.parent_run_id), `Run ${run.parent_run_id}`),
        ],
        ['Steps', formatCount(run.steps_taken)],
        ['Tokens', `${formatCount(run.input_tokens)} in · ${formatCount(run.output_tokens)} out`],
        ['Cost', formatCost(run.cost_usd)],
        ['Duration', formatDuration(run.duration_ms)],
        ['Queued', time(run.queued_at)],
        ['Started', time(run.started_at)],
        ['Completed', time(run.completed_at)],
        run.cancel_requested_at !== null && ['Cancel asked', time(run.cancel_requested_at)],
      ]),
    ),
    section('Task', h('div', { class: 'prose' }, run.task)),
    run.error !== null
      ? section('Error', h('div', { class: 'prose error-text' }, run.error))
      : section(
          'Final response',
          run.final_response !== null
            ? h('div', { class: 'prose' }, run.final_response)
            : h(
                'p',
                { class: 'muted' },
                ENDED.has(run.status) ? 'No response.' : 'Not finished yet.',
              ),
        ),
    attemptsOf(run),
    variables.length > 0
      ? section(
          'Variables',
          dataTable<[string, string]>({
            caption: 'Template variables',
            columns: [
              { header: 'Name', cell: ([k]) => h('code', null, k) },
              { header: 'Value', cell: ([, v]) => v },
            ],
            rows: variables,
            empty: 'None',
          }).wrap,
        )
      : null,
    section(
      'Turns and tool calls',
      run.events
        ? renderRunEvents(run.events, ctx.links)
        : codeBlock(`${run.event_count} events (not sent by the server).`),
    ),
  );
}

/** What started the run besides its caller: the workflow run (linked), schedule, platform run. */
function originFacts(origin: RunOrigin | null): Array<[string, Child]> {
  if (origin === null) return [];
  const facts: Array<[string, Child]> = [];
  if (origin.workflow_run_id !== null) {
    const step = origin.workflow_step !== null ? `, step ${origin.workflow_step}` : '';
    facts.push([
      'Workflow run',
      link(
        routeHash(idPath('workflow-runs', origin.workflow_run_id)),
        `Run ${origin.workflow_run_id}${step}`,
      ),
    ]);
  }
  if (origin.schedule_id !== null) facts.push(['Schedule', `#${origin.schedule_id}`]);
  if (origin.platform_run_id !== null) facts.push(['Platform run', origin.platform_run_id]);
  return facts;
}

/**
 * The run's attempts, when it had more than one: which worker ran which steps, when and why an
 * attempt ended, and where the next one resumed (docs/runs.md).
 */
function attemptsOf(run: RunDetail): Node | null {
  const attempts = run.attempts ?? [];
  if (attempts.length < 2) return null;
  return section(
    `Attempts (${attempts.length})`,
    dataTable<RunAttempt>({
      caption: 'Attempts of the run',
      columns: [
        { header: '#', cell: (a) => String(a.attempt) },
        { header: 'Worker', cell: (a) => (a.worker_id ? h('code', null, a.worker_id) : '—') },
        {
          header: 'Steps',
          cell: (a) =>
            a.resumed_from_step === null ? 'from the start' : `from step ${a.resumed_from_step}`,
        },
        { header: 'Started', cell: (a) => time(a.started_at) },
        { header: 'Ended', cell: (a) => time(a.ended_at) },
        {
          header: 'Why it ended',
          cell: (a) =>
            a.end_reason ??
            (a.attempt !== attempts.length ? '—' : ENDED.has(run.status) ? run.status : 'running'),
        },
      ],
      rows: attempts,
      rowAttrs: (a) => ({ 'data-attempt': String(a.attempt) }),
      empty: 'None',
    }).wrap,
  );
}

export async function renderRun(ctx: PageContext, root: HTMLElement): Promise<void> {
  const id = Number(ctx.route.id);
  const body = h('div', { class: 'run-body' }, h('p', { class: 'muted loading' }, 'Loading…'));
  root.append(
    h(
      'div',
      { class: 'page-head' },
      pageHeading(`Run ${id}`),
      h('a', { href: routeHash('/runs') }, 'All runs'),
    ),
    body,
  );
  const previous: { json: string | undefined } = { json: undefined };
  let failing = false;
  while (!ctx.signal.aborted) {
    let run: RunDetail;
    try {
      run = await ctx.api.get<RunDetail>(`/api/v1/runs/${id}`, { verbose: true }, ctx.signal);
    } catch (err) {
      if (ctx.signal.aborted) return;
      ctx.showError(err);
      failing = true;
      // A missing run or a refused key will not change by asking again.
      if (err instanceof ApiError && err.status >= 400 && err.status < 500) {
        body.replaceChildren();
        return;
      }
      await wait(POLL_MS * 3, ctx.signal);
      continue;
    }
    // Only the poll's own trouble is cleared; a refused cancel stays on screen.
    if (failing) ctx.clearError();
    failing = false;
    renderIfChanged(body, run, previous, () => view(ctx, run));
    if (ENDED.has(run.status)) return;
    await wait(POLL_MS, ctx.signal);
  }
}
