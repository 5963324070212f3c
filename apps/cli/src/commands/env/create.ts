import { Args } from '@oclif/core';
import { JunctionCommand } from '../../base-command.js';

export default class EnvCreate extends JunctionCommand {
  static override description =
    'Create an environment: a folder with agents/, workflows/ and an empty variables.yml.';

  static override examples = ['<%= config.bin %> env create prod'];

  static override args = {
    name: Args.string({
      description: 'environment name (letters, digits, - and _)',
      required: true,
    }),
  };

  static override enableJsonFlag = true;

  async run(): Promise<{ name: string; path: string }> {
    const { args } = await this.parse(EnvCreate);
    const { createContext } = await import('../../context.js');
    const ctx = await createContext();
    try {
      const dir = await ctx.workspace.createEnvironment(args.name);
      await (await ctx.store()).environments.ensure(args.name);
      this.log(`Created environment "${args.name}" at ${dir}`);
      this.log(`Next: add MCP templates (*.json) there, then \`junction sync ${args.name}\`.`);
      return { name: args.name, path: dir };
    } finally {
      await ctx.close();
    }
  }
}
