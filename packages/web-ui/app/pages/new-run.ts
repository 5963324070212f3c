// Start a run: pick an agent (and its environment), write the task, add variables as
// KEY=value lines; on success the new run's page opens.
import { field, select } from '../components.js';
import { h } from '../dom.js';
import { guarded, pageHeading, type PageContext } from '../page.js';
import { idPath, routeHash } from '../router.js';
import type { Agent, AgentList, QueuedRun } from '../types.js';
import { parseVariables } from '../variables.js';

export async function renderNewRun(ctx: PageContext, root: HTMLElement): Promise<void> {
  const body = h('div', null, h('p', { class: 'muted loading' }, 'Loading…'));
  root.append(h('div', { class: 'page-head' }, pageHeading('New run')), body);
  await guarded(ctx, async () => {
    const agents = (await ctx.api.get<AgentList>('/api/v1/agents', { limit: 1000 }, ctx.signal))
      .items;
    if (agents.length === 0) {
      body.replaceChildren(
        h('p', null, 'No agents yet: add agent files to an environment and sync it.'),
      );
      return;
    }
    const names = [...new Set(agents.map((a) => a.name))].sort((a, b) => a.localeCompare(b));
    const wanted = ctx.route.query.agent;
    const agentSelect = select(
      { id: 'run-agent', name: 'agent', required: true },
      names.map((n) => ({ value: n, label: n })),
      wanted && names.includes(wanted) ? wanted : names[0],
    );
    const envSelect = h('select', { id: 'run-environment', name: 'environment' });
    /** The environments that have the chosen agent; "default" first when it is one. */
    const fillEnvironments = (preferred: string | undefined): void => {
      const envs = agents
        .filter((a: Agent) => a.name === agentSelect.value)
        .map((a) => a.environment)
        .sort((a, b) => (a === 'default' ? -1 : b === 'default' ? 1 : a.localeCompare(b)));
      envSelect.replaceChildren(
        ...envs.map((e) => h('option', { value: e, selected: e === preferred }, e)),
      );
    };
    fillEnvironments(ctx.route.query.environment);
    agentSelect.addEventListener('change', () => fillEnvironments(undefined));

    const task = h('textarea', { id: 'run-task', name: 'task', rows: 6, required: true });
    if (ctx.route.query.task) task.value = ctx.route.query.task;
    const variables = h('textarea', {
      id: 'run-variables',
      name: 'variables',
      rows: 4,
      spellcheck: 'false',
      placeholder: 'city=Paris',
    });
    const submit = h('button', { type: 'submit', class: 'primary' }, 'Start run');
    const form = h(
      'form',
      {
        class: 'card run-form',
        onsubmit: (event: Event) => {
          event.preventDefault();
          void start();
        },
      },
      field('Agent', agentSelect),
      field('Environment', envSelect),
      field('Task', task, 'What the agent should do.'),
      field('Variables', variables, 'Optional template variables, one KEY=value per line.'),
      h('div', { class: 'actions' }, submit),
    );
    const start = async (): Promise<void> => {
      ctx.clearError();
      if (task.value.trim() === '') {
        ctx.showError(new Error('Write a task for the agent.'));
        task.focus();
        return;
      }
      const parsed = parseVariables(variables.value);
      if (!parsed.ok) {
        ctx.showError(new Error(parsed.message));
        variables.focus();
        return;
      }
      submit.disabled = true;
      try {
        const run = await ctx.api.post<QueuedRun>(
          '/api/v1/runs',
          {
            agent_name: agentSelect.value,
            ...(envSelect.value ? { environment: envSelect.value } : {}),
            task: task.value,
            ...(Object.keys(parsed.variables).length > 0 ? { variables: parsed.variables } : {}),
          },
          ctx.signal,
        );
        ctx.announce(`Run ${run.run_id} queued.`);
        ctx.navigate(routeHash(idPath('runs', run.run_id)));
      } catch (err) {
        ctx.showError(err);
        submit.disabled = false;
      }
    };
    body.replaceChildren(form);
  });
}
