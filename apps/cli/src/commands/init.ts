import { JunctionCommand } from '../base-command.js';

interface InitResult {
  workspace: string;
  config_file: string;
  database: string;
  created: string[];
  existing: string[];
}

export default class Init extends JunctionCommand {
  static override description =
    'Create the workspace: config.yaml with defaults, the store, the default environment and an example agent. Safe to run twice.';

  static override examples = [
    '<%= config.bin %> init',
    'XDG_CONFIG_HOME=/tmp/j1 <%= config.bin %> init',
  ];

  static override enableJsonFlag = true;

  async run(): Promise<InitResult> {
    // Parsed even with no flags of its own: an unknown flag is refused, not ignored.
    await this.parse(Init);
    const { createContext } = await import('../context.js');
    const ctx = await createContext();
    try {
      const report = await ctx.workspace.init();
      const store = await ctx.store();
      for (const name of await ctx.workspace.listEnvironments()) {
        await store.environments.ensure(name);
      }
      for (const p of report.created) this.log(`created  ${p}`);
      for (const p of report.existing) this.log(`exists   ${p}`);
      this.log(`\nWorkspace ready at ${ctx.paths.configHome}`);
      this.log('Next: junction env list');
      return {
        workspace: ctx.paths.configHome,
        config_file: ctx.paths.configFile,
        database: ctx.config.database_url ?? ctx.paths.databaseFile,
        created: report.created,
        existing: report.existing,
      };
    } finally {
      await ctx.close();
    }
  }
}
