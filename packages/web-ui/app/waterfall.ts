// The trace waterfall: one row per span, indented by depth, with a bar placed by start offset
// and sized by duration on the trace's time axis. Each row is a button (Enter and Space work)
// whose aria-expanded says whether its details (attributes, events, error) are open.
import { badge, codeBlock, dataTable, facts, link, time, uid } from './components.js';
import { h } from './dom.js';
import { formatDuration } from './format.js';
import type { Links } from './links.js';
import { ticks } from './timeline.js';
import type { Span, SpanEvent } from './types.js';
import type { WaterfallLayout, WaterfallRow } from './waterfall-layout.js';

/** Depths beyond this stop indenting further, so deep traces keep room for the bars. */
const MAX_INDENT = 12;

const show = (value: unknown): string =>
  typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));

function attributeTable(caption: string, attributes: Record<string, unknown>): HTMLElement {
  const rows = Object.entries(attributes).sort(([a], [b]) => a.localeCompare(b));
  if (rows.length === 0) return h('p', { class: 'muted' }, 'No attributes.');
  return dataTable<[string, unknown]>({
    caption,
    columns: [
      { header: 'Attribute', cell: ([key]) => h('code', null, key) },
      { header: 'Value', cell: ([, value]) => h('span', { class: 'value' }, show(value)) },
    ],
    rows,
    empty: 'No attributes.',
    attrs: { class: 'attributes' },
  }).wrap;
}

function events(span: Span): HTMLElement {
  if (span.events.length === 0) return h('p', { class: 'muted' }, 'No events.');
  return h(
    'ol',
    { class: 'span-events' },
    span.events.map((e: SpanEvent) =>
      h(
        'li',
        null,
        h('strong', null, e.name),
        ' ',
        h('span', { class: 'muted' }, `+${formatDuration((e.time_us - span.start_us) / 1000)}`),
        Object.keys(e.attributes).length > 0 ? codeBlock(e.attributes) : null,
      ),
    ),
  );
}

function details(row: WaterfallRow<Span>, links: Links): HTMLElement[] {
  const span = row.span;
  return [
    span.status === 'error'
      ? h(
          'p',
          { class: 'error-text' },
          h('strong', null, 'Error: '),
          span.status_message ?? 'the span ended with status error',
        )
      : null,
    facts([
      ['Span', h('code', null, span.span_id)],
      ['Parent', span.parent_span_id ? h('code', null, span.parent_span_id) : 'none (root)'],
      ['Service', span.service],
      span.scope !== null && ['Scope', span.scope],
      ['Kind', span.kind],
      ['Status', badge(span.status)],
      ['Start', time(span.start_time)],
      ['Offset', `+${formatDuration(row.startOffsetMs)}`],
      ['Duration', formatDuration(span.duration_ms)],
      span.run_id !== null && ['Run', link(links.run(span.run_id), `Run ${span.run_id}`)],
    ]),
    h('h3', null, 'Attributes'),
    attributeTable(`Attributes of ${span.name}`, span.attributes),
    h('h3', null, `Events (${span.events.length})`),
    events(span),
    h(
      'details',
      { class: 'raw' },
      h('summary', null, 'Resource'),
      attributeTable(`Resource of ${span.name}`, span.resource),
    ),
  ].filter((el): el is HTMLElement => el !== null);
}

function spanRow(row: WaterfallRow<Span>, links: Links): HTMLElement {
  const span = row.span;
  const panelId = uid('span');
  const panel = h('div', { class: 'wf-detail', id: panelId, hidden: true });
  const button = h(
    'button',
    {
      type: 'button',
      class: `wf-row${span.status === 'error' ? ' wf-error' : ''}`,
      'data-span-name': span.name,
      'data-depth': row.depth,
      'data-status': span.status,
      'aria-expanded': 'false',
      'aria-controls': panelId,
    },
    h(
      'span',
      { class: 'wf-label', style: { '--depth': String(Math.min(row.depth, MAX_INDENT)) } },
      h('span', { class: 'wf-name' }, span.name),
      h('span', { class: 'wf-meta' }, `${span.service} · ${span.kind}`),
      badge(span.status),
      row.childCount > 0
        ? h('span', { class: 'visually-hidden' }, `, ${row.childCount} child spans`)
        : null,
    ),
    h(
      'span',
      { class: 'wf-track', 'aria-hidden': 'true' },
      h('span', {
        class: `wf-bar wf-bar-${span.status}`,
        style: { left: `${row.offsetPct}%`, width: `${row.widthPct}%` },
      }),
    ),
    h('span', { class: 'wf-dur' }, formatDuration(span.duration_ms)),
  );
  button.addEventListener('click', () => {
    const open = button.getAttribute('aria-expanded') !== 'true';
    // The details are built on first open: a large trace stays cheap to draw.
    if (open && !panel.hasChildNodes()) panel.append(...details(row, links));
    button.setAttribute('aria-expanded', String(open));
    panel.hidden = !open;
  });
  return h('li', { class: 'wf-item' }, button, panel);
}

/** The waterfall of one trace's spans, laid out by layoutWaterfall. */
export function renderWaterfall(layout: WaterfallLayout<Span>, links: Links): HTMLElement {
  return h(
    'div',
    { class: 'waterfall' },
    h(
      'div',
      { class: 'wf-head', 'aria-hidden': 'true' },
      h('span', { class: 'wf-label' }, 'Span'),
      h(
        'span',
        { class: 'wf-track wf-axis' },
        ticks(layout.durationMs).map((t) =>
          h('span', { class: 'wf-tick', style: { left: `${t.pct}%` } }, formatDuration(t.value)),
        ),
      ),
      h('span', { class: 'wf-dur' }, 'Duration'),
    ),
    h(
      'ol',
      { class: 'wf-rows', 'aria-label': `${layout.rows.length} spans in tree order` },
      layout.rows.map((row) => spanRow(row, links)),
    ),
  );
}
