// Trace search: by service, operation, run id, status and time range; the results link to each
// trace's waterfall and to the runs they belong to.
import { badge, dataTable, field, link, select, time } from '../components.js';
import { h } from '../dom.js';
import { formatDuration, shortTraceId } from '../format.js';
import { guarded, pageHeading, type PageContext } from '../page.js';
import { routeHash } from '../router.js';
import { DEFAULT_RANGE, RANGES, traceQuery } from '../trace-search.js';
import type { TraceList, TraceServices, TraceSummary } from '../types.js';

function searchForm(ctx: PageContext, services: TraceServices['services']): HTMLFormElement {
  const q = ctx.route.query;
  const service = select(
    { id: 'trace-service', name: 'service' },
    [
      { value: '', label: 'Any service' },
      ...services.map((s) => ({ value: s.name, label: s.name })),
      ...(q.service && !services.some((s) => s.name === q.service)
        ? [{ value: q.service, label: q.service }]
        : []),
    ],
    q.service,
  );
  const operation = h('select', { id: 'trace-operation', name: 'operation' });
  /** The operations of the chosen service (of every service when none is chosen). */
  const fillOperations = (selected: string | undefined): void => {
    const chosen = services.filter((s) => service.value === '' || s.name === service.value);
    const ops = [...new Set(chosen.flatMap((s) => s.operations))].sort();
    if (selected && !ops.includes(selected)) ops.unshift(selected);
    operation.replaceChildren(
      h('option', { value: '' }, 'Any operation'),
      ...ops.map((o) => h('option', { value: o, selected: o === selected }, o)),
    );
  };
  fillOperations(q.operation);
  service.addEventListener('change', () => fillOperations(undefined));
  const runId = h('input', {
    id: 'trace-run-id',
    name: 'run_id',
    type: 'text',
    inputmode: 'numeric',
    pattern: '[0-9]*',
    value: q.run_id ?? '',
    autocomplete: 'off',
  });
  const status = select(
    { id: 'trace-status', name: 'status' },
    [
      { value: '', label: 'Any status' },
      { value: 'error', label: 'error' },
      { value: 'ok', label: 'ok' },
    ],
    q.status,
  );
  const range = select(
    { id: 'trace-range', name: 'range' },
    RANGES.map((r) => ({ value: r.value, label: r.label })),
    q.range ?? DEFAULT_RANGE,
  );
  return h(
    'form',
    {
      class: 'filters',
      role: 'search',
      'aria-label': 'Find traces',
      onsubmit: (event: Event) => {
        event.preventDefault();
        ctx.navigate(
          routeHash('/traces', {
            service: service.value,
            operation: operation.value,
            run_id: runId.value.trim(),
            status: status.value,
            range: range.value === DEFAULT_RANGE ? '' : range.value,
          }),
        );
      },
    },
    field('Service', service),
    field('Operation', operation),
    field('Run ID', runId),
    field('Status', status),
    field('Time range', range),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', class: 'primary' }, 'Find traces'),
    ),
  );
}

export async function renderTraces(ctx: PageContext, root: HTMLElement): Promise<void> {
  const formSlot = h('div');
  const body = h('div', null, h('p', { class: 'muted loading' }, 'Loading…'));
  root.append(h('div', { class: 'page-head' }, pageHeading('Traces')), formSlot, body);
  await guarded(ctx, async () => {
    const services = await ctx.api
      .get<TraceServices>('/api/v1/trace-services', undefined, ctx.signal)
      .then((answer) => answer.services)
      .catch((err: unknown) => {
        ctx.showError(err);
        return [];
      });
    formSlot.replaceChildren(searchForm(ctx, services));
    const list = await ctx.api.get<TraceList>(
      '/api/v1/traces',
      traceQuery(ctx.route.query, Date.now()),
      ctx.signal,
    );
    body.replaceChildren(
      dataTable<TraceSummary>({
        caption: 'Traces found',
        columns: [
          {
            header: 'Trace',
            cell: (t) =>
              h(
                'span',
                { class: 'stack' },
                h('a', { href: ctx.links.trace(t.trace_id) }, t.root_name),
                h('code', { class: 'muted small' }, shortTraceId(t.trace_id)),
              ),
          },
          {
            header: 'Service',
            cell: (t) =>
              t.services.length > 1
                ? `${t.root_service} (+${t.services.length - 1})`
                : t.root_service,
          },
          { header: 'Started', cell: (t) => time(t.start_time) },
          { header: 'Duration', cell: (t) => formatDuration(t.duration_ms), numeric: true },
          { header: 'Spans', cell: (t) => String(t.span_count), numeric: true },
          {
            header: 'Errors',
            cell: (t) =>
              t.error_count > 0
                ? badge('error', {}, `${t.error_count} error${t.error_count === 1 ? '' : 's'}`)
                : '0',
            numeric: true,
          },
          {
            header: 'Runs',
            cell: (t) =>
              t.run_ids.length === 0
                ? '—'
                : h(
                    'span',
                    { class: 'inline-list' },
                    t.run_ids.map((id) => link(ctx.links.run(id), String(id))),
                  ),
          },
        ],
        rows: list.traces,
        rowAttrs: (t) => ({ 'data-trace-id': t.trace_id }),
        empty: 'No traces match this search.',
      }).wrap,
    );
  });
}
