// One agent: its settings, tools, schedule and last five runs, with a Run button.
import { dataTable, facts, fillRows, section, time, token } from '../components.js';
import { h } from '../dom.js';
import { guarded, pageHeading, type PageContext } from '../page.js';
import { routeHash } from '../router.js';
import type { Agent, AgentTool, Run, RunList } from '../types.js';
import { agentSchedules, newRunHash, scheduleCell } from './agents.js';
import { runColumns } from './runs.js';

export async function renderAgent(ctx: PageContext, root: HTMLElement): Promise<void> {
  const heading = pageHeading(`Agent ${ctx.route.id ?? ''}`);
  const head = h('div', { class: 'page-head' }, heading);
  const body = h('div', null, h('p', { class: 'muted loading' }, 'Loading…'));
  root.append(head, body);
  await guarded(ctx, async () => {
    const agent = await ctx.api.get<Agent>(`/api/v1/agents/${ctx.route.id}`, undefined, ctx.signal);
    heading.textContent = `Agent ${agent.name}`;
    document.title = `Agent ${agent.name} · Junction`;
    head.append(h('a', { href: newRunHash(agent), class: 'button primary' }, 'Run'));

    const runsTable = dataTable<Run>({
      caption: `Last runs of ${agent.name}`,
      columns: runColumns(ctx.links, { agent: false }),
      rows: [],
      empty: 'Loading…',
    });
    const [schedules] = await Promise.all([
      agentSchedules(ctx, { environment: agent.environment }),
      ctx.api
        .get<RunList>('/api/v1/runs', { agent: agent.name, limit: 5 }, ctx.signal)
        .then((list) =>
          fillRows(runsTable.tbody, runColumns(ctx.links, { agent: false }), list.items, {
            empty: 'No runs yet.',
            rowAttrs: (r) => ({ 'data-run-id': r.run_id, 'data-status': r.status }),
          }),
        )
        .catch((err: unknown) => {
          ctx.showError(err);
          fillRows(runsTable.tbody, runColumns(ctx.links, { agent: false }), [], {
            empty: 'Runs could not be read.',
          });
        }),
    ]);

    body.replaceChildren(
      section(
        'Settings',
        facts([
          ['Environment', agent.environment],
          ['Description', agent.description || '—'],
          ['Model', agent.model ?? 'configured default'],
          ['Max steps', agent.max_steps === null ? 'default' : String(agent.max_steps)],
          ['Prompt file', agent.prompt_path ? token(agent.prompt_path) : '—'],
          ['Coding tools', agent.coding_enabled ? 'enabled' : 'off'],
          ['Sub-agents', agent.sub_agents.length > 0 ? agent.sub_agents.join(', ') : '—'],
          ['Schedule', scheduleCell(agent, schedules.get(agent.id))],
          ['Updated', time(agent.updated_at)],
        ]),
      ),
      section(
        `Tools (${agent.tools.length})`,
        dataTable<AgentTool>({
          caption: `Tools of ${agent.name}`,
          columns: [
            { header: 'Tool', cell: (t) => token(t.name, { 'data-tool': t.name }) },
            { header: 'Server', cell: (t) => t.server },
            { header: 'Description', cell: (t) => t.description ?? '—' },
          ],
          rows: agent.tools,
          empty: 'This agent has no tools.',
        }).wrap,
      ),
      section(
        'Last runs',
        runsTable.wrap,
        h(
          'p',
          null,
          h('a', { href: routeHash('/runs', { agent: agent.name }) }, `All runs of ${agent.name}`),
        ),
      ),
    );
  });
}
