// Schedules: what fires (an agent or a workflow), when (cron and next fire), and how the last
// fire went.
import { badge, dataTable, link, time } from '../components.js';
import { h } from '../dom.js';
import { guarded, pageHeading, type PageContext } from '../page.js';
import { idPath, routeHash } from '../router.js';
import type { Schedule, ScheduleList } from '../types.js';

function target(s: Schedule): HTMLElement {
  if (s.kind === 'agent' && s.agent_id !== null) {
    return h('a', { href: routeHash(idPath('agents', s.agent_id)) }, s.target);
  }
  if (s.kind === 'workflow' && s.workflow_id !== null) {
    return h('a', { href: routeHash(idPath('workflows', s.workflow_id)) }, s.target);
  }
  return h('span', null, s.target);
}

export async function renderSchedules(ctx: PageContext, root: HTMLElement): Promise<void> {
  const body = h('div', null, h('p', { class: 'muted loading' }, 'Loading…'));
  root.append(h('div', { class: 'page-head' }, pageHeading('Schedules')), body);
  await guarded(ctx, async () => {
    const list = await ctx.api.get<ScheduleList>('/api/v1/schedules', { limit: 1000 }, ctx.signal);
    body.replaceChildren(
      dataTable<Schedule>({
        caption: 'Schedules, soonest next fire first',
        columns: [
          { header: 'Target', cell: target },
          { header: 'Kind', cell: (s) => s.kind },
          {
            header: 'Cron',
            cell: (s) => [
              h('code', null, s.cron),
              s.timezone ? h('span', { class: 'muted' }, ` ${s.timezone}`) : null,
            ],
          },
          { header: 'Next fire', cell: (s) => time(s.next_run_at) },
          { header: 'Enabled', cell: (s) => badge(s.enabled ? 'enabled' : 'disabled') },
          { header: 'Origin', cell: (s) => s.origin },
          {
            header: 'Last fire',
            cell: (s) =>
              s.last_run_at
                ? h(
                    'span',
                    { class: 'inline-list' },
                    time(s.last_run_at),
                    s.last_outcome
                      ? badge(s.last_outcome, s.last_error ? { title: s.last_error } : {})
                      : null,
                  )
                : '—',
          },
          {
            header: 'Last run',
            cell: (s) =>
              s.last_run_id === null
                ? '—'
                : s.kind === 'agent'
                  ? link(ctx.links.run(s.last_run_id), String(s.last_run_id))
                  : h(
                      'a',
                      { href: routeHash(idPath('workflow-runs', s.last_run_id)) },
                      String(s.last_run_id),
                    ),
            numeric: true,
          },
        ],
        rows: list.items,
        empty:
          'No schedules: give an agent or workflow a cron, or set one with POST /api/v1/schedules.',
      }).wrap,
    );
  });
}
