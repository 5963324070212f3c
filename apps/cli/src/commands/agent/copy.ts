import { Args, Flags } from '@oclif/core';
import { JunctionCommand } from '../../base-command.js';
import type { AgentView } from '../../agent-view.js';

export default class AgentCopy extends JunctionCommand {
  static override description =
    'Copy an agent prompt file to another environment and register it there. The copies are independent afterwards. ' +
    'Refused, with nothing copied, when the agent already exists there or its tools are not synced there.';

  static override examples = ['<%= config.bin %> agent copy triage --from default --to prod'];

  static override args = { name: Args.string({ description: 'agent name', required: true }) };

  static override flags = {
    from: Flags.string({ description: 'source environment', required: true }),
    to: Flags.string({ description: 'target environment', required: true }),
  };

  static override enableJsonFlag = true;

  async run(): Promise<AgentView> {
    const { args, flags } = await this.parse(AgentCopy);
    const { createContext } = await import('../../context.js');
    const { agentView } = await import('../../agent-view.js');
    const ct = await import('@junction/config-templates');
    const core = {
      ...(await import('@junction/agent-core')),
      ...(await import('@junction/agent-core/agents')),
    };
    const ctx = await createContext();
    try {
      ct.assertValidName('agent', args.name);
      await ctx.requireEnvironment(flags.from);
      await ctx.requireEnvironment(flags.to);
      const source = ctx.workspace.agentFile(flags.from, args.name);
      const target = ctx.workspace.agentFile(flags.to, args.name);
      const { existsSync } = await import('node:fs');
      if (!existsSync(source)) {
        throw new core.AgentCoreError(
          'AGENT_NOT_FOUND',
          `Agent "${args.name}" has no prompt file in "${flags.from}" (${source}).`,
          { agent: args.name, environment: flags.from },
        );
      }
      // The copy must work in the target before anything is written there.
      const def = { ...(await ct.parsePromptFile(source)), path: target };
      const store = await ctx.store();
      const env = await store.environments.ensure(flags.to);
      core.resolveTools(def, await core.storedToolIndex(store, env.id));
      const known = new Set(
        (await store.agents.list({ environmentId: env.id, limit: 10_000 })).map((a) => a.name),
      );
      core.checkSubAgents(def, new Set([...known, def.name]));
      await ctx.workspace.copyAgentFile(args.name, flags.from, flags.to);
      const agent = await core.registerAgent(store, env.id, def);
      this.log(`Copied agent "${args.name}" from "${flags.from}" to "${flags.to}": ${target}`);
      return await agentView(store, agent);
    } finally {
      await ctx.close();
    }
  }
}
