import { Args, Flags } from '@oclif/core';
import { JunctionCommand } from '../../base-command.js';
import { envFlag } from '../../flags.js';
import type { AgentView } from '../../agent-view.js';

export default class AgentCreate extends JunctionCommand {
  static override description =
    'Write a new prompt file agents/<name>.prompt and register the agent. Its tools must already be synced in the environment; an existing agent is never overwritten.';

  static override examples = [
    '<%= config.bin %> agent create triage "Sorts incoming issues" --tools list_directory,read_text_file',
    '<%= config.bin %> agent create writer "Drafts replies" --env prod --model openai/gpt-4o --max-steps 5 --prompt "You draft short replies."',
  ];

  static override args = {
    name: Args.string({ description: 'agent name (letters, digits, - and _)', required: true }),
    description: Args.string({ description: 'what the agent does', required: true }),
  };

  static override flags = {
    env: envFlag,
    model: Flags.string({
      description: 'model id, e.g. openai/gpt-4o-mini (default: config ai_model)',
    }),
    'max-steps': Flags.integer({ description: 'most model turns per run', min: 1 }),
    tools: Flags.string({ description: 'comma-separated tool names from the environment' }),
    prompt: Flags.string({ description: 'system prompt text' }),
  };

  static override enableJsonFlag = true;

  async run(): Promise<AgentView> {
    const { args, flags } = await this.parse(AgentCreate);
    const { createContext } = await import('../../context.js');
    const { agentView } = await import('../../agent-view.js');
    const core = {
      ...(await import('@junction/agent-core')),
      ...(await import('@junction/agent-core/agents')),
    };
    const ctx = await createContext();
    try {
      await ctx.requireEnvironment(flags.env);
      const file = ctx.workspace.agentFile(flags.env, args.name);
      const tools = (flags.tools ?? '')
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== '');
      const store = await ctx.store();
      const agent = await core.createAgent({
        store,
        workspace: ctx.workspace,
        environment: flags.env,
        draft: {
          name: args.name,
          description: args.description,
          ...(flags.model !== undefined ? { model: flags.model } : {}),
          ...(flags['max-steps'] !== undefined ? { maxSteps: flags['max-steps'] } : {}),
          tools,
          ...(flags.prompt !== undefined ? { prompt: flags.prompt } : {}),
        },
      });
      this.log(`Created agent "${args.name}" in "${flags.env}": ${file}`);
      return await agentView(store, agent);
    } finally {
      await ctx.close();
    }
  }
}
