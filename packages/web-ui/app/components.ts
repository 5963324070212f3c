// Small pieces every page uses: status badges, times, tables, fact lists, form fields.
import { h, type Attrs, type Child } from './dom.js';
import { formatTime, prettyJson } from './format.js';

type Tone = 'ok' | 'bad' | 'active' | 'idle' | 'warn';

/** Status words of runs, steps, approvals, spans and MCP servers, by colour family. */
const TONES: Readonly<Record<string, Tone>> = {
  completed: 'ok',
  ok: 'ok',
  approved: 'ok',
  connected: 'ok',
  started: 'ok',
  enabled: 'ok',
  error: 'bad',
  timeout: 'bad',
  failed: 'bad',
  rejected: 'bad',
  timed_out: 'bad',
  running: 'active',
  waiting_approval: 'active',
  queued: 'idle',
  pending: 'idle',
  unset: 'idle',
  'never synced': 'idle',
  skipped: 'idle',
  disabled: 'idle',
  cancelled: 'warn',
  missed: 'warn',
};

/** The colour family of a status word. */
export function toneOf(status: string): Tone {
  return TONES[status] ?? 'idle';
}

/** A status as a coloured badge that always carries its word (colour is never the only cue). */
export function badge(status: string, attrs: Attrs = {}, label: string = status): HTMLElement {
  return h('span', { class: `badge badge-${toneOf(status)}`, ...attrs }, label);
}

/** An ISO time in the reader's locale, with the exact time kept in `datetime`. */
export function time(iso: string | null | undefined): HTMLElement | string {
  if (!iso) return '—';
  return h('time', { datetime: iso, title: iso }, formatTime(iso));
}

/** A link, or just its text when there is nowhere to go. */
export function link(href: string | null, ...children: Child[]): HTMLElement {
  return href ? h('a', { href }, ...children) : h('span', null, ...children);
}

/** Preformatted JSON or text. */
export function codeBlock(value: unknown, attrs: Attrs = {}): HTMLElement {
  return h('pre', { class: 'code', ...attrs }, prettyJson(value));
}

let nextId = 0;
/** A document-unique id for label/aria wiring. */
export function uid(prefix: string): string {
  nextId += 1;
  return `${prefix}-${nextId}`;
}

/** A titled section; the heading labels it for assistive technology. */
export function section(title: string, ...children: Child[]): HTMLElement {
  const id = uid('section');
  return h(
    'section',
    { class: 'panel', 'aria-labelledby': id },
    h('h2', { id }, title),
    ...children,
  );
}

/** A list of label/value facts (a description list laid out as a grid). */
export function facts(rows: ReadonlyArray<readonly [string, Child] | null | false>): HTMLElement {
  return h(
    'dl',
    { class: 'facts' },
    rows.map((row) => (row ? h('div', null, h('dt', null, row[0]), h('dd', null, row[1])) : null)),
  );
}

export interface Column<T> {
  header: string;
  cell: (row: T) => Child;
  /** Right-aligned (counts, durations, money). */
  numeric?: boolean;
}

/** Fills a table body; the first column's cells are row headers. */
export function fillRows<T>(
  tbody: HTMLTableSectionElement,
  columns: ReadonlyArray<Column<T>>,
  rows: readonly T[],
  options: { rowAttrs?: (row: T) => Attrs; empty: string },
): void {
  tbody.replaceChildren();
  if (rows.length === 0) {
    tbody.appendChild(
      h('tr', null, h('td', { colspan: columns.length, class: 'empty' }, options.empty)),
    );
    return;
  }
  for (const row of rows) {
    tbody.appendChild(
      h(
        'tr',
        options.rowAttrs?.(row) ?? null,
        columns.map((column, i) =>
          i === 0
            ? h('th', { scope: 'row', class: column.numeric ? 'num' : null }, column.cell(row))
            : h('td', { class: column.numeric ? 'num' : null }, column.cell(row)),
        ),
      ),
    );
  }
}

/** A table in a container that scrolls sideways on its own when the table is too wide. */
export function dataTable<T>(options: {
  caption: string;
  columns: ReadonlyArray<Column<T>>;
  rows: readonly T[];
  rowAttrs?: (row: T) => Attrs;
  empty: string;
  attrs?: Attrs;
}): { wrap: HTMLElement; tbody: HTMLTableSectionElement } {
  const tbody = h('tbody');
  fillRows(tbody, options.columns, options.rows, {
    empty: options.empty,
    ...(options.rowAttrs ? { rowAttrs: options.rowAttrs } : {}),
  });
  const table = h(
    'table',
    options.attrs ?? null,
    h('caption', { class: 'visually-hidden' }, options.caption),
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        options.columns.map((c) =>
          h('th', { scope: 'col', class: c.numeric ? 'num' : null }, c.header),
        ),
      ),
    ),
    tbody,
  );
  return { wrap: h('div', { class: 'table-wrap' }, table), tbody };
}

/** A label and its control, wired with `for`. */
export function field(label: string, control: HTMLElement, hint?: string): HTMLElement {
  const id = control.id || uid('field');
  control.id = id;
  let hintEl: HTMLElement | null = null;
  if (hint) {
    const hintId = `${id}-hint`;
    hintEl = h('p', { class: 'hint', id: hintId }, hint);
    control.setAttribute('aria-describedby', hintId);
  }
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hintEl);
}

/** A select with its options; `value` picks the selected one. */
export function select(
  attrs: Attrs,
  options: ReadonlyArray<{ value: string; label: string }>,
  value: string | undefined,
): HTMLSelectElement {
  return h(
    'select',
    attrs,
    options.map((o) =>
      h('option', { value: o.value, selected: o.value === (value ?? '') }, o.label),
    ),
  );
}

/** The placeholder shown while a page loads. */
export function loading(what = 'Loading…'): HTMLElement {
  return h('p', { class: 'muted loading' }, what);
}

/** After these characters a name or path may break across lines: its own separators. */
const TOKEN_BREAKS = /([/\\._:-]+)/;

/**
 * A name or a path (a tool, a step, a prompt file) in code type that breaks across lines only
 * after its separators (`/`, `_`, `.`, `-`, `:`), never inside a word; the whole text is its title.
 */
export function token(text: string, attrs: Attrs = {}): HTMLElement {
  const parts: Child[] = [];
  for (const piece of text.split(TOKEN_BREAKS)) {
    if (piece === '') continue;
    parts.push(
      TOKEN_BREAKS.test(piece) ? [piece, h('wbr')] : h('span', { class: 'token-part' }, piece),
    );
  }
  return h('code', { class: 'token', title: text, ...attrs }, parts);
}
