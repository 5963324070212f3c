import { agentView, updateAgent } from '@junction/agent-core/agents';
import type { PromptFileChanges } from '@junction/config-templates';
import { idArg } from '../arguments.js';
import { McpServerError } from '../errors.js';
import { requireAgent } from '../lookups.js';
import { defineTool } from '../tool-kit.js';
import { descriptionArg, maxStepsArg, modelArg, promptArg, toolNamesArg } from './agent-fields.js';

export const updateAgentTool = defineTool({
  name: 'update_agent',
  title: 'Change an agent',
  description:
    "Changes an agent: its description, prompt, max_steps, tools or model. The change is written to the agent's " +
    'prompt file (other settings in the file are kept) and registered. Give only what changes; tool_names ' +
    'replaces the whole tool list. Returns the agent as it is now.',
  shape: {
    agent_id: idArg('agent_id', 'Id of the agent to change, a string of digits from list_agents.'),
    description: descriptionArg.optional(),
    prompt: promptArg.optional(),
    max_steps: maxStepsArg.optional(),
    tool_names: toolNamesArg.optional(),
    model: modelArg.optional(),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  async run(args, ctx) {
    const { store, workspace } = ctx.deps;
    await requireAgent(store, args.agent_id);
    const changes: PromptFileChanges = {
      ...(args.description !== undefined ? { description: args.description } : {}),
      ...(args.prompt !== undefined ? { prompt: args.prompt } : {}),
      ...(args.max_steps !== undefined ? { maxSteps: args.max_steps } : {}),
      ...(args.tool_names !== undefined ? { tools: args.tool_names } : {}),
      ...(args.model !== undefined ? { model: args.model } : {}),
    };
    if (Object.keys(changes).length === 0) {
      throw new McpServerError(
        'ARGUMENT_INVALID',
        'Nothing to change: give at least one of description, prompt, max_steps, tool_names, model.',
        { agent_id: args.agent_id },
      );
    }
    const agent = await updateAgent({ store, workspace, agentId: args.agent_id, changes });
    return {
      summary: `Updated agent "${agent.name}" (agent_id "${agent.id}"): ${Object.keys(changes).join(', ')}.`,
      data: { agent: { ...(await agentView(store, agent)) } },
    };
  },
});
