// One trace: a summary (root, services, duration, runs) and the waterfall of its spans.
import { facts, link, section, time } from '../components.js';
import { ApiError } from '../api.js';
import { h } from '../dom.js';
import { formatDuration, shortTraceId } from '../format.js';
import { guarded, pageHeading, type PageContext } from '../page.js';
import { routeHash } from '../router.js';
import type { TraceDetail } from '../types.js';
import { layoutWaterfall } from '../waterfall-layout.js';
import { renderWaterfall } from '../waterfall.js';

/**
 * What a trace that was never stored shows: a run made while no process kept traces (an
 * `agent run` before any `junction serve`) has a trace id and no spans.
 */
function noTraceKept(): HTMLElement {
  return h(
    'div',
    { 'data-no-trace': '' },
    h('p', null, 'No trace kept for this run.'),
    h(
      'p',
      { class: 'muted' },
      'Its spans were not stored: it ran while no junction serve (or junction traces) was keeping traces, or they were removed by traces.retention_days. Runs made while serve runs keep theirs.',
    ),
  );
}

export async function renderTrace(ctx: PageContext, root: HTMLElement): Promise<void> {
  const traceId = ctx.route.id ?? '';
  const viewer = ctx.links.viewerTrace(traceId);
  const body = h('div', null, h('p', { class: 'muted loading' }, 'Loading…'));
  root.append(
    h(
      'div',
      { class: 'page-head' },
      pageHeading(`Trace ${shortTraceId(traceId)}`),
      viewer ? h('a', { href: viewer }, 'Open in trace viewer') : null,
      h('a', { href: routeHash('/traces') }, 'Search traces'),
    ),
    body,
  );
  await guarded(ctx, async () => {
    const trace = await ctx.api
      .get<TraceDetail>(`/api/v1/traces/${encodeURIComponent(traceId)}`, undefined, ctx.signal)
      .catch((err: unknown) => {
        if (err instanceof ApiError && err.code === 'TRACE_NOT_FOUND') return undefined;
        body.replaceChildren();
        throw err;
      });
    if (trace === undefined) {
      body.replaceChildren(noTraceKept());
      return;
    }
    const layout = layoutWaterfall(trace.spans);
    const { rows, durationMs } = layout;
    const root0 = rows[0]?.span;
    const services = [...new Set(trace.spans.map((s) => s.service))];
    const runIds = [...new Set(trace.spans.flatMap((s) => (s.run_id !== null ? [s.run_id] : [])))];
    const errors = trace.spans.filter((s) => s.status === 'error').length;
    body.replaceChildren(
      section(
        'Summary',
        facts([
          ['Trace ID', h('code', null, trace.trace_id)],
          ['Root span', root0 ? root0.name : '—'],
          ['Services', services.join(', ') || '—'],
          ['Started', time(root0?.start_time)],
          ['Duration', formatDuration(durationMs)],
          ['Spans', String(trace.spans.length)],
          [
            'Errors',
            errors > 0
              ? h('span', { class: 'error-text' }, `${errors} error${errors === 1 ? '' : 's'}`)
              : '0',
          ],
          runIds.length > 0 && [
            runIds.length === 1 ? 'Run' : 'Runs',
            h(
              'span',
              { class: 'inline-list' },
              runIds.map((id) => link(ctx.links.run(id), `Run ${id}`)),
            ),
          ],
        ]),
      ),
      section(
        'Spans',
        h(
          'p',
          { class: 'muted small' },
          'Select a span (click, Enter or Space) to see its attributes, events and error.',
        ),
        renderWaterfall(layout, ctx.links),
      ),
    );
  });
}
