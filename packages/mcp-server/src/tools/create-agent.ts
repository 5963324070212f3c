import { z } from 'zod';
import { agentView, createAgent } from '@junction/agent-core/agents';
import { idArg } from '../arguments.js';
import { requireEnvironment } from '../lookups.js';
import { defineTool } from '../tool-kit.js';
import { descriptionArg, maxStepsArg, modelArg, promptArg, toolNamesArg } from './agent-fields.js';

export const createAgentTool = defineTool({
  name: 'create_agent',
  title: 'Create an agent',
  description:
    'Creates an agent in an environment: writes its prompt file (agents/<name>.prompt) and registers it, ' +
    'bound to the named tools. Tools must exist in the environment (list_tools); nothing is written when ' +
    'the name is taken or a tool is unknown. Returns the new agent with its id.',
  shape: {
    name: z
      .string({ error: 'name is required: the agent name, as a string' })
      .trim()
      .min(1, { error: 'name must not be empty' })
      .describe('Agent name: letters, digits, "-" and "_"; unique in the environment.'),
    description: descriptionArg,
    prompt: promptArg,
    environment_id: idArg(
      'environment_id',
      'Id of the environment to create the agent in, a string of digits from list_environments.',
    ),
    max_steps: maxStepsArg.optional(),
    tool_names: toolNamesArg.optional(),
    model: modelArg.optional(),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  async run(args, ctx) {
    const { store, workspace } = ctx.deps;
    const env = await requireEnvironment(store, args.environment_id);
    const agent = await createAgent({
      store,
      workspace,
      environment: env.name,
      draft: {
        name: args.name,
        description: args.description,
        prompt: args.prompt,
        ...(args.model !== undefined ? { model: args.model } : {}),
        ...(args.max_steps !== undefined ? { maxSteps: args.max_steps } : {}),
        tools: args.tool_names ?? [],
      },
    });
    return {
      summary: `Created agent "${agent.name}" (agent_id "${agent.id}") in environment "${env.name}".`,
      data: { agent: { ...(await agentView(store, agent)) } },
    };
  },
});
