import { agentView } from '@junction/agent-core/agents';
import { agentIdArg } from '../arguments.js';
import { requireAgent } from '../lookups.js';
import { defineTool } from '../tool-kit.js';
import { runSummary } from '../views.js';

/** Recent runs shown with an agent. */
const RECENT_RUNS = 5;

export const getAgentDetailsTool = defineTool({
  name: 'get_agent_details',
  title: 'Show an agent',
  description:
    'Shows one agent: environment, description, model, max_steps, prompt file, the tools and sub-agents it ' +
    'may use, its schedule, and its most recent runs.',
  shape: {
    agent_id: agentIdArg,
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const { store } = ctx.deps;
    const agent = await requireAgent(store, args.agent_id);
    const runs = await store.runs.list({ agentId: agent.id, limit: RECENT_RUNS });
    return {
      data: { agent: { ...(await agentView(store, agent)) }, recent_runs: runs.map(runSummary) },
    };
  },
});
