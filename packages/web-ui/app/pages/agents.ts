// Agents: every agent with its environment, model, tools and schedule, and a Run button that
// opens the start-a-run form filled in for it.
import { dataTable, time } from '../components.js';
import { h } from '../dom.js';
import { guarded, pageHeading, type PageContext } from '../page.js';
import { idPath, routeHash } from '../router.js';
import type { Agent, AgentList, Schedule, ScheduleList } from '../types.js';

/** The start-a-run form for an agent. */
export function newRunHash(agent: Pick<Agent, 'name' | 'environment'>): string {
  return routeHash('/new-run', { agent: agent.name, environment: agent.environment });
}

/** The agent's schedule: from the schedules list (with its next fire) or the agent's own field. */
export function scheduleCell(agent: Agent, schedule: Schedule | undefined): Node | string {
  const cron = schedule?.cron ?? agent.schedule?.cron;
  if (!cron) return '—';
  const enabled = schedule?.enabled ?? agent.schedule?.enabled ?? true;
  return h(
    'span',
    null,
    h('code', null, cron),
    enabled ? null : ' (disabled)',
    enabled && schedule?.next_run_at
      ? [h('br'), h('span', { class: 'muted' }, 'next ', time(schedule.next_run_at))]
      : null,
  );
}

/** Agent schedules by agent id; an empty map when schedules cannot be read. */
export async function agentSchedules(
  ctx: PageContext,
  query: Record<string, string> = {},
): Promise<Map<number, Schedule>> {
  try {
    const list = await ctx.api.get<ScheduleList>(
      '/api/v1/schedules',
      { kind: 'agent', limit: 1000, ...query },
      ctx.signal,
    );
    return new Map(
      list.items.filter((s) => s.agent_id !== null).map((s) => [s.agent_id as number, s]),
    );
  } catch {
    return new Map();
  }
}

export async function renderAgents(ctx: PageContext, root: HTMLElement): Promise<void> {
  const body = h('div', null, h('p', { class: 'muted loading' }, 'Loading…'));
  root.append(h('div', { class: 'page-head' }, pageHeading('Agents')), body);
  await guarded(ctx, async () => {
    const [agents, schedules] = await Promise.all([
      ctx.api.get<AgentList>('/api/v1/agents', { limit: 1000 }, ctx.signal),
      agentSchedules(ctx),
    ]);
    const { wrap } = dataTable<Agent>({
      caption: 'Agents',
      columns: [
        {
          header: 'Name',
          cell: (a) => h('a', { href: routeHash(idPath('agents', a.id)) }, a.name),
        },
        { header: 'Environment', cell: (a) => a.environment },
        {
          header: 'Model',
          cell: (a) => a.model ?? h('span', { class: 'muted' }, 'configured default'),
        },
        { header: 'Tools', cell: (a) => String(a.tools.length), numeric: true },
        { header: 'Schedule', cell: (a) => scheduleCell(a, schedules.get(a.id)) },
        {
          header: 'Actions',
          cell: (a) =>
            h(
              'a',
              {
                href: newRunHash(a),
                class: 'button small',
                'aria-label': `Run ${a.name} (${a.environment})`,
              },
              'Run',
            ),
        },
      ],
      rows: agents.items,
      empty: 'No agents yet: add agent files to an environment and sync it.',
      attrs: { 'data-table': 'agents' },
    });
    body.replaceChildren(wrap);
  });
}
