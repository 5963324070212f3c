// Runs: the live list (GET /api/v1/runs/stream, read with fetch so the key goes along) with
// status, agent and environment filters in the hash (`#/runs?status=error&agent=x`).
import { ApiError } from '../api.js';
import {
  badge,
  dataTable,
  field,
  fillRows,
  link,
  select,
  time,
  type Column,
} from '../components.js';
import { h } from '../dom.js';
import { followEventStream, type StreamState } from '../event-stream.js';
import { formatCost, formatCount, formatDuration } from '../format.js';
import type { Links } from '../links.js';
import { pageHeading, type PageContext } from '../page.js';
import { wait } from '../wait.js';
import { routeHash } from '../router.js';
import type { EnvironmentList, Run, RunList, RunStreamPage } from '../types.js';

export const RUN_STATUSES = ['queued', 'running', 'completed', 'error', 'timeout', 'cancelled'];

/** How often the list is re-read when the server has no stream. */
const POLL_MS = 5000;

/** The columns of a runs table (also the agent page's last runs). */
export function runColumns(links: Links, options: { agent?: boolean } = {}): Array<Column<Run>> {
  const columns: Array<Column<Run> | null> = [
    { header: 'Run', cell: (r) => link(links.run(r.run_id), String(r.run_id)), numeric: true },
    options.agent === false ? null : { header: 'Agent', cell: (r) => r.agent_name },
    { header: 'Status', cell: (r) => badge(r.status) },
    { header: 'Source', cell: (r) => r.source },
    { header: 'Started', cell: (r) => time(r.started_at ?? r.queued_at) },
    { header: 'Duration', cell: (r) => formatDuration(r.duration_ms), numeric: true },
    { header: 'Steps', cell: (r) => formatCount(r.steps_taken), numeric: true },
    {
      header: 'Tokens',
      cell: (r) =>
        h(
          'span',
          { title: `${r.input_tokens} in, ${r.output_tokens} out` },
          formatCount(r.input_tokens + r.output_tokens),
        ),
      numeric: true,
    },
    { header: 'Cost', cell: (r) => formatCost(r.cost_usd), numeric: true },
  ];
  return columns.filter((c): c is Column<Run> => c !== null);
}

const LIVE_TEXT: Record<StreamState | 'polling', { on: boolean; text: string }> = {
  connecting: { on: false, text: 'Connecting…' },
  live: { on: true, text: 'Live' },
  reconnecting: { on: false, text: 'Reconnecting…' },
  unauthorized: { on: false, text: 'Not signed in' },
  unavailable: { on: false, text: 'Not live' },
  polling: { on: false, text: `Refreshing every ${POLL_MS / 1000} s` },
};

function filterForm(ctx: PageContext, envNames: HTMLSelectElement): HTMLFormElement {
  const q = ctx.route.query;
  const status = select(
    { name: 'status', id: 'filter-status' },
    [{ value: '', label: 'Any status' }, ...RUN_STATUSES.map((s) => ({ value: s, label: s }))],
    q.status,
  );
  const agent = h('input', {
    type: 'search',
    name: 'agent',
    id: 'filter-agent',
    value: q.agent ?? '',
    placeholder: 'agent name',
    autocomplete: 'off',
  });
  return h(
    'form',
    {
      class: 'filters',
      role: 'search',
      'aria-label': 'Filter runs',
      onsubmit: (event: Event) => {
        event.preventDefault();
        ctx.navigate(
          routeHash('/runs', {
            status: status.value,
            agent: agent.value.trim(),
            environment: envNames.value,
          }),
        );
      },
    },
    field('Status', status),
    field('Agent', agent),
    field('Environment', envNames),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit' }, 'Apply'),
      h('a', { href: routeHash('/runs'), class: 'button quiet' }, 'Clear'),
    ),
  );
}

export async function renderRuns(ctx: PageContext, root: HTMLElement): Promise<void> {
  const q = ctx.route.query;
  // Only the filters: the stream and the list then both answer their default page.
  const filters = { status: q.status, agent: q.agent, environment: q.environment };
  const live = h(
    'span',
    { class: 'live', 'data-live': 'off', role: 'status', 'aria-atomic': 'true' },
    LIVE_TEXT.connecting.text,
  );
  const setLive = (state: keyof typeof LIVE_TEXT): void => {
    const { on, text } = LIVE_TEXT[state];
    live.dataset.live = on ? 'on' : 'off';
    live.textContent = text;
  };
  const envNames = select(
    { name: 'environment', id: 'filter-environment' },
    [
      { value: '', label: 'Any environment' },
      ...(q.environment ? [{ value: q.environment, label: q.environment }] : []),
    ],
    q.environment,
  );
  const columns = runColumns(ctx.links);
  const { wrap, tbody } = dataTable<Run>({
    caption: 'Runs, newest first',
    columns,
    rows: [],
    empty: 'Loading…',
    attrs: { class: 'runs-table' },
  });
  root.append(
    h(
      'div',
      { class: 'page-head' },
      pageHeading('Runs'),
      live,
      h('a', { href: routeHash('/new-run'), class: 'button' }, 'New run'),
    ),
    filterForm(ctx, envNames),
    wrap,
  );

  // The environment choices arrive after the page is usable.
  ctx.api
    .get<EnvironmentList>('/api/v1/environments', { limit: 1000 }, ctx.signal)
    .then((list) => {
      for (const env of list.items) {
        if (env.name !== q.environment) envNames.append(h('option', { value: env.name }, env.name));
      }
    })
    .catch(() => undefined);

  const seen = new Set<number>();
  let first = true;
  const show = (runs: Run[]): void => {
    const fresh = first ? [] : runs.filter((r) => !seen.has(r.run_id));
    const focusedRun = (document.activeElement as HTMLElement | null)?.closest<HTMLElement>(
      '[data-run-id]',
    )?.dataset.runId;
    fillRows(tbody, columns, runs, {
      empty: 'No runs match these filters.',
      rowAttrs: (r) => ({
        'data-run-id': r.run_id,
        'data-status': r.status,
        class: fresh.includes(r) ? 'row-new' : null,
      }),
    });
    if (focusedRun) tbody.querySelector<HTMLElement>(`[data-run-id="${focusedRun}"] a`)?.focus();
    for (const r of runs) seen.add(r.run_id);
    if (fresh.length > 0) {
      ctx.announce(
        fresh.length === 1 ? `New run ${fresh[0]?.run_id}.` : `${fresh.length} new runs.`,
      );
    }
    first = false;
  };

  let unavailable = false;
  await followEventStream({
    url: ctx.api.url('/api/v1/runs/stream', filters),
    headers: () => ctx.api.authHeaders(),
    signal: ctx.signal,
    onMessage: (message) => {
      if (message.event !== 'runs') return;
      let page: RunStreamPage;
      try {
        page = JSON.parse(message.data) as RunStreamPage;
      } catch {
        return;
      }
      if (Array.isArray(page.runs)) show(page.runs);
    },
    onState: (state) => {
      setLive(state);
      if (state === 'unauthorized' && !ctx.signal.aborted) ctx.api.unauthorized();
      if (state === 'unavailable') unavailable = true;
    },
  });

  // A server without the stream: read the list now and then instead.
  if (!unavailable) return;
  setLive('polling');
  while (!ctx.signal.aborted) {
    try {
      show((await ctx.api.get<RunList>('/api/v1/runs', filters, ctx.signal)).items);
      ctx.clearError();
    } catch (err) {
      if (ctx.signal.aborted || (err instanceof ApiError && err.status === 401)) return;
      ctx.showError(err);
    }
    await wait(POLL_MS, ctx.signal);
  }
}
